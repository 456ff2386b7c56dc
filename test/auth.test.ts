import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { EMAIL_MAX_CHARS } from "../domain/limits";
import { call, setPlan, signUp, unique, uniqueIp } from "./helpers";

describe("sign up", () => {
	it("creates an account with a 14-day trial and a session", async ({ expect }) => {
		const email = `${unique("new")}@Example.com`;
		const res = await call("/api/auth/signup", { method: "POST", json: { email, password: "12345678" }, ip: uniqueIp() });
		expect(res.status).toBe(201);
		expect(res.headers.get("cache-control")).toBe("no-store");
		const body = await res.json<any>();
		expect(body.token).toMatch(/^svcs_[A-Za-z0-9]{43}$/);
		expect(body.user).toMatchObject({ email: email.toLowerCase(), plan: "free", access: true });
		const trialDays = (Date.parse(body.user.trial_ends_at) - Date.now()) / 86_400_000;
		expect(trialDays).toBeGreaterThan(13.9);
		expect(trialDays).toBeLessThanOrEqual(14);
	});

	it("stores a PBKDF2 hash, never the password, and only the token's SHA-256", async ({ expect }) => {
		const { user, token, password } = await signUp();
		const row = await env.DB.prepare("select password_hash from users where id = ?").bind(user.id).first<{ password_hash: string }>();
		expect(row!.password_hash).toMatch(/^pbkdf2-sha256\$100000\$/);
		expect(row!.password_hash).not.toContain(password);
		const sessions = await env.DB.prepare("select token_hash from sessions where user_id = ?").bind(user.id).all<{ token_hash: string }>();
		expect(sessions.results).toHaveLength(1);
		expect(sessions.results[0].token_hash).toMatch(/^[0-9a-f]{64}$/);
		expect(sessions.results[0].token_hash).not.toBe(token);
	});

	it("answers 409 for an existing email, in any case", async ({ expect }) => {
		const { email } = await signUp();
		const res = await call("/api/auth/signup", { method: "POST", json: { email: email.toUpperCase(), password: "another password" }, ip: uniqueIp() });
		expect(res.status).toBe(409);
		expect(await res.json()).toEqual({ error: "An account with this email already exists" });
	});

	it.for([
		["a 7-character password", { email: "x@example.com", password: "1234567" }],
		["a bad email", { email: "not-an-email", password: "12345678" }],
		["a number for the password", { email: "y@example.com", password: 12345678 }],
		["nothing", {}],
	])("refuses %s with 400", async ([, body], { expect }) => {
		const res = await call("/api/auth/signup", { method: "POST", json: body, ip: uniqueIp() });
		expect(res.status).toBe(400);
		expect((await res.json<any>()).error).toMatch(/^Invalid request: /);
	});

	it("refuses an email over 254 characters, naming the limit", async ({ expect }) => {
		const email = `${"a".repeat(64)}@${"b".repeat(EMAIL_MAX_CHARS - 64 - 1 - 4)}.com`;
		const at = (extra: string) => call("/api/auth/signup", { method: "POST", json: { email: `${extra}${email}`, password: "12345678" }, ip: uniqueIp() });
		const over = await at("a");
		expect(over.status).toBe(400);
		expect((await over.json<any>()).error).toBe(`Invalid request: email: must be at most ${EMAIL_MAX_CHARS} characters`);
		expect((await at("")).status).not.toBe(400);
	});

	it("accepts exactly 8 characters", async ({ expect }) => {
		const res = await call("/api/auth/signup", { method: "POST", json: { email: `${unique()}@example.com`, password: "12345678" }, ip: uniqueIp() });
		expect(res.status).toBe(201);
	});

	it.for([
		["invalid JSON", "{nope"],
		["an empty body", ""],
		["a JSON array", "[1,2]"],
	])("refuses %s with 400", async ([, raw], { expect }) => {
		const res = await call("/api/auth/signup", { method: "POST", body: raw, ip: uniqueIp() });
		expect(res.status).toBe(400);
		expect(Object.keys(await res.json<any>())).toEqual(["error"]);
	});
});

