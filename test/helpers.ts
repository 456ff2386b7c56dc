import { env, exports } from "cloudflare:workers";

export const ORIGIN = "https://svc.test";

let counter = 0;
/** A value no other test uses: Durable Objects and D1 rows are shared across tests in a file. */
export const unique = (prefix = "t") => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}-${crypto.randomUUID().slice(0, 8)}`;
export const uniqueIp = () => `10.${(counter++ % 250) + 1}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;

/** A request through the Worker's own fetch handler, as a client would send it. */
export function call(path: string, init: RequestInit & { json?: unknown; token?: string; ip?: string } = {}) {
	const headers = new Headers(init.headers);
	if (init.token) headers.set("authorization", `Bearer ${init.token}`);
	if (init.ip) headers.set("cf-connecting-ip", init.ip);
	let body = init.body;
	if (init.json !== undefined) {
		headers.set("content-type", "application/json");
		body = JSON.stringify(init.json);
	}
	return exports.default.fetch(new Request(ORIGIN + path, { ...init, headers, body }));
}

export async function signUp(email = `${unique("owner")}@example.com`, password = "correct horse battery") {
	const res = await call("/api/auth/signup", { method: "POST", json: { email, password }, ip: uniqueIp() });
	if (res.status !== 201) throw new Error(`signup failed: ${res.status} ${await res.text()}`);
	const { token, user } = (await res.json()) as { token: string; user: { id: string; email: string } };
	return { token, user, email, password };
}

export async function createProjectKey(token: string, projectName = unique("project")) {
	const res = await call("/api/feedback-key", { method: "POST", token, json: { project_name: projectName } });
	if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${await res.text()}`);
	const body = (await res.json()) as { raw_api_key: string };
	return { rawKey: body.raw_api_key, projectName };
}

/** An owner with a project key, ready to receive feedback. */
export async function ownerWithKey() {
	const owner = await signUp();
	return { ...owner, ...(await createProjectKey(owner.token)) };
}

/** Changes a project key's configuration through the owner API (PATCH /api/feedback-key); fails the test unless it is taken. */
export async function configureKey(token: string, projectName: string, config: Record<string, unknown>) {
	const res = await call("/api/feedback-key", { method: "PATCH", token, json: { project_name: projectName, ...config } });
	if (res.status !== 200) throw new Error(`key update failed: ${res.status} ${await res.text()}`);
}

export function submitFeedback(rawKey: string | null, body: unknown, init: { ip?: string; raw?: string } = {}) {
	return call("/functions/v1/submit-feedback", {
		method: "POST",
		token: rawKey ?? undefined,
		ip: init.ip ?? uniqueIp(),
		headers: { "content-type": "application/json" },
		body: init.raw ?? JSON.stringify(body),
	});
}

/** The owner's view of what was stored. */
export async function storedFeedback(token: string, projectName: string) {
	const res = await call(`/api/feedback?project_name=${encodeURIComponent(projectName)}&limit=1000`, { token });
	const { feedback } = await res.json<any>();
	// Lists cut long text; each record whole is one request away.
	return Promise.all(feedback.map((record: any) => call(`/api/feedback/${record.id}`, { token }).then((r) => r.json<any>()))) as Promise<any[]>;
}

export async function setPlan(email: string, plan: "free" | "pro", trialEndsAt?: string) {
	const res = await call("/api/admin/users/plan", {
		method: "POST",
		token: "test-admin-token",
		json: { email, plan, ...(trialEndsAt ? { trial_ends_at: trialEndsAt } : {}) },
	});
	if (res.status !== 200) throw new Error(`plan change failed: ${res.status} ${await res.text()}`);
}

/** A 1x1 PNG, as a data URI. */
export const PNG_1PX =
	"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/** The last statement of the migration whose name ends with `suffix`, without comments: a hand-written backfill to compare with its source. */
export function lastMigrationStatement(suffix: string): string {
	const migration = env.TEST_MIGRATIONS.find((m) => m.name.endsWith(suffix));
	return withoutComments(migration?.queries.at(-1) ?? "");
}

/** SQL without its comment lines and final semicolon. */
export const withoutComments = (sql: string) =>
	sql
		.split("\n")
		.filter((line) => !line.startsWith("--"))
		.join("\n")
		.replace(/;\s*$/, "")
		.trim();
