import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, type ExpectStatic, it } from "vitest";
import { COLLECT_LIMITS, CRAWL_LIMITS, FEEDBACK_LIMITS, LOG_LIMITS } from "../domain/limits";
import { flushSite, ownerWithSite } from "./analytics-helpers";
import { call, ownerWithKey, uniqueIp } from "./helpers";
import { issueGrouper, ownerWithLogKey } from "./logHelpers";

/**
 * Generated requests for every ingestion endpoint and the owner mutations: arbitrary JSON and
 * non-JSON, wrong types in every documented field, huge and odd Unicode (lone surrogates, emoji
 * at every cut point, right-to-left text, NUL), prototype keys and non-finite numbers. For each:
 * the status is one the endpoint documents, nothing stored breaks a limit or is malformed, and
 * no answer carries a secret.
 */

const RUNS = 1_000;

/** Any UTF-16 code units, lone surrogates included, with the shapes that break code most often. */
const nastyString = fc.oneof(
	fc.string({ unit: "binary", maxLength: 40 }),
	fc.constantFrom("", "\u0000", "\ud800", "\udfff", "😀", "\u202e\u2066abc", "__proto__", "constructor", "1e999", "<script>x</script>"),
	fc.tuple(fc.string({ unit: "grapheme", maxLength: 3 }), fc.integer({ min: 0, max: 12_000 })).map(([piece, times]) => piece.repeat(times)),
);

const anyValue: fc.Arbitrary<unknown> = fc.oneof(
	nastyString,
	fc.double(),
	fc.integer(),
	fc.boolean(),
	fc.constant(null),
	fc.array(nastyString, { maxLength: 8 }),
	fc.dictionary(nastyString, nastyString, { maxKeys: 5 }),
	fc.jsonValue({ maxDepth: 4 }),
);

/** A body built around an endpoint's own field names, each given any value or left out. */
const bodyWith = (fields: string[]) =>
	fc.dictionary(fc.oneof(fc.constantFrom(...fields, "__proto__", "constructor"), nastyString), anyValue, { maxKeys: fields.length + 4 });

/** The request text: JSON of the body, JSON with a non-finite number, or no JSON at all. */
const requestText = (fields: string[]) =>
	fc.oneof(
		{ weight: 6, arbitrary: bodyWith(fields).map((body) => JSON.stringify(body)) },
		{ weight: 1, arbitrary: fc.constantFrom(...fields).map((field) => `{"${field}":1e999}`) },
		{ weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 200 }) },
		{ weight: 1, arbitrary: fc.jsonValue().map((value) => JSON.stringify(value)) },
	);

function post(path: string, text: string, headers: Record<string, string>) {
	return call(path, { method: "POST", ip: uniqueIp(), headers, body: text });
}

/** Every string in a stored value, with where it is. */
function* strings(value: unknown, path = "$"): Generator<[string, string]> {
	if (typeof value === "string") yield [path, value];
	else if (Array.isArray(value)) for (const [i, item] of value.entries()) yield* strings(item, `${path}[${i}]`);
	else if (value && typeof value === "object") {
		for (const [key, item] of Object.entries(value)) {
			yield [`${path} key`, key];
			yield* strings(item, `${path}.${key}`);
		}
	}
}

function expectWellFormed(expect: ExpectStatic, value: unknown) {
	for (const [path, text] of strings(value)) expect(text.isWellFormed(), path).toBe(true);
}

/** Every event the key stored is well-formed, within the message limit, and free of the key. */
async function expectStoredLogEvents(expect: ExpectStatic, keyId: string, rawKey: string) {
	await issueGrouper(keyId).flush();
	const { results } = await env.DB.prepare("select event from log_events where key_id = ?").bind(keyId).all<{ event: string }>();
	for (const { event } of results) {
		const stored = JSON.parse(event);
		expectWellFormed(expect, stored);
		if (stored.message !== null) expect(stored.message.length).toBeLessThanOrEqual(LOG_LIMITS.message);
		expect(JSON.stringify(stored)).not.toContain(rawKey);
	}
}

