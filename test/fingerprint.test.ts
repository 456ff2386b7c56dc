import { beforeAll, describe, it } from "vitest";
import { culpritOf, fingerprintOf, groupHash, titleOf } from "../domain/logs/fingerprint";
import { collapseRecursion, normalizeFunctionName, stripContentHash } from "../domain/logs/grouping/frames";
import { parametrize } from "../domain/logs/grouping/parametrize";
import { canonicalError } from "../domain/logs/grouping/wordings";
import { normalizeEvent } from "../domain/logs/normalizeEvent";
import { compareVersions } from "../domain/logs/releases";
import { call } from "./helpers";
import { GROUPING_CASES } from "./groupingTable";
import { ingestOk, ownerWithLogKey } from "./logHelpers";

const hashOf = (body: Record<string, unknown>) => groupHash(normalizeEvent(body));

describe("the grouping table", () => {
	it("has at least 25 pairs, both kinds", ({ expect }) => {
		expect(GROUPING_CASES.length).toBeGreaterThanOrEqual(25);
		expect(GROUPING_CASES.filter((c) => c.same).length).toBeGreaterThanOrEqual(10);
		expect(GROUPING_CASES.filter((c) => !c.same).length).toBeGreaterThanOrEqual(10);
	});

	it.for(GROUPING_CASES)("fingerprint module: $name", async (c, { expect }) => {
		const [a, b] = await Promise.all([hashOf(c.a), hashOf(c.b)]);
		expect(a).toMatch(/^[0-9a-f]{32}$/);
		if (c.same) expect(b, JSON.stringify([fingerprintOf(normalizeEvent(c.a)), fingerprintOf(normalizeEvent(c.b))])).toBe(a);
		else expect(b, JSON.stringify(fingerprintOf(normalizeEvent(c.a)))).not.toBe(a);
	});

	describe("through POST /api/app-logs-ingest", () => {
		let rawKey: string;
		beforeAll(async () => {
			const owner = await ownerWithLogKey();
			rawKey = owner.rawKey;
			// The table sends more events than the default 60 per minute.
			const res = await call("/api/feedback-key", {
				method: "PATCH",
				token: owner.token,
				json: { project_name: owner.projectName, logs_rate_limit_per_minute: 6_000 },
			});
			if (res.status !== 200) throw new Error(`raising the limit failed: ${res.status}`);
		});

		it.for(GROUPING_CASES)("endpoint: $name", async (c, { expect }) => {
			const a = await ingestOk(rawKey, c.a);
			const b = await ingestOk(rawKey, c.b);
			expect(a.group_hash).toBe(await hashOf(c.a));
			if (c.same) expect(b.group_hash).toBe(a.group_hash);
			else expect(b.group_hash).not.toBe(a.group_hash);
		});
	});
});

describe("JavaScript frames (platform javascript or node)", () => {
	const twoThrows = (platform: string | null, line: string) =>
		hashOf({
			...(platform ? { platform } : {}),
			exception: {
				type: "Error",
				value: "boom",
				stacktrace: { frames: [{ filename: "/srv/app/src/users.js", module: "src:users", function: "loadUser", lineno: 9, in_app: true, context_line: line }] },
			},
		});

	// Sentry counts the line of source beside the name, as it fetches a page's scripts to read
	// it; svc has no line of source for a page's frames, so in JavaScript the name alone counts,
	// and two throws in one function are one issue there.
	it.for(["javascript", "node", "Node"])("%s: two throws in one named function are one issue", async (platform, { expect }) => {
		expect(await twoThrows(platform, "return profile.theme;")).toBe(await twoThrows(platform, "throw new Error('no profile');"));
	});

	it.for([null, "python", "php", "ruby"])("%s: two throws in one named function stay two issues", async (platform, { expect }) => {
		expect(await twoThrows(platform, "return profile.theme;")).not.toBe(await twoThrows(platform, "throw new Error('no profile');"));
	});

	// Sentry counts a line of source only for JavaScript, Python, PHP and Ruby.
	it.for(["go", "java", "csharp", "other"])("%s: the line of source never counts", async (platform, { expect }) => {
		expect(await twoThrows(platform, "return profile.theme;")).toBe(await twoThrows(platform, "throw new Error('no profile');"));
		expect(await twoThrows(platform, "")).toBe(await twoThrows(platform, "return profile.theme;"));
	});
});

