import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { grouperStorageText, ingest, ingestOk, listIssues, ownerWithLogKey, storedEvents } from "./logHelpers";

/** The field rules of a log event, each at its boundary and one past it, and bad input of any shape. */

type Json = Record<string, any>;

/** Sends one event and returns it as stored in D1 (an owner read moves it there first). */
async function storedAfter(body: unknown): Promise<Json> {
	const owner = await ownerWithLogKey();
	const res = await ingest(owner.rawKey, body);
	if (res.status !== 200) throw new Error(`ingest failed: ${res.status} ${await res.text()}`);
	await listIssues(owner.token, { project_name: owner.projectName });
	const events = await storedEvents(owner.keyId);
	if (events.length !== 1) throw new Error(`expected one stored event, found ${events.length}`);
	return events[0];
}

describe("log event field rules, at each boundary", () => {
	it.for([8_192, 8_193])("message of %d characters is stored up to 8,192", async (length, { expect }) => {
		const { event } = await storedAfter({ message: "m".repeat(length) });
		expect(event.message).toHaveLength(8_192);
	});

	it.for([8_192, 8_193])("message_template of %d characters is stored up to 8,192", async (length, { expect }) => {
		const { event } = await storedAfter({ message: "filled in", message_template: "t".repeat(length) });
		expect(event.message_template).toHaveLength(8_192);
	});

	it.for([
		[{ message: "Import of 12 rows", message_template: "Import of %s rows" }, "Import of 12 rows", "Import of %s rows"],
		[{ message_template: "Import of %s rows" }, "Import of %s rows", undefined],
		[{ message: " ", message_template: "Import of %s rows" }, "Import of %s rows", undefined],
		[{ message: "same", message_template: "same" }, "same", undefined],
		[{ message: "m", message_template: "   " }, "m", undefined],
	] as const)("%j is stored as message %s, template %s", async ([body, message, template], { expect }) => {
		const { event } = await storedAfter(body);
		expect(event.message).toBe(message);
		expect(event.message_template).toBe(template);
	});

	it("a message_template that is not text is a 400", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const res = await ingest(owner.rawKey, { message: "m", message_template: 5 });
		expect(res.status).toBe(400);
		expect((await res.json<Json>()).error).toMatch(/message_template/);
	});

	it.for([8_192, 8_193])("exception value of %d characters is stored up to 8,192", async (length, { expect }) => {
		const { event } = await storedAfter({ exception: { type: "Error", value: "v".repeat(length) } });
		expect(event.exception.value).toHaveLength(8_192);
		expect(event.exception.type).toBe("Error");
	});

	it("a stack deeper than 200 frames keeps its crash-side culprit", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const frames = Array.from({ length: 250 }, (_, i) => ({ filename: `lib/f${i}.js`, function: `fn${i}`, in_app: false }));
		frames[249] = { filename: "src/checkout.ts", function: "submitOrder", in_app: true };
		await ingestOk(owner.rawKey, { exception: { type: "TypeError", value: "boom", stacktrace: { frames } } });
		const { issues } = await (await listIssues(owner.token, { project_name: owner.projectName })).json<Json>();
		expect(issues[0].culprit).toBe("submitOrder (src/checkout.ts)");
	});

	it.for([200, 201])("%d frames: the 200 nearest the crash stored, in the order sent", async (count, { expect }) => {
		const frames = Array.from({ length: count }, (_, i) => ({ filename: `src/f${i}.ts`, function: `fn${i}`, lineno: i + 1, colno: 1, in_app: true }));
		const { event } = await storedAfter({ exception: { type: "Error", value: "deep", stacktrace: { frames } } });
		expect(event.exception.stacktrace.frames).toHaveLength(200);
		expect(event.exception.stacktrace.frames.map((f: Json) => f.function)).toEqual(frames.slice(-200).map((f) => f.function));
		expect(event.exception.stacktrace.frames.at(-1)).toEqual(frames.at(-1));
	});

	it.for([5, 6])("%d lines of context each side: the 5 nearest the frame's line kept, each cut to 200 characters", async (count, { expect }) => {
		const lines = (side: string) => Array.from({ length: count }, (_, i) => `${side}${i}`.padEnd(201, "."));
		const frame = { filename: "src/a.ts", function: "f", lineno: 9, context_line: "throw err;", pre_context: lines("pre"), post_context: lines("post") };
		const { event } = await storedAfter({ exception: { type: "Error", value: "v", stacktrace: { frames: [frame] } } });
		const stored = event.exception.stacktrace.frames[0];
		expect(stored.pre_context).toEqual(lines("pre").slice(-5).map((line) => line.slice(0, 200)));
		expect(stored.post_context).toEqual(lines("post").slice(0, 5).map((line) => line.slice(0, 200)));
		expect(stored.context_line).toBe("throw err;");
	});

	it.for([50, 51])("%d frames with context: the 50 nearest the crash keep it", async (count, { expect }) => {
		const frames = Array.from({ length: count }, (_, i) => ({ function: `fn${i}`, context_line: `line ${i}`, pre_context: [`before ${i}`, 7, null], post_context: [`after ${i}`] }));
		const { event } = await storedAfter({ exception: { type: "Error", value: "v", stacktrace: { frames } } });
		const stored = event.exception.stacktrace.frames;
		expect(stored.filter((f: Json) => f.pre_context).length).toBe(50);
		expect(stored.at(-1)).toEqual({ function: `fn${count - 1}`, context_line: `line ${count - 1}`, pre_context: [`before ${count - 1}`], post_context: [`after ${count - 1}`] });
		expect(stored[0].pre_context).toEqual(count === 50 ? ["before 0"] : undefined);
		// Without its own line a frame keeps no lines around it.
		const lone = await storedAfter({ exception: { type: "Error", value: "v", stacktrace: { frames: [{ function: "f", pre_context: ["a"], post_context: ["b"] }] } } });
		expect(lone.event.exception.stacktrace.frames[0]).toEqual({ function: "f" });
	});

	it.for([100, 101])("%d breadcrumbs: the newest 100 are kept", async (count, { expect }) => {
		const breadcrumbs = Array.from({ length: count }, (_, i) => ({ timestamp: `2024-01-01T00:00:${String(i % 60).padStart(2, "0")}Z`, category: "ui", message: `crumb ${i}`, level: "info", data: { i } }));
		const { event } = await storedAfter({ message: "m", breadcrumbs });
		expect(event.breadcrumbs).toHaveLength(100);
		expect(event.breadcrumbs.at(-1)).toEqual(breadcrumbs.at(-1));
		expect(event.breadcrumbs[0].message).toBe(`crumb ${count - 100}`);
	});

	it.for([50, 51])("%d tags: the first 50 are kept", async (count, { expect }) => {
		const tags = Object.fromEntries(Array.from({ length: count }, (_, i) => [`tag${i}`, `value ${i}`]));
		const { event } = await storedAfter({ message: "m", tags });
		expect(Object.keys(event.tags)).toEqual(Object.keys(tags).slice(0, 50));
	});

	it.for([500, 501])("tag value of %d characters is capped at 500", async (length, { expect }) => {
		const { event } = await storedAfter({ message: "m", tags: { long: "t".repeat(length) } });
		expect(event.tags.long).toHaveLength(500);
	});

	it.for([
		[65_535, "65535"],
		[65_536, "65535"],
		["70000", "65535"],
		[0, "0"],
		[-1, "0"],
		["404", "404"],
		["503.7", "503"],
		["not a number", "not a number"],
	] as const)("status_code tag %j is stored as %s", async ([value, expected], { expect }) => {
		const { event } = await storedAfter({ message: "m", tags: { status_code: value } });
		expect(event.tags.status_code).toBe(expected);
	});

	it("top-level environment and release win over tags; tags are the fallback", async ({ expect }) => {
		const top = await storedAfter({ message: "m", environment: "production", release: "2.0.0", tags: { environment: "staging", release: "1.0.0" } });
		expect([top.event.environment, top.event.release, top.environment, top.release]).toEqual(["production", "2.0.0", "production", "2.0.0"]);
		const fallback = await storedAfter({ message: "m", tags: { environment: "staging", release: "1.0.0" } });
		expect([fallback.event.environment, fallback.event.release]).toEqual(["staging", "1.0.0"]);
	});

	it("sdk_name and sdk_version tags populate the SDK, with platform as fallback name", async ({ expect }) => {
		const tagged = await storedAfter({ message: "m", platform: "node", tags: { sdk_name: "@svcapp/logger", sdk_version: "1.2.3" } });
		expect(tagged.event.sdk).toEqual({ name: "@svcapp/logger", version: "1.2.3" });
		expect(tagged.event.platform).toBe("node");
		const fallback = await storedAfter({ message: "m", platform: "javascript" });
		expect(fallback.event.sdk).toEqual({ name: "javascript", version: null });
	});

	it.for([4_096, 4_097])("request body of %d characters: 4,096 kept, then marked truncated", async (length, { expect }) => {
		const { event } = await storedAfter({ message: "m", request: { url: "https://x.example/a", method: "POST", body: "b".repeat(length) } });
		expect(event.request.body).toHaveLength(4_096);
		expect(event.request.body_truncated).toBe(length > 4_096 ? true : undefined);
		expect(event.request).toMatchObject({ url: "https://x.example/a", method: "POST" });
	});

	it("a non-string request body is stored as its JSON text", async ({ expect }) => {
		const { event } = await storedAfter({ message: "m", request: { body: { a: 1, b: [true, null] } } });
		expect(event.request.body).toBe('{"a":1,"b":[true,null]}');
	});

	it.for([500, 501])("header value of %d characters is capped at 500", async (length, { expect }) => {
		const { event } = await storedAfter({ message: "m", request: { headers: { "User-Agent": "u".repeat(length) } } });
		expect(event.request.headers["User-Agent"]).toHaveLength(500);
	});

	it.for(["id", "email", "username"])("user %s is capped at 500 characters", async (field, { expect }) => {
		const at = await storedAfter({ message: "m", user: { [field]: "u".repeat(500) } });
		expect(at.event.user[field]).toHaveLength(500);
		const past = await storedAfter({ message: "m", user: { [field]: "u".repeat(501), ip_address: "10.1.2.3" } });
		expect(past.event.user[field]).toHaveLength(500);
		expect(past.event.user.ip_address).toBe("10.1.2.3");
	});

	it("a numeric user id is stored as text", async ({ expect }) => {
		const { event } = await storedAfter({ message: "m", user: { id: 8812 } });
		expect(event.user).toEqual({ id: "8812" });
	});

	it("a valid ISO 8601 timestamp is kept; one older than 30 days counts when it came", async ({ expect }) => {
		const stored = await storedAfter({ message: "m", timestamp: "2024-02-29T12:34:56.789+01:00" });
		expect(stored.event.timestamp).toBe("2024-02-29T11:34:56.789Z");
		expect(stored.timestamp).toBe(stored.received_at);
	});

	it("a valid ISO 8601 timestamp of last week is kept, and the event counts then", async ({ expect }) => {
		const lastWeek = new Date(Date.now() - 7 * 86_400_000);
		lastWeek.setUTCMilliseconds(789);
		// The same instant written at UTC+01:00.
		const written = `${new Date(lastWeek.getTime() + 3_600_000).toISOString().slice(0, -1)}+01:00`;
		const stored = await storedAfter({ message: "m", timestamp: written });
		expect(stored.event.timestamp).toBe(lastWeek.toISOString());
		expect(stored.timestamp).toBe(lastWeek.getTime());
	});

	it.for([
		["absent", undefined],
		["not a date", "yesterday"],
		["an impossible date", "2024-13-45T99:00:00Z"],
		["a number", 1_700_000_000],
		["an object", { at: "now" }],
	] as const)("a timestamp that is %s means the time it was received", async ([, timestamp], { expect }) => {
		const stored = await storedAfter({ message: "m", ...(timestamp === undefined ? {} : { timestamp }) });
		expect(stored.timestamp).toBe(stored.received_at);
		expect(stored.event.timestamp).toBe(new Date(stored.received_at).toISOString());
	});

	it.for([
		["absent", undefined, "error"],
		["empty", "", "error"],
		["a known level", "warning", "warning"],
		["any other string", "critical", "critical"],
	] as const)("level %s is stored as %s", async ([, level, expected], { expect }) => {
		const stored = await storedAfter({ message: "m", ...(level === undefined ? {} : { level }) });
		expect(stored.event.level).toBe(expected);
		expect(stored.level).toBe(expected);
	});

	it("keeps the browser, os, device and runtime contexts, drops others", async ({ expect }) => {
		const contexts = {
			browser: { name: "Chrome", version: "126.0" },
			os: { name: "macOS", version: "14.5" },
			device: { family: "Mac", model: "MacBookPro18,3" },
			runtime: { name: "node", version: "22.3.0" },
			secrets: { token: "do-not-store" },
			app: "also dropped",
		};
		const { event } = await storedAfter({ message: "m", contexts });
		expect(event.contexts).toEqual({ browser: contexts.browser, os: contexts.os, device: contexts.device, runtime: contexts.runtime });
	});

	it("removes the seven sensitive headers, in any case, before anything is stored", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const secrets = {
			Authorization: "Bearer secret-authorization-1",
			COOKIE: "session=secret-cookie-2",
			"Set-Cookie": "id=secret-set-cookie-3",
			"x-SVC-key": "secret-svc-key-4",
			"X-Api-Key": "secret-api-key-5",
			"x-auth-token": "secret-auth-token-6",
			"Proxy-Authorization": "Basic secret-proxy-7",
		};
		const res = await ingest(owner.rawKey, {
			message: "with headers",
			request: { url: "https://x.example/", headers: { ...secrets, Accept: "text/html", "X-Request-Id": "r-1" } },
		});
		expect(res.status).toBe(200);

		// In the ProjectCollector before it moves anything...
		const inGrouper = await grouperStorageText(owner.keyId);
		expect(inGrouper).toContain("X-Request-Id");
		for (const secret of Object.values(secrets)) expect(inGrouper).not.toContain(secret.split(" ").pop()!);

		// ...and in D1 after.
		await listIssues(owner.token, { project_name: owner.projectName });
		const [stored] = await storedEvents(owner.keyId);
		expect(stored.event.request.headers).toEqual({ Accept: "text/html", "X-Request-Id": "r-1" });
		const rows = await env.DB.prepare("select * from log_events where key_id = ?").bind(owner.keyId).all();
		const issues = await env.DB.prepare("select * from log_issues where key_id = ?").bind(owner.keyId).all();
		for (const secret of Object.values(secrets)) {
			expect(JSON.stringify([rows.results, issues.results])).not.toContain(secret.split(" ").pop()!);
		}
	});

	it("accepts headers as a list of pairs and drops sensitive ones there too", async ({ expect }) => {
		const { event } = await storedAfter({
			message: "m",
			request: { headers: [["Cookie", "a=secret"], ["Accept", "*/*"], ["bad pair"]] },
		});
		expect(event.request.headers).toEqual({ Accept: "*/*" });
	});
});