describe("property: every ingestion endpoint answers a documented status to any request", () => {
	it("feedback", async ({ expect }) => {
		// Two keys at their ceiling, so most requests get past the key's window to the field rules.
		const owners = [await ownerWithKey(), await ownerWithKey()];
		for (const o of owners) await call("/api/feedback-key", { method: "PATCH", token: o.token, json: { project_name: o.projectName, rate_limit_per_minute: 600 } });
		let n = 0;
		await fc.assert(
			fc.asyncProperty(requestText(["type", "title", "description", "email", "screenshots"]), async (text) => {
				const owner = owners[n++ % 2];
				const res = await post("/functions/v1/submit-feedback", text, { authorization: `Bearer ${owner.rawKey}`, "content-type": "application/json" });
				const answer = await res.text();
				expect([200, 400, 413, 429]).toContain(res.status);
				expect(answer).not.toContain(owner.rawKey);
				if (res.status === 400) expect(Object.keys(JSON.parse(answer)).sort()).toEqual(["error", "fields"]);
			}),
			{ numRuns: RUNS },
		);
		for (const o of owners) {
			const { results } = await env.DB.prepare("select data from feedback where project_name = ?").bind(o.projectName).all<{ data: string }>();
			for (const { data } of results) {
				const stored = JSON.parse(data) as Record<string, unknown>;
				expectWellFormed(expect, stored);
				for (const [key, value] of Object.entries(stored)) {
					if (typeof value === "string") expect(value.length, key).toBeLessThanOrEqual(FEEDBACK_LIMITS.longText);
					if (typeof value === "number") expect(Number.isFinite(value), key).toBe(true);
				}
			}
		}
	}, 300_000);

	it("logs", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		await call("/api/feedback-key", { method: "PATCH", token: owner.token, json: { project_name: owner.projectName, logs_rate_limit_per_minute: 6_000 } });
		const fields = ["message", "level", "exception", "tags", "breadcrumbs", "request", "environment", "release", "platform", "timestamp", "user", "contexts", "fingerprint"];
		await fc.assert(
			fc.asyncProperty(requestText(fields), async (text) => {
				const res = await post("/api/app-logs-ingest", text, { "x-svc-key": owner.rawKey, "content-type": "application/json" });
				const answer = await res.text();
				expect([200, 400, 413]).toContain(res.status);
				expect(answer).not.toContain(owner.rawKey);
			}),
			{ numRuns: RUNS },
		);
		await expectStoredLogEvents(expect, owner.keyId, owner.rawKey);
	}, 300_000);

	it("Sentry envelopes", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const created = await call("/api/feedback-key/regenerate", { method: "POST", token: owner.token, json: { project_name: owner.projectName } }).then((r) =>
			r.json<{ raw_api_key: string; dsn: string }>(),
		);
		await call("/api/feedback-key", { method: "PATCH", token: owner.token, json: { project_name: owner.projectName, logs_rate_limit_per_minute: 6_000 } });
		const fields = ["event_id", "message", "logentry", "level", "exception", "stacktrace", "breadcrumbs", "tags", "user", "request", "contexts", "sdk", "timestamp", "platform", "fingerprint"];
		const item = fc.tuple(fc.constantFrom("event", "session", "transaction", "attachment", "client_report", "", "x"), requestText(fields), fc.boolean());
		// A header line, then items with or without their byte length: well-formed or not in every way.
		const envelope = fc
			.tuple(fc.oneof(bodyWith(["event_id", "dsn", "sent_at", "sdk"]).map((header) => JSON.stringify(header)), nastyString), fc.array(item, { maxLength: 3 }))
			.map(([header, items]) =>
				[header, ...items.flatMap(([type, payload, withLength]) => [JSON.stringify(withLength ? { type, length: new TextEncoder().encode(payload).length } : { type }), payload])].join("\n"),
			);
		const path = `/api/${created.dsn.split("/").pop()}/envelope/?sentry_key=${created.raw_api_key}`;
		await fc.assert(
			fc.asyncProperty(envelope, async (text) => {
				const res = await post(path, text, { "content-type": "text/plain" });
				const answer = await res.text();
				expect([200, 400, 413]).toContain(res.status);
				expect(answer).not.toContain(created.raw_api_key);
			}),
			{ numRuns: RUNS },
		);
		await expectStoredLogEvents(expect, owner.keyId, created.raw_api_key);
	}, 300_000);

	it("browser analytics", async ({ expect }) => {
		const { site } = await ownerWithSite();
		const fields = ["tracking_id", "event_id", "seq", "v", "event_name", "event_data", "url_path", "url_query", "url_host", "referrer", "title", "language", "screen", "distinct_id", "visitor_id", "session_id", "duration"];
		await fc.assert(
			fc.asyncProperty(requestText(fields), fc.boolean(), async (text, withOwnId) => {
				// Half the bodies carry the real tracking ID, so they reach the site's own rules.
				const body = withOwnId && text.startsWith("{") ? text.replace(/^\{/, `{"tracking_id":"${site.tracking_id}",`) : text;
				const res = await post("/api/collect", body, { "content-type": "text/plain" });
				expect([204, 400, 403, 404, 413, 429]).toContain(res.status);
			}),
			{ numRuns: RUNS },
		);
		await flushSite(site.tracking_id);
		const { results } = await env.DB.prepare("select * from analytics_events where tracking_id = ?").bind(site.tracking_id).all<Record<string, unknown>>();
		const caps: Record<string, number> = {
			name: COLLECT_LIMITS.eventName,
			data: COLLECT_LIMITS.eventData,
			url_path: COLLECT_LIMITS.urlPart,
			url_query: COLLECT_LIMITS.urlPart,
			url_host: COLLECT_LIMITS.host,
			title: COLLECT_LIMITS.title,
			language: COLLECT_LIMITS.short,
			screen: COLLECT_LIMITS.short,
			distinct_id: COLLECT_LIMITS.identity,
			session_id: COLLECT_LIMITS.identity,
		};
		for (const row of results) {
			expectWellFormed(expect, row);
			for (const [column, cap] of Object.entries(caps)) {
				if (typeof row[column] === "string") expect((row[column] as string).length, column).toBeLessThanOrEqual(cap);
			}
			if (row.duration !== null) expect(row.duration).toBeLessThanOrEqual(COLLECT_LIMITS.durationMax);
		}
	}, 300_000);

	it("crawler telemetry", async ({ expect }) => {
		const { site } = await ownerWithSite();
		await fc.assert(
			fc.asyncProperty(requestText(["tracking_id", "url_path", "url_host", "ua", "country", "status", "ip"]), fc.boolean(), async (text, known) => {
				const withSite = text.startsWith("{") ? text.replace(/^\{/, `{"tracking_id":"${site.tracking_id}",${known ? '"ua":"GPTBot/1.2",' : ""}`) : text;
				const res = await post("/api/bot-crawl-ingest", withSite, { "content-type": "application/json" });
				expect([204, 400, 403, 404, 413, 429]).toContain(res.status);
			}),
			{ numRuns: RUNS },
		);
		await flushSite(site.tracking_id);
		const { results } = await env.DB.prepare("select * from crawler_visits where tracking_id = ?").bind(site.tracking_id).all<Record<string, unknown>>();
		for (const row of results) {
			expectWellFormed(expect, row);
			expect((row.url_path as string).length).toBeLessThanOrEqual(CRAWL_LIMITS.urlPath);
			expect((row.ua as string).length).toBeLessThanOrEqual(CRAWL_LIMITS.userAgent);
			expect(row.status).toBeGreaterThanOrEqual(100);
			expect(row.status).toBeLessThanOrEqual(599);
		}
	}, 300_000);
});