describe("sign in, me, sign out", () => {
	it("signs in with the right pair and the session works until sign-out", async ({ expect }) => {
		const { email, password, user } = await signUp();
		const login = await call("/api/auth/login", { method: "POST", json: { email, password }, ip: uniqueIp() });
		expect(login.status).toBe(200);
		const { token } = await login.json<any>();

		const me = await call("/api/auth/me", { token });
		expect(me.status).toBe(200);
		expect((await me.json<any>()).user).toMatchObject({ id: user.id, email, access: true });

		expect((await call("/api/auth/logout", { method: "POST", token })).status).toBe(204);
		expect((await call("/api/auth/me", { token })).status).toBe(401);
	});

	it("an expired session is refused, and swept at the next sign-in", async ({ expect }) => {
		const { email, password, token, user } = await signUp();
		await env.DB.prepare("UPDATE sessions SET expires_at = ? WHERE user_id = ?").bind(Date.now() - 1, user.id).run();
		expect((await call("/api/auth/me", { token })).status).toBe(401);
		await call("/api/auth/login", { method: "POST", json: { email, password }, ip: uniqueIp() });
		const left = await env.DB.prepare("SELECT count(*) AS n FROM sessions WHERE user_id = ?").bind(user.id).first();
		expect(left).toEqual({ n: 1 });
	});

	it("answers 401 to a wrong password and to an unknown email, alike", async ({ expect }) => {
		const { email } = await signUp();
		const wrong = await call("/api/auth/login", { method: "POST", json: { email, password: "wrong password" }, ip: uniqueIp() });
		const unknown = await call("/api/auth/login", { method: "POST", json: { email: `${unique()}@example.com`, password: "whatever1" }, ip: uniqueIp() });
		expect(wrong.status).toBe(401);
		expect(unknown.status).toBe(401);
		expect(await wrong.json()).toEqual(await unknown.json());
	});

	const login = (email: string, password: string, ip: string) => call("/api/auth/login", { method: "POST", json: { email, password }, ip });

	it("throttles the guessing address: 10 failures for an account, then 429 there; the owner elsewhere signs in", async ({ expect }) => {
		const { email, password } = await signUp();
		const guesser = uniqueIp();
		for (let i = 0; i < 10; i++) expect((await login(email, "wrong password", guesser)).status).toBe(401);
		const blocked = await login(email, password, guesser);
		expect(blocked.status).toBe(429);
		expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
		expect((await login(email, password, uniqueIp())).status).toBe(200);
	});

	it("a correct password gives its attempt back: an owner who signs in often is never throttled", async ({ expect }) => {
		const { email, password } = await signUp();
		const ip = uniqueIp();
		for (let i = 0; i < 12; i++) expect((await login(email, password, ip)).status).toBe(200);
	});

	it("100 failures for an account from many addresses stop those addresses, not a clean one", async ({ expect }) => {
		const { email, password } = await signUp();
		const guessers = Array.from({ length: 10 }, () => uniqueIp());
		for (const ip of guessers) {
			const statuses = await Promise.all(Array.from({ length: 10 }, () => login(email, "wrong password", ip).then((r) => r.status)));
			expect(statuses.every((s) => s === 401)).toBe(true);
		}
		// 100 failures: an address that failed is refused even with the right password (it is
		// also at its own 10), and one more address that failed once is refused by the account's window.
		const oneFailure = uniqueIp();
		const first = await login(email, "wrong password", oneFailure);
		expect(first.status).toBe(401);
		expect((await login(email, password, oneFailure)).status).toBe(429);
		expect((await login(email, password, uniqueIp())).status).toBe(200);
		// 100 password checks on a shared machine: a generous bound for a stuck test, not a measure.
	}, 120_000);

	it("throttles sign-in per IP: 50 attempts per 15 minutes over many emails", async ({ expect }) => {
		const ip = uniqueIp();
		const statuses = await Promise.all(
			Array.from({ length: 51 }, () =>
				call("/api/auth/login", { method: "POST", json: { email: `${unique()}@example.com`, password: "whatever1" }, ip }).then((r) => r.status),
			),
		);
		expect(statuses.filter((s) => s === 401)).toHaveLength(50);
		expect(statuses.filter((s) => s === 429)).toHaveLength(1);
		// Another account's owner on the same address (an office, a NAT) with the right password: also 429,
		// the address is the guesser here.
	}, 120_000);

	it.for([
		["no header", undefined],
		["an unknown token", "svcs_unknown"],
	])("me answers 401 with %s", async ([, token], { expect }) => {
		const res = await call("/api/auth/me", { token });
		expect(res.status).toBe(401);
		expect(Object.keys(await res.json<any>())).toEqual(["error"]);
	});

	it("does not accept a project key as a session", async ({ expect }) => {
		const { token } = await signUp();
		const key = await call("/api/feedback-key", { method: "POST", token, json: { project_name: "p" } }).then((r) => r.json<any>());
		expect((await call("/api/auth/me", { token: key.raw_api_key })).status).toBe(401);
		expect((await call("/api/feedback-keys", { token: key.raw_api_key })).status).toBe(401);
	});
});