describe("bad input of any shape", () => {
	const deep = (depth: number): unknown => {
		let value: unknown = "bottom";
		for (let i = 0; i < depth; i++) value = i % 2 ? { nested: value } : [value, i];
		return value;
	};
	const deepArray = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

	it.for([
		["message as a number", { message: 5 }],
		["message as an object", { message: { text: "hi" } }],
		["message as an array", { message: ["hi"] }],
		["exception as a string", { exception: "boom" }],
		["exception as an array", { exception: [{ type: "E" }] }],
		["exception type as a number", { exception: { type: 5, value: "v" } }],
		["exception value as an object", { exception: { type: "E", value: { a: 1 } } }],
		["stacktrace as a string", { exception: { type: "E", stacktrace: "at x (y.js:1:1)" } }],
		["frames as an object", { exception: { type: "E", stacktrace: { frames: { 0: {} } } } }],
		["exception values holding strings", { exception: { values: ["E: boom"] } }],
		["tags as an array", { message: "m", tags: ["a", "b"] }],
		["tags as a string", { message: "m", tags: "a=b" }],
		["breadcrumbs as an object", { message: "m", breadcrumbs: { 0: { message: "x" } } }],
		["request as a string", { message: "m", request: "GET /" }],
		["request headers as a number", { message: "m", request: { headers: 5 } }],
		["request url as an object", { message: "m", request: { url: { href: "x" } } }],
		["user as a string", { message: "m", user: "bob" }],
		["user id as an object", { message: "m", user: { id: { value: 1 } } }],
		["contexts as an array", { message: "m", contexts: [{ browser: {} }] }],
		["fingerprint as a string", { message: "m", fingerprint: "{{ default }}" }],
		["level as a number", { message: "m", level: 40 }],
		["environment as an object", { message: "m", environment: { name: "prod" } }],
		["release as an array", { message: "m", release: ["1.0"] }],
		["platform as a boolean-ish object", { message: "m", platform: { os: "x" } }],
	])("%s → 400 and nothing stored", async ([, body], { expect }) => {
		const owner = await ownerWithLogKey();
		const res = await ingest(owner.rawKey, body);
		expect(res.status).toBe(400);
		const { error } = await res.json<Json>();
		expect(error).toMatch(/^Invalid log event: /);
		const { issues } = await listIssues(owner.token, { project_name: owner.projectName }).then((r) => r.json<Json>());
		expect(issues).toEqual([]);
		expect(await storedEvents(owner.keyId)).toEqual([]);
		expect(await grouperStorageText(owner.keyId)).not.toContain('"m"');
	});

	it("a body like form fields up to a space at its end is stored as sent, without scanning it for ever", async ({ expect }) => {
		const body = `a=1${"&bbbb".repeat(16)} x`;
		const { event } = await storedAfter({ message: "m", request: { body } });
		expect(event.request.body).toBe(body);
	});

	it("a deeply nested array body is a 400, not a crash", async ({ expect }) => {
		const { rawKey } = await ownerWithLogKey();
		const res = await ingest(rawKey, null, { raw: deepArray(100_000) });
		expect(res.status).toBe(400);
	});

	it.for([
		["deep nesting in breadcrumb data", { message: "m", breadcrumbs: [{ message: "b", data: deep(500) }] }],
		["deep nesting in a context", { message: "m", contexts: { browser: deep(500) } }],
		["deep nesting in a request body", { message: "m", request: { body: deep(500) } }],
		["odd frames among good ones", { exception: { type: "E", stacktrace: { frames: [null, 5, "x", [], { lineno: "12" }, { filename: "a.js", function: "f", in_app: "yes" }] } } }],
		["odd breadcrumbs and tags", { message: "m", breadcrumbs: [null, 1, "x", { message: { no: 1 } }], tags: { a: null, b: { c: 1 }, c: [1], d: 5, e: true } }],
		["unicode, emoji and lone surrogates", { message: "ünïcødé 🎉 \ud800 \udfff end", tags: { "ключ": "значение" } }],
		["__proto__ and constructor keys", JSON.parse('{"message":"m","tags":{"__proto__":"x","constructor":"y"},"contexts":{"browser":{"__proto__":{"polluted":true}}}}')],
		["huge and tiny numbers", { message: "m", tags: { status_code: 1e308, n: -1e-308 }, exception: { type: "E", stacktrace: { frames: [{ lineno: 1e308, colno: -5 }] } } }],
		["a Sentry-style exception list", { exception: { values: [{ type: "Inner", value: "cause" }, { type: "Outer", value: "wrapped" }] } }],
		["a message with only an empty exception", { message: "m", exception: {} }],
	])("%s → 200, stored in bounded form", async ([, body], { expect }) => {
		const owner = await ownerWithLogKey();
		const res = await ingest(owner.rawKey, body);
		expect(res.status).toBe(200);
		await listIssues(owner.token, { project_name: owner.projectName });
		const events = await storedEvents(owner.keyId);
		expect(events).toHaveLength(1);
		expect(JSON.stringify(events[0].event).length).toBeLessThan(200_000);
		expect(({} as Json).polluted).toBeUndefined();
	});

	it("stores the outer exception of a Sentry-style list", async ({ expect }) => {
		const { event } = await storedAfter({ exception: { values: [{ type: "Inner", value: "cause" }, { type: "Outer", value: "wrapped" }] } });
		expect(event.exception).toMatchObject({ type: "Outer", value: "wrapped" });
	});

	it("keeps the whole chain: causes in chained_exceptions, each with its mechanism", async ({ expect }) => {
		const { event } = await storedAfter({
			exception: {
				values: [
					{ type: "Inner", value: "cause", mechanism: { type: "chained", source: "cause", exception_id: 1, parent_id: 0, handled: "yes", extra: 1 } },
					{ type: "Outer", value: "wrapped", mechanism: { type: "generic", handled: true, exception_id: 0, is_exception_group: false } },
				],
			},
		});
		expect(event.chained_exceptions).toEqual([
			{ type: "Inner", value: "cause", stacktrace: null, mechanism: { type: "chained", source: "cause", exception_id: 1, parent_id: 0 } },
		]);
		expect(event.exception.mechanism).toEqual({ type: "generic", handled: true, exception_id: 0, is_exception_group: false });
	});

	it.for([50, 51])("a chain of %d exceptions keeps the reported one and the 49 nearest it", async (length, { expect }) => {
		const values = Array.from({ length }, (_, i) => ({ type: `E${i}`, value: "v", mechanism: { exception_id: length - 1 - i, parent_id: i === length - 1 ? undefined : length - 2 - i } }));
		const { event } = await storedAfter({ exception: { values } });
		expect(event.exception.type).toBe(`E${length - 1}`);
		expect(event.chained_exceptions).toHaveLength(49);
		expect(event.chained_exceptions[0].type).toBe(`E${length - 50}`);
	});

	it.for([200, 201])("a mechanism's type or source of %d characters is stored up to 200", async (length, { expect }) => {
		const { event } = await storedAfter({ exception: { type: "E", value: "v", mechanism: { type: "t".repeat(length), source: "s".repeat(length) } } });
		expect(event.exception.mechanism).toEqual({ type: "t".repeat(200), source: "s".repeat(200) });
	});

	it("a maximal event (200 long frames, 100 long breadcrumbs) reaches D1 whole", async ({ expect }) => {
		const frames = Array.from({ length: 200 }, (_, i) => ({ filename: `src/f${i}.ts`, function: `fn${i}`, context_line: "c".repeat(1000), in_app: true }));
		const breadcrumbs = Array.from({ length: 100 }, (_, i) => ({ message: `${i}`.padEnd(2000, "b") }));
		const raw = JSON.stringify({ exception: { type: "E", value: "v".repeat(8192), stacktrace: { frames } }, breadcrumbs });
		expect(raw.length).toBeLessThanOrEqual(512_000);
		const { event } = await storedAfter(JSON.parse(raw));
		expect(event.exception.stacktrace.frames).toHaveLength(200);
		expect(event.breadcrumbs).toHaveLength(100);
	});
});

