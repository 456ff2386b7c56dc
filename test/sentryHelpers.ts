// Sentry's wire formats as the official SDKs send them, for the tests of the Sentry-compatible
// endpoints (sentry.test.ts, sentry-pipeline.test.ts).
import { env } from "cloudflare:workers";
import { call, signUp, unique, uniqueIp } from "./helpers";

type Json = Record<string, any>;

/** An owner with a project key and its DSN, as the create answer gives them. */
export async function sentryProject() {
	const owner = await signUp();
	const projectName = unique("sentry");
	const created = await call("/api/feedback-key", { method: "POST", token: owner.token, json: { project_name: projectName } }).then((r) => r.json<Json>());
	const row = await env.DB.prepare("select id from project_keys where project_name = ?").bind(projectName).first<{ id: string }>();
	return { ...owner, projectName, rawKey: created.raw_api_key as string, dsn: created.dsn as string, dsnId: Number(created.dsn.split("/").pop()), keyId: row!.id };
}
export type SentryProject = Awaited<ReturnType<typeof sentryProject>>;

const encoder = new TextEncoder();
const bytesOf = (part: string | Uint8Array) => (typeof part === "string" ? encoder.encode(part) : part);

/** An envelope: the header line, then each item's header line (`headers` added) and payload (with `length` when asked). */
export function envelope(headers: Json, items: Array<{ type: string; payload: string | Uint8Array; withLength?: boolean; headers?: Json }>): Uint8Array {
	const parts: Uint8Array[] = [encoder.encode(`${JSON.stringify(headers)}\n`)];
	for (const { type, payload, withLength, headers: more } of items) {
		const body = bytesOf(payload);
		const itemHeaders = { type, ...(withLength ? { length: body.byteLength } : {}), ...more };
		parts.push(encoder.encode(`${JSON.stringify(itemHeaders)}\n`), body, encoder.encode("\n"));
	}
	return concat(parts);
}

function concat(parts: Uint8Array[]): Uint8Array {
	const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
	let offset = 0;
	for (const part of parts) {
		out.set(part, offset);
		offset += part.byteLength;
	}
	return out;
}

/** An event as @sentry/node 11 sends it (trimmed). */
export function nodeEvent(overrides: Json = {}): Json {
	return {
		event_id: crypto.randomUUID().replaceAll("-", ""),
		level: "error",
		platform: "node",
		timestamp: 1_795_380_886.166,
		environment: "production",
		release: "shop@1.4.2",
		server_name: "web-1",
		sdk: { name: "sentry.javascript.node", version: "11.12.0", integrations: ["LinkedErrors"] },
		tags: { feature: "checkout" },
		user: { id: "u1", email: "a@example.com" },
		breadcrumbs: [{ timestamp: 1_795_380_886.164, category: "ui", message: "clicked pay" }],
		contexts: { runtime: { name: "node", version: "v24.21.0" }, trace: { trace_id: "5f5dcf050ab74029941647b4eaeaf2cf" } },
		exception: {
			values: [
				{
					type: "Error",
					value: "db down",
					stacktrace: { frames: [{ filename: "/srv/app/src/orders.js", module: "orders", function: "query", lineno: 6, colno: 26, in_app: true }] },
					mechanism: { type: "chained", source: "cause", handled: true, exception_id: 1, parent_id: 0 },
				},
				{
					type: "Error",
					value: "load failed",
					stacktrace: { frames: [{ filename: "/srv/app/src/orders.js", module: "orders", function: "loadOrders", lineno: 7, colno: 55, in_app: true }] },
					mechanism: { type: "generic", handled: true, exception_id: 0 },
				},
			],
		},
		...overrides,
	};
}

export const eventEnvelope = (event: Json = nodeEvent(), headers: Json = {}) =>
	envelope({ event_id: event.event_id, sent_at: new Date().toISOString(), sdk: { name: "sentry.javascript.node", version: "11.12.0" }, ...headers }, [
		{ type: "event", payload: JSON.stringify(event) },
	]);

export const query = (project: SentryProject) => `?sentry_version=7&sentry_key=${project.rawKey}&sentry_client=sentry.javascript.node%2F11.12.0`;

export function post(path: string, body: BodyInit | null, init: { headers?: Record<string, string>; ip?: string; method?: string } = {}) {
	return call(path, { method: init.method ?? "POST", ip: init.ip ?? uniqueIp(), headers: { "content-type": "text/plain;charset=UTF-8", ...init.headers }, body });
}

export const sendEnvelope = (project: SentryProject, body: BodyInit | null, init: { headers?: Record<string, string>; ip?: string; path?: string } = {}) =>
	post(init.path ?? `/api/${project.dsnId}/envelope/${query(project)}`, body, init);

export async function gzip(data: Uint8Array | string, format: "gzip" | "deflate" | "deflate-raw" = "gzip"): Promise<Uint8Array> {
	return new Uint8Array(await new Response(new Blob([bytesOf(data)]).stream().pipeThrough(new CompressionStream(format))).arrayBuffer());
}