describe("access and the admin plan endpoint", () => {
	it("an ended trial loses access (402 on owner endpoints) and Pro restores it", async ({ expect }) => {
		const { email, token } = await signUp();
		await setPlan(email, "free", new Date(Date.now() - 1000).toISOString());
		const me = await call("/api/auth/me", { token }).then((r) => r.json<any>());
		expect(me.user.access).toBe(false);
		const denied = await call("/api/feedback-keys", { token });
		expect(denied.status).toBe(402);
		expect(Object.keys(await denied.json<any>())).toEqual(["error"]);

		await setPlan(email, "pro");
		expect((await call("/api/auth/me", { token }).then((r) => r.json<any>())).user).toMatchObject({ plan: "pro", access: true });
		expect((await call("/api/feedback-keys", { token })).status).toBe(200);
	});

	it("needs the admin token", async ({ expect }) => {
		const { email, token } = await signUp();
		const asOwner = await call("/api/admin/users/plan", { method: "POST", token, json: { email, plan: "pro" } });
		expect(asOwner.status).toBe(401);
		const anonymous = await call("/api/admin/users/plan", { method: "POST", json: { email, plan: "pro" } });
		expect(anonymous.status).toBe(401);
	});

	it("answers 404 for an unknown email and 400 for a bad plan", async ({ expect }) => {
		const unknown = await call("/api/admin/users/plan", { method: "POST", token: "test-admin-token", json: { email: `${unique()}@example.com`, plan: "pro" } });
		expect(unknown.status).toBe(404);
		const bad = await call("/api/admin/users/plan", { method: "POST", token: "test-admin-token", json: { email: "a@example.com", plan: "gold" } });
		expect(bad.status).toBe(400);
	});

	it("does not exist without ADMIN_TOKEN", async ({ expect }) => {
		const { setUserPlan } = await import("../workers/auth/accounts");
		const request = Object.assign(new Request("https://svc.test/api/admin/users/plan", { method: "POST", headers: { authorization: "Bearer " } }), { query: {}, params: {} });
		await expect(setUserPlan(request as any, { ...env, ADMIN_TOKEN: undefined })).rejects.toMatchObject({ status: 404 });
	});
});

describe("routing", () => {
	it("answers unknown API routes with a JSON 404", async ({ expect }) => {
		const res = await call("/api/nope");
		expect(res.status).toBe(404);
		expect(await res.json()).toEqual({ error: "No such API route" });
	});
});
