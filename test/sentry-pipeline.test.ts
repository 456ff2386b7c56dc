// The store endpoint, and Sentry events once accepted: grouped, listed and read like any log event.
import { describe, it } from "vitest";
import { uniqueIp } from "./helpers";
import { ingestOk, issuesOf, readIssue, storedEvents } from "./logHelpers";
import { eventEnvelope, gzip, nodeEvent, post, query, type SentryProject, sendEnvelope, sentryProject } from "./sentryHelpers";

type Json = Record<string, any>;

describe("POST /api/:project_id/store/", () => {
	const storePath = (project: SentryProject) => `/api/${project.dsnId}/store/`;
	const auth = (project: SentryProject) => ({ "x-sentry-auth": `Sentry sentry_version=7, sentry_key=${project.rawKey}`, "content-type": "application/json" });

	it("200 {id} for one event as the body, also gzip-compressed", async ({ expect }) => {
		const project = await sentryProject();
		const event = nodeEvent();
		const res = await post(storePath(project), JSON.stringify(event), { headers: auth(project) });
		expect(res.status).toBe(200);
		expect(await res.json()).toEqual({ id: event.event_id });
		const compressed = await post(storePath(project), await gzip(JSON.stringify(nodeEvent())), { headers: { ...auth(project), "content-encoding": "gzip" } });
		expect(compressed.status).toBe(200);
		const [issue] = await issuesOf(project);
		expect(issue.count).toBe(2);
	});

	it("401 without a key, 401 for another project's id, 400 for a body that is not an event", async ({ expect }) => {
		const [project, other] = await Promise.all([sentryProject(), sentryProject()]);
		expect((await post(storePath(project), JSON.stringify(nodeEvent()))).status).toBe(401);
		expect((await post(storePath(other), JSON.stringify(nodeEvent()), { headers: auth(project) })).status).toBe(401);
		const notJson = await post(storePath(project), "{", { headers: auth(project) });
		expect(notJson.status).toBe(400);
		expect((await notJson.json<Json>()).error).toBe("Invalid event: the body is not valid JSON");
		const notObject = await post(storePath(project), "[1]", { headers: auth(project) });
		expect((await notObject.json<Json>()).error).toBe("Invalid event: the body must be a JSON object");
	});

	it("an envelope posted here, saying so by its Content-Type, is read as an envelope, as Sentry reads it", async ({ expect }) => {
		const project = await sentryProject();
		const event = nodeEvent();
		const headers = { ...auth(project), "content-type": "application/x-sentry-envelope" };
		const res = await post(storePath(project), eventEnvelope(event), { headers });
		expect(res.status).toBe(200);
		expect(await res.json()).toEqual({ id: event.event_id });
		expect((await issuesOf(project)).map((issue: Json) => issue.count)).toEqual([1]);
		// Without that type the same body is one event's JSON, which it is not.
		const untyped = await post(storePath(project), eventEnvelope(nodeEvent()), { headers: auth(project) });
		expect(untyped.status).toBe(400);
	});
});