describe("parametrization", () => {
	it.for([
		["timeout after 31ms for user 8812", "timeout after <num>ms for user <num>"],
		["id 3f2b8c1e-9d4a-4b7e-8f21-0c9e5a7d6b13", "id <uuid>"],
		["mail alice@example.com", "mail <email>"],
		["from 10.0.0.1 and 2001:db8::1", "from <ip> and <ip>"],
		["GET https://x.example/a?b=1 failed", "GET <url> failed"],
		["at 2024-03-01T10:00:00Z and 10:30:15", "at <date> and <time>"],
		["sha d41d8cd98f00b204e9800998ecf8427e", "sha <hash>"],
		["ptr 0x7ffd5e8c and oid 507f1f77bcf86cd799439011", "ptr <hex> and oid <hex>"],
		["token cus_9s6XKzkNRiz8i3Ab", "token <id>"],
		[`field 'name' and "other" and \`third\``, "field <quoted> and <quoted> and <quoted>"],
		["can't parse user's input", "can't parse user's input"],
		["utf8 x86_64 v2 ES2015 stay", "utf8 x86_64 v2 ES2015 stay"],
	])("%s → %s", ([input, expected], { expect }) => {
		expect(parametrize(input)).toBe(expected);
	});

	it("stays fast on hostile input at the value limit", ({ expect }) => {
		// Each once made a pattern backtrack quadratically before its start positions were bounded.
		for (const hostile of ["a".repeat(8192), "a@".repeat(4096), "'".repeat(8192), "1.".repeat(4096), "ab1-".repeat(2048), ":".repeat(8192), "a-".repeat(4096), "a.b+c-".repeat(1365)]) {
			const started = performance.now();
			parametrize(hostile);
			// Generous: catastrophic backtracking takes seconds, not milliseconds.
			expect(performance.now() - started).toBeLessThan(500);
		}
	});
});

describe("frame normalization", () => {
	it.for([
		["main-8f3a2c.js", "main.js"],
		["main.8f3a2c1d.chunk.js", "main.chunk.js"],
		["2.a1b2c3d4.chunk.js", "2.chunk.js"],
		["index-BxY7_q2k.js", "index.js"],
		["index-CpoXzVlj.js", "index.js"],
		["_app-0a1b2c3d4e5f6789.js", "_app.js"],
		["user-settings.js", "user-settings.js"],
		["facade.js", "facade.js"],
		["my-Dropdown.js", "my-Dropdown.js"],
	])("content hash: %s → %s", ([input, expected], { expect }) => {
		expect(stripContentHash(input)).toBe(expected);
	});

	it.for([
		["async UserService.load", "load"],
		["UserService.prototype.load", "load"],
		["Object.<anonymous>", ""],
		["loadUser/<", ""],
		["outer/inner<", "inner"],
		["Layer.handle [as handle_request]", "handle"],
		["Promise.all (index 0)", "all"],
		["new Widget", "Widget"],
		["lambda$main$0", "lambda$main$"],
		["global code", ""],
		["async*loadUser", "loadUser"],
		["promise callback*CartService.prototype.load", "load"],
		["setTimeout handler*", ""],
		["Foo::operator*", "operator*"],
	])("function name: %s → %s", ([input, expected], { expect }) => {
		expect(normalizeFunctionName(input)).toBe(expected);
	});

	it("collapses direct and mutual recursion", ({ expect }) => {
		expect(collapseRecursion(["a", "b", "b", "b", "c"])).toEqual(["a", "b", "c"]);
		expect(collapseRecursion(["a", "x", "y", "x", "y", "x", "y", "c"])).toEqual(["a", "x", "y", "c"]);
		expect(collapseRecursion(["a", "b", "c"])).toEqual(["a", "b", "c"]);
	});

	it("stays fast when a value looks like the start of a browser wording", ({ expect }) => {
		const started = performance.now();
		canonicalError(null, `undefined is not a function (evaluating '${"(".repeat(8150)}`);
		canonicalError("TypeError", `can't access property ${", ".repeat(4090)}`);
		expect(performance.now() - started).toBeLessThan(500);
	});

	it("maps browser wordings onto one", ({ expect }) => {
		expect(canonicalError("TypeError", "Cannot read properties of undefined (reading 'x')")).toEqual(
			canonicalError("TypeError", `can't access property "x", a is undefined`),
		);
		expect(canonicalError(null, "undefined is not an object (evaluating 'a.x')").type).toBe("TypeError");
		// A user's own error that merely looks similar keeps its words when its type says otherwise.
		expect(canonicalError("ConfigError", "config is undefined")).toEqual({ type: "ConfigError", value: "config is undefined" });
	});
});