describe("property: owner mutations answer a documented status to any body", () => {
	it("key configuration, sites and feedback status", async ({ expect }) => {
		const owner = await ownerWithKey();
		const { site } = await ownerWithSite();
		const siteOwner = await call(`/api/sites/${site.tracking_id}`, { token: owner.token });
		expect(siteOwner.status).toBe(404);
		const mutations = [
			{ method: "PATCH", path: "/api/feedback-key", fields: ["project_name", "issue_field_config", "feature_field_config", "rate_limit_per_minute", "logs_rate_limit_per_minute", "logs_enabled", "filter_browser_extensions"] },
			{ method: "POST", path: "/api/feedback-key", fields: ["project_name"] },
			{ method: "POST", path: "/api/sites", fields: ["domain", "name"] },
			{ method: "PATCH", path: "/api/feedback", fields: ["status", "ids"] },
			{ method: "DELETE", path: "/api/feedback", fields: ["ids"] },
		];
		await fc.assert(
			fc.asyncProperty(fc.constantFrom(...mutations), fc.boolean(), fc.integer({ min: 0, max: 1 << 30 }), async (mutation, ownProject, seed) => {
				const text = fc.sample(requestText(mutation.fields), { seed, numRuns: 1 })[0];
				const body = ownProject && text.startsWith("{") ? text.replace(/^\{/, `{"project_name":${JSON.stringify(owner.projectName)},`) : text;
				const res = await call(mutation.path, { method: mutation.method, token: owner.token, headers: { "content-type": "application/json" }, body });
				expect([200, 201, 400, 403, 404, 409, 413, 429], `${mutation.method} ${mutation.path} ${body.slice(0, 200)}`).toContain(res.status);
				const answer = await res.text();
				expect(answer).not.toContain(owner.token);
			}),
			{ numRuns: RUNS },
		);
		// Whatever was accepted is still a configuration the submission path can use.
		const key = await call(`/api/feedback-key?project_name=${encodeURIComponent(owner.projectName)}`, { token: owner.token }).then((r) => r.json<any>());
		expectWellFormed(expect, key);
		expect(key.rate_limit_per_minute).toBeLessThanOrEqual(600);
		const { sites } = await call("/api/sites", { token: owner.token }).then((r) => r.json<any>());
		expect(sites.length).toBeLessThanOrEqual(50);
		expectWellFormed(expect, sites);
	}, 300_000);
});