describe("Sentry events in the log pipeline", () => {
	async function storedFrom(eventOverrides: Json, init: { ip?: string } = {}) {
		const project = await sentryProject();
		const res = await sendEnvelope(project, eventEnvelope(nodeEvent(eventOverrides)), init);
		if (res.status !== 200) throw new Error(`envelope failed: ${res.status} ${await res.text()}`);
		await issuesOf(project);
		const [stored] = await storedEvents(project.keyId);
		return stored.event as Json;
	}

	it("a message event: message text, a synthetic exception's type never counted", async ({ expect }) => {
		const project = await sentryProject();
		const message = (text: string, line: number) =>
			nodeEvent({
				level: "warning",
				message: text,
				exception: {
					values: [
						{
							value: text,
							stacktrace: { frames: [{ filename: "/srv/app/src/pay.js", module: "pay", function: "charge", lineno: line, in_app: true, context_line: "Sentry.captureMessage(\"payment declined for \" + id);" }] },
							mechanism: { type: "generic", handled: true, synthetic: true },
						},
					],
				},
			});
		for (const [text, line] of [["payment declined for 17", 9], ["payment declined for 23", 12]] as const) {
			expect((await sendEnvelope(project, eventEnvelope(message(text, line)))).status).toBe(200);
		}
		const issues = await issuesOf(project);
		expect(issues).toHaveLength(1);
		expect(issues[0]).toMatchObject({ title: "payment declined for 23", level: "warning", count: 2 });
	});

	it.for([
		["message as {formatted}", { message: { formatted: "disk 91% full", message: "disk %s full", params: ["91%"] } }, "disk 91% full", "disk %s full"],
		["logentry with formatted (sentry-python)", { logentry: { message: "disk %s full", params: ["91%"], formatted: "disk 91% full" } }, "disk 91% full", "disk %s full"],
		[
			"logentry with params only (Sentry.parameterize)",
			{ logentry: { message: "Import of %s rows failed for %s (100%%)", params: [12, "alice"] } },
			"Import of 12 rows failed for alice (100%)",
			"Import of %s rows failed for %s (100%%)",
		],
		["logentry with named params", { logentry: { message: "%(user)s left after %(n)d tries", params: { user: "ana", n: 3 } } }, "ana left after 3 tries", "%(user)s left after %(n)d tries"],
		["logentry with a placeholder short of a value", { logentry: { message: "%s and %s", params: ["one"] } }, "one and %s", "%s and %s"],
		["logentry without params", { logentry: { message: "cache warmed" } }, "cache warmed", undefined],
		["message as a string", { message: "disk %s full" }, "disk %s full", undefined],
		[
			"Python's conversions (sentry-python's logging)",
			{ platform: "python", logentry: { message: "got %r from %s: ratio %.2f, %5d|%-6s|%x|%05.1f|%e", params: ["weird'value", "api", 0.1234, 42, "ab", 255, 3.08, 123456] } },
			`got "weird'value" from api: ratio 0.12,    42|ab    |ff|003.1|1.234560e+05`,
			"got %r from %s: ratio %.2f, %5d|%-6s|%x|%05.1f|%e",
		],
		[
			"Python's values: None, booleans, lists and dicts as Python prints them",
			{ platform: "python", logentry: { message: "%s %s %s %r", params: [null, true, [1, 2, "x"], { a: null }] } },
			"None True [1, 2, 'x'] {'a': None}",
			"%s %s %s %r",
		],
		[
			"JavaScript's placeholders only, in a JavaScript event",
			{ logentry: { message: "%s took %d ms (50% over, %.2f, %x)", params: ["load", 912, 1.5, 255] } },
			"load took 912 ms (50% over, %.2f, %x)",
			"%s took %d ms (50% over, %.2f, %x)",
		],
	] as const)("%s: the message filled in, the template kept", async ([, overrides, message, template], { expect }) => {
		const stored = await storedFrom({ exception: undefined, ...overrides });
		expect(stored.message).toBe(message);
		expect(stored.message_template).toBe(template);
	});

	it.for([
		["log", "info"],
		["warning", "warning"],
		["warn", "warning"],
		["critical", "fatal"],
		["Critical", "Critical"],
	])("level %s is stored as %s", async ([level, stored], { expect }) => {
		expect((await storedFrom({ exception: undefined, message: "m", level })).level).toBe(stored);
	});

	it("a level that is Python logging's number is read as Relay reads it; any other number or type is dropped, not refused", async ({ expect }) => {
		const project = await sentryProject();
		// [level sent, level stored]: an unknown number keeps the event at the default level, error.
		const cases: [unknown, string][] = [
			["notice", "notice"],
			[10, "debug"],
			[20, "info"],
			[30, "warning"],
			[40, "error"],
			[50, "fatal"],
			...[0, 9, 11, 39, 41, 49, 51, 60, -40, 40.5, true, {}, [40], "", null].map((level): [unknown, string] => [level, "error"]),
		];
		for (const [i, [level]] of cases.entries()) {
			const res = await sendEnvelope(project, eventEnvelope(nodeEvent({ exception: undefined, message: `level ${i}`, level })));
			expect(res.status, `level ${JSON.stringify(level)}: ${await res.clone().text()}`).toBe(200);
		}
		await issuesOf(project);
		const stored = new Map((await storedEvents(project.keyId)).map((row) => [(row.event as Json).message, (row.event as Json).level]));
		expect(cases.map(([level], i) => [level, stored.get(`level ${i}`)])).toEqual(cases);
		// The store endpoint reads it the same way.
		const res = await post(`/api/${project.dsnId}/store/${query(project)}`, JSON.stringify(nodeEvent({ exception: undefined, message: "from store", level: 50 })));
		expect(res.status).toBe(200);
		await issuesOf(project);
		expect((await storedEvents(project.keyId)).find((row) => (row.event as Json).message === "from store")?.level).toBe("fatal");
	});

	it("messages of one template are one issue whatever filled it, titled as the latest was filled", async ({ expect }) => {
		const project = await sentryProject();
		const login = (user: string, host: string) =>
			nodeEvent({
				exception: undefined,
				platform: "python",
				logentry: { message: "Login failed for user %s from %s", params: [user, host], formatted: `Login failed for user ${user} from ${host}` },
			});
		for (const [user, host] of [["bob", "host-1"], ["alice", "host-2"]]) {
			expect((await sendEnvelope(project, eventEnvelope(login(user, host)))).status).toBe(200);
		}
		const issues = await issuesOf(project);
		expect(issues).toHaveLength(1);
		expect(issues[0]).toMatchObject({ title: "Login failed for user alice from host-2", count: 2 });
	});

	it("exceptions as a plain list (Sentry's shorthand for {values}) are the chain, the reported one last", async ({ expect }) => {
		const project = await sentryProject();
		const frames = [{ filename: "/srv/app/src/orders.js", function: "loadOrders", in_app: true }];
		const list = [
			{ type: "Error", value: "db down", mechanism: { type: "chained", source: "cause", exception_id: 1, parent_id: 0 } },
			{ type: "Error", value: "load failed", stacktrace: { frames }, mechanism: { type: "generic", exception_id: 0 } },
		];
		expect((await sendEnvelope(project, eventEnvelope(nodeEvent({ exception: list })))).status).toBe(200);
		// The same chain as {values}: one issue.
		expect((await sendEnvelope(project, eventEnvelope(nodeEvent({ exception: { values: list } })))).status).toBe(200);
		const issues = await issuesOf(project);
		expect(issues).toHaveLength(1);
		expect(issues[0]).toMatchObject({ title: "Error: load failed", count: 2 });
		const [stored] = await storedEvents(project.keyId);
		expect(stored.event.exception).toMatchObject({ type: "Error", value: "load failed", stacktrace: { frames } });
		expect(stored.event.chained_exceptions).toEqual([{ type: "Error", value: "db down", stacktrace: null, mechanism: { type: "chained", source: "cause", exception_id: 1, parent_id: 0 } }]);
	});

	it.for([
		["an object, in {values}", { values: [{ type: "ApiError", value: { code: 7, detail: "quota" } }] }, '{"code":7,"detail":"quota"}'],
		["a list, in a plain list", [{ type: "ApiError", value: ["quota", 7] }], '["quota",7]'],
		["an object, in a lone exception", { type: "ApiError", value: { code: 7 } }, '{"code":7}'],
		["a number", { values: [{ type: "ApiError", value: 42 }] }, "42"],
	] as const)("an exception value that is not text is stored as its JSON: %s", async ([, exception, value], { expect }) => {
		const stored = await storedFrom({ exception });
		expect(stored.exception).toMatchObject({ type: "ApiError", value });
	});

	it("a top-level stacktrace with a message becomes a synthetic exception", async ({ expect }) => {
		const event = await storedFrom({ exception: undefined, message: "cache miss", stacktrace: { frames: [{ filename: "app.py", function: "get", in_app: true }] } });
		expect(event.exception).toMatchObject({ type: null, value: "cache miss", mechanism: { synthetic: true } });
	});

	it("a message's stack sent in threads (sentry-python's attach_stacktrace): the capturing thread's, as a synthetic exception", async ({ expect }) => {
		const frames = [
			{ filename: "more.py", module: "__main__", function: "<module>", lineno: 30, in_app: true, context_line: "report()" },
			{ filename: "more.py", module: "__main__", function: "report", lineno: 12, in_app: true, context_line: 'sentry_sdk.capture_message("Cache miss ratio high")' },
		];
		const other = { id: 2, name: "worker", current: false, stacktrace: { frames: [{ filename: "pool.py", function: "run", in_app: true }] } };
		const event = await storedFrom({
			exception: undefined,
			platform: "python",
			message: "Cache miss ratio high",
			threads: { values: [other, { id: 1, name: "MainThread", current: true, crashed: false, stacktrace: { frames } }] },
		});
		expect(event.exception).toMatchObject({ type: null, value: "Cache miss ratio high", mechanism: { synthetic: true } });
		expect((event.exception as { stacktrace: { frames: unknown[] } }).stacktrace.frames).toMatchObject(frames);
		// Without a current or crashed thread among several, no stack is guessed.
		const unsure = await storedFrom({ exception: undefined, message: "m", threads: { values: [other, { ...other, id: 3 }] } });
		expect(unsure.exception).toBeNull();
	});

	it("tags as pairs, breadcrumbs as {values}, request data, cookies and secrets scrubbed, user {{auto}}", async ({ expect }) => {
		const ip = uniqueIp();
		const event = await storedFrom(
			{
				tags: [
					["route", "/checkout"],
					["region", "eu"],
				],
				breadcrumbs: { values: [{ timestamp: 1, category: "http", data: { url: "/api/cart", status_code: 500 } }] },
				request: {
					url: "https://shop.example.com/checkout",
					method: "POST",
					data: { card: "tok_123" },
					cookies: { session: "secret-cookie" },
					env: { REMOTE_ADDR: "10.0.0.1" },
					headers: { Authorization: "Bearer secret-token", "User-Agent": "Mozilla/5.0" },
				},
				user: { id: "u7", ip_address: "{{auto}}" },
			},
			{ ip },
		);
		expect(event.tags).toMatchObject({ route: "/checkout", region: "eu" });
		expect(event.breadcrumbs).toEqual([{ timestamp: 1, category: "http", data: { url: "/api/cart", status_code: 500 } }]);
		expect(event.request).toEqual({ url: "https://shop.example.com/checkout", method: "POST", body: '{"card":"tok_123"}', headers: { "User-Agent": "Mozilla/5.0" } });
		expect(JSON.stringify(event)).not.toMatch(/secret-cookie|secret-token|REMOTE_ADDR/);
		expect(event.user).toEqual({ id: "u7", ip_address: ip });
	});

	it("the project key a traced page passes to its server in baggage (sentry-public_key, the DSN's key) is filtered, as the key's own headers are removed", async ({ expect }) => {
		const project = await sentryProject();
		// What @sentry/node records of a request from a page traced by @sentry/browser with the same DSN.
		const baggage = `sentry-environment=production,sentry-public_key=${project.rawKey},sentry-trace_id=${"a".repeat(32)}, api_token=t-1;ttl=5, plan=pro`;
		const res = await sendEnvelope(project, eventEnvelope(nodeEvent({ request: { url: "https://shop.example/api/pay", headers: { Baggage: baggage, "sentry-trace": `${"a".repeat(32)}-${"b".repeat(16)}-1` } } })));
		expect(res.status).toBe(200);
		await issuesOf(project);
		const [stored] = await storedEvents(project.keyId);
		expect((stored.event as Json).request.headers).toEqual({
			Baggage: `sentry-environment=production,sentry-public_key=[Filtered],sentry-trace_id=${"a".repeat(32)}, api_token=[Filtered];ttl=5, plan=pro`,
			"sentry-trace": `${"a".repeat(32)}-${"b".repeat(16)}-1`,
		});
		expect(JSON.stringify(stored.event)).not.toContain(project.rawKey);
	});

	const ANDROID_CHROME = "Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.135 Mobile Safari/537.36";

	it("the browser, OS and device the request's User-Agent names fill the contexts a browser SDK leaves to Relay", async ({ expect }) => {
		const fromBrowser = await storedFrom({ platform: "javascript", contexts: undefined, request: { url: "https://shop.example/", headers: { "user-agent": ANDROID_CHROME } } });
		expect(fromBrowser.contexts).toEqual({
			browser: { name: "Chrome", version: "131.0.6778" },
			os: { name: "Android", version: "14" },
			device: { family: "SM-S918B", model: "SM-S918B", brand: "Samsung" },
		});
		// Headers as pairs; the contexts the SDK sent win; a server's event keeps its own os and gets its client's as client_os.
		const fromServer = await storedFrom({
			platform: "node",
			contexts: { os: { name: "Debian" }, browser: { name: "Sent" } },
			request: { url: "https://shop.example/api", headers: [["User-Agent", "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0"]] },
		});
		expect(fromServer.contexts).toEqual({ os: { name: "Debian" }, browser: { name: "Sent" } });
		expect(fromServer.custom_contexts).toEqual({ client_os: { name: "Windows", version: "10" } });
		// A User-Agent that names nothing adds nothing.
		const bare = await storedFrom({ platform: "javascript", contexts: undefined, request: { headers: { "User-Agent": "Mozilla/5.0" } } });
		expect(bare.contexts).toEqual({});
	});

	it.for([
		["infer_ip auto (the JavaScript SDKs' sendDefaultPii), a user without an address", "auto", "javascript", { id: "u1" }, { id: "u1", ip_address: "IP" }],
		["infer_ip auto, no user at all", "auto", "javascript", undefined, { ip_address: "IP" }],
		["infer_ip auto, {{auto}}", "auto", "node", { id: "u1", ip_address: "{{auto}}" }, { id: "u1", ip_address: "IP" }],
		["infer_ip auto, an address the SDK sent", "auto", "javascript", { id: "u1", ip_address: "203.0.113.9" }, { id: "u1", ip_address: "203.0.113.9" }],
		["infer_ip never (their default), no address", "never", "javascript", { id: "u1" }, { id: "u1" }],
		["infer_ip never, {{auto}} dropped", "never", "javascript", { id: "u1", ip_address: "{{auto}}" }, { id: "u1" }],
		["an infer_ip Relay does not know counts as never", "sometimes", "javascript", { id: "u1" }, { id: "u1" }],
		["no infer_ip, a browser SDK's user without an address", undefined, "javascript", { id: "u1" }, { id: "u1", ip_address: "IP" }],
		["no infer_ip, a server SDK's user without an address", undefined, "node", { id: "u1" }, { id: "u1" }],
	] as const)("the user's address as Relay infers it: %s", async ([, inferIp, platform, user, expected], { expect }) => {
		const ip = uniqueIp();
		const sdk = { name: "sentry.javascript.browser", version: "11.12.0", ...(inferIp === undefined ? {} : { settings: { infer_ip: inferIp } }) };
		const event = await storedFrom({ sdk, platform, user }, { ip });
		expect(event.user).toEqual(JSON.parse(JSON.stringify(expected).replace('"IP"', JSON.stringify(ip))));
	});

	it.for([
		["a parsed body", { data: { username: "ann", password: "hunter2", nested: { apiKey: "k-1", author: "ann" } } }, '{"username":"ann","password":"[Filtered]","nested":{"apiKey":"[Filtered]","author":"ann"}}'],
		["a JSON body as text", { data: '{"user":"ann","Session-Id":"s-9"}' }, '{"user":"ann","Session-Id":"[Filtered]"}'],
		["a form body", { data: "user=ann&pass_word=hunter2&remember=1" }, "user=ann&pass_word=[Filtered]&remember=1"],
		["a body with no secret, kept as sent", { data: '{ "user": "ann" }' }, '{ "user": "ann" }'],
		["plain text", { data: "password=hunter2 was typed" }, "password=hunter2 was typed"],
	] as const)("secrets in the request are filtered before anything is stored: %s", async ([, request, body], { expect }) => {
		const event = await storedFrom({
			request: { url: "https://shop.example.com/login?next=%2F&access_token=t-1#top", query_string: "page=2&token=t-2", ...request },
			breadcrumbs: [{ category: "fetch", data: { url: "/api/me", secret: "s-3" } }],
		});
		expect(event.request).toMatchObject({ url: "https://shop.example.com/login?next=%2F&access_token=[Filtered]#top", query_string: "page=2&token=[Filtered]", body });
		expect(event.breadcrumbs).toEqual([{ category: "fetch", data: { url: "/api/me", secret: "[Filtered]" } }]);
		expect(JSON.stringify(event)).not.toMatch(/hunter2"|k-1|s-9|t-1|t-2|s-3/);
	});

	it("extra, contexts of the app's own and the logger's name are kept, secrets filtered; none of them, nothing stored", async ({ expect }) => {
		const event = await storedFrom({
			logger: "shop.checkout",
			extra: { orderId: 7, api_key: "k-9", sys_argv: ["manage.py", "runserver"] },
			contexts: { browser: { name: "Chrome", version: "131" }, order: { id: 9, total: 12.5 }, trace: { trace_id: "a".repeat(32) }, note: "not an object" },
		});
		expect(event.extra).toEqual({ orderId: 7, api_key: "[Filtered]", sys_argv: ["manage.py", "runserver"] });
		expect(event.contexts).toEqual({ browser: { name: "Chrome", version: "131" } });
		expect(event.custom_contexts).toEqual({ order: { id: 9, total: 12.5 }, trace: { trace_id: "a".repeat(32) } });
		expect(event.tags).toMatchObject({ logger: "shop.checkout" });
		const plain = await storedFrom({ extra: "not an object", contexts: { os: { name: "Linux" } } });
		expect(Object.keys(plain)).not.toContain("extra");
		expect(Object.keys(plain)).not.toContain("custom_contexts");
	});

	it("a context's kind is its type, as Sentry reads it: sentry-cli's runtime sent as rust is the runtime, unless one comes under its own key", async ({ expect }) => {
		const rust = { type: "runtime", name: "rustc", version: "1.83.0" };
		const fromCli = await storedFrom({ contexts: { rust, os: { name: "Linux" } } });
		expect(fromCli.contexts).toEqual({ runtime: rust, os: { name: "Linux" } });
		expect(Object.keys(fromCli)).not.toContain("custom_contexts");
		// Whichever comes first, the one under its own key is the runtime; the other stays the app's own.
		const both = await storedFrom({ contexts: { rust, runtime: { name: "node" }, node2: { type: "runtime", name: "deno" }, kind: { type: "order" } } });
		expect(both.contexts).toEqual({ runtime: { name: "node" } });
		expect(both.custom_contexts).toEqual({ rust, node2: { type: "runtime", name: "deno" }, kind: { type: "order" } });
	});

	it("frames' local variables (sentry-python's vars): the nearest 10 frames', 30 names each, values as text cut to 300, secrets filtered", async ({ expect }) => {
		const vars = (i: number) => ({ i, name: `'frame ${i}'`, password: "'hunter2'", items: [1, 2], long: "x".repeat(301), ...Object.fromEntries(Array.from({ length: 30 }, (_, j) => [`v${j}`, j])) });
		const frames = Array.from({ length: 11 }, (_, i) => ({ filename: "app.py", function: `f${i}`, lineno: i + 1, in_app: true, vars: vars(i) }));
		const event = await storedFrom({ platform: "python", exception: { values: [{ type: "ValueError", value: "bad", stacktrace: { frames } }] } });
		const stored = (event.exception as { stacktrace: { frames: Array<{ vars?: Record<string, string> }> } }).stacktrace.frames;
		expect(stored[0].vars).toBeUndefined();
		expect(stored[10].vars).toMatchObject({ i: "10", name: "'frame 10'", password: "[Filtered]", items: "[1,2]", long: "x".repeat(300) });
		expect(Object.keys(stored[10].vars ?? {})).toHaveLength(30);
		expect(stored.filter((f) => f.vars)).toHaveLength(10);
	});

	it("a variable's name of 100 characters is kept, one of 101 dropped", async ({ expect }) => {
		const vars = { ["n".repeat(100)]: 1, ["m".repeat(101)]: 2 };
		const event = await storedFrom({ platform: "python", exception: { values: [{ type: "ValueError", value: "bad", stacktrace: { frames: [{ filename: "app.py", function: "f", in_app: true, vars }] } }] } });
		expect((event.exception as { stacktrace: { frames: Array<{ vars?: Record<string, string> }> } }).stacktrace.frames[0].vars).toEqual({ ["n".repeat(100)]: "1" });
	});

	it("50 of an app's own contexts are kept, the 51st dropped", async ({ expect }) => {
		const contexts = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`c${i}`, { i }]));
		const event = await storedFrom({ contexts });
		expect(Object.keys(event.custom_contexts ?? {})).toEqual(Array.from({ length: 50 }, (_, i) => `c${i}`));
	});

	it("the field limits of /api/app-logs-ingest apply: 51 tags keep 50, 101 breadcrumbs keep 100", async ({ expect }) => {
		const event = await storedFrom({
			tags: Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`t${i}`, "v"])),
			breadcrumbs: Array.from({ length: 101 }, (_, i) => ({ message: `b${i}` })),
		});
		expect(Object.keys(event.tags)).toHaveLength(50);
		expect(event.breadcrumbs).toHaveLength(100);
		expect(event.breadcrumbs[0].message).toBe("b1");
	});

	it("groups with the same event sent to /api/app-logs-ingest", async ({ expect }) => {
		const project = await sentryProject();
		const event = nodeEvent();
		const res = await sendEnvelope(project, eventEnvelope(event));
		expect(res.status).toBe(200);
		const { group_hash, is_new } = await ingestOk(project.rawKey, { exception: event.exception, environment: "production" });
		expect(is_new).toBe(false);
		const issue = await readIssue(project.token, project.projectName, group_hash).then((r) => r.json<Json>());
		expect(issue.count).toBe(2);
	});
});