describe("title and culprit", () => {
	const frames = [
		{ filename: "src/app.ts", function: "main", in_app: true },
		{ filename: "src/handler.ts", function: "handle", in_app: true },
		{ filename: "node_modules/lib/index.js", function: "run", in_app: false },
	];

	it("culprit is the last in_app: true frame, as function (file)", ({ expect }) => {
		expect(culpritOf(normalizeEvent({ exception: { type: "E", value: "v", stacktrace: { frames } } }))).toBe("handle (src/handler.ts)");
	});

	it("culprit falls back to the last frame when none is in_app, and is null without frames", ({ expect }) => {
		const noneInApp = frames.map((frame) => ({ ...frame, in_app: false }));
		expect(culpritOf(normalizeEvent({ exception: { type: "E", value: "v", stacktrace: { frames: noneInApp } } }))).toBe("run (node_modules/lib/index.js)");
		expect(culpritOf(normalizeEvent({ message: "m" }))).toBeNull();
		expect(culpritOf(normalizeEvent({ exception: { type: "E", stacktrace: { frames: [{ filename: "a.js", in_app: true }] } } }))).toBe("<anonymous> (a.js)");
	});

	it("culprit of a mapped frame whose map names no function: the name the runtime reported", ({ expect }) => {
		const mapped = { filename: "src/main.js", lineno: 30, colno: 11, in_app: true, minified: { filename: "app.js", function: "window.runScenario", lineno: 1, colno: 900 } };
		expect(culpritOf({ exception: { type: "E", value: "v", stacktrace: { frames: [mapped] } } } as Parameters<typeof culpritOf>[0])).toBe("window.runScenario (src/main.js)");
		expect(culpritOf({ exception: { type: "E", value: "v", stacktrace: { frames: [{ ...mapped, function: "runScenario" }] } } } as Parameters<typeof culpritOf>[0])).toBe("runScenario (src/main.js)");
	});

	it.for([
		[{ exception: { type: "TypeError", value: "bad thing\nsecond line" } }, "TypeError: bad thing"],
		[{ exception: { type: "TypeError" } , message: "ignored" }, "TypeError"],
		[{ exception: { value: "only a value" } }, "only a value"],
		[{ message: "first line\nsecond" }, "first line"],
	] as const)("title of %j is %s", ([body, expected], { expect }) => {
		expect(titleOf(normalizeEvent(body as Record<string, unknown>))).toBe(expected);
	});
});

describe("release ordering", () => {
	it.for([
		["1.2.3", "1.10.0", -1],
		["1.10.0", "1.9.9", 1],
		["v2.0.0", "2.0.0", 0],
		["2.0.0-rc.1", "2.0.0", -1],
		["2.0.0-alpha.2", "2.0.0-alpha.10", -1],
		["2.0.0-alpha", "2.0.0-beta", -1],
		["web@1.4.2", "web@1.4.10", -1],
		["1.0", "1.0.1", -1],
		["1.0.0+build.5", "1.0.0+build.9", 0],
	] as const)("%s vs %s → %d", ([a, b, expected], { expect }) => {
		expect(compareVersions(a, b)).toBe(expected);
	});

	it("does not compare what is not a version or another package's version", ({ expect }) => {
		expect(compareVersions("abc123", "def456")).toBeNull();
		expect(compareVersions("web@1.0.0", "api@2.0.0")).toBeNull();
		expect(compareVersions("1.0.0", "release-7")).toBeNull();
	});
});
