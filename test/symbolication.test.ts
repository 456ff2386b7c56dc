import { env } from "cloudflare:workers";
import { describe, it, vi } from "vitest";
import mapA from "../e2e/fixtures/sourcemaps/dist/a/app.js.map?raw";
import scriptA from "../e2e/fixtures/sourcemaps/dist/a/app.js?raw";
import mapB from "../e2e/fixtures/sourcemaps/dist/b/app.js.map?raw";
import scriptB from "../e2e/fixtures/sourcemaps/dist/b/app.js?raw";
import type { ProjectKey } from "../domain/keys/keyStore";
import { SYMBOLICATION_LIMITS } from "../domain/limits";
import type { LogEvent, StackFrame } from "../domain/logs/logEvent";
import { normalizeEvent } from "../domain/logs/normalizeEvent";
import { symbolicate } from "../domain/sourcemaps/symbolicate";
import { artifactMapResolver, symbolicateEvent } from "../workers/sourcemaps/symbolication";
import { call } from "./helpers";
import { ingest, ingestOk, readIssue } from "./logHelpers";
import { artifactRows, bundleZip, plainUpload, projectWithUploadToken, uploadBundle } from "./sourcemapHelpers";

const MiB = 1024 * 1024;
const SHOP = "https://shop.example";
const RELEASE = "shop@1.0.0";

/** 1-based line and column of `index` in `text`. */
function positionAt(text: string, index: number) {
	const before = text.slice(0, index);
	return { lineno: before.split("\n").length, colno: index - before.lastIndexOf("\n") };
}

function find(script: string, pattern: RegExp) {
	const match = pattern.exec(script);
	if (!match) throw new Error(`the build has no ${pattern}`);
	return match;
}

/**
 * The stack Chrome reports when the shop's Pay button is clicked, oldest call first, read off the
 * minified build: the click handler, checkout, submitOrder, zod's parse (two frames in
 * node_modules) and requireItems, which throws. Every name is the build's own.
 */
function shopFrames(script: string, url = `${SHOP}/assets/app.js`): StackFrame[] {
	const throwing = find(script, /function ([\w$]+)\(\w\)\{if\(\w\.items\.length===0\)throw new TypeError/);
	const submit = find(script, /function ([\w$]+)\(\w\)\{[\w$]+\.parse\(\w\)\}/);
	const checkout = find(script, /function ([\w$]+)\(\w\)\{let \w=Date\.now\(\);([\w$]+)\(\w\)/);
	const handler = find(script, /function\(\)\{([\w$]+)\(\{id:"c-1"/);
	const at = (index: number, fn?: string): StackFrame => ({ filename: url, ...(fn ? { function: fn } : {}), ...positionAt(script, index), in_app: true });
	return [
		at(handler.index + "function(){".length, "HTMLButtonElement.<anonymous>"),
		at(checkout.index + checkout[0].length - checkout[2].length - 3, checkout[1]),
		at(submit.index + submit[0].indexOf(".parse") + 1, submit[1]),
		at(1_000, "f.parse"),
		at(5_000, "e._zod.check"),
		at(throwing.index + throwing[0].indexOf("new TypeError"), `Object.${throwing[1]} [as fn]`),
	];
}

/** The shop's error as a log event body, as a Sentry SDK or @svcapp/logger reports it. */
const shopError = (script: string, extra: Record<string, unknown> = {}) => ({
	platform: "javascript",
	release: RELEASE,
	exception: { type: "TypeError", value: "cannot submit an empty cart", stacktrace: { frames: shopFrames(script) } },
	...extra,
});

async function uploadShop(uploadToken: string, script = scriptA, map = mapA, release = RELEASE) {
	const res = await plainUpload(uploadToken, release, { "~/assets/app.js": script, "~/assets/app.js.map": map });
	if (res.status !== 201) throw new Error(`upload failed: ${res.status} ${await res.text()}`);
}

/** The shop's map grown to exactly `size` bytes of UTF-8 by a member no reader looks at. */
function padded(size: number): string {
	const map = JSON.parse(mapA);
	map.x_padding = "";
	map.x_padding = "x".repeat(size - new TextEncoder().encode(JSON.stringify(map)).byteLength);
	const text = JSON.stringify(map);
	if (new TextEncoder().encode(text).byteLength !== size) throw new Error("padding missed");
	return text;
}

/** The newest event of an issue, as the owner reads it. */
async function lastEvent(p: { token: string; projectName: string }, groupHash: string): Promise<Record<string, any>> {
	const issue = await readIssue(p.token, p.projectName, groupHash).then((r) => r.json<any>());
	return issue.events[0];
}

describe("symbolication at ingestion", () => {
	it("maps each frame to the original file, line, column and function, with context, in_app by path, and the minified frame beside it", async ({ expect }) => {
		const p = await projectWithUploadToken();
		await uploadShop(p.uploadToken);
		const { group_hash } = await ingestOk(p.rawKey, shopError(scriptA));
		const event = await lastEvent(p, group_hash);
		const frames: StackFrame[] = event.exception.stacktrace.frames;

		expect(event.symbolication).toEqual({ frames: 6, mapped: 6, notes: [] });
		expect(frames.map((f) => [f.filename, f.in_app])).toEqual([
			["src/main.ts", true],
			["src/checkout.ts", true],
			["src/checkout.ts", true],
			[expect.stringMatching(/^node_modules\/zod\/v4\//), false],
			[expect.stringMatching(/^node_modules\/zod\/v4\//), false],
			["src/checkout.ts", true],
		]);
		// The click handler is anonymous; the others are named as written, whatever the build called them.
		expect(frames.filter((f) => f.in_app).map((f) => f.function)).toEqual([undefined, "checkout", "submitOrder", "requireItems"]);
		const crash = frames.at(-1)!;
		expect(crash).toMatchObject({
			abs_path: "../../src/checkout.ts",
			lineno: 12,
			colno: 9,
			context_line: '\t\tthrow new TypeError("cannot submit an empty cart");',
			pre_context: ["\titems: string[];", "}", "", "function requireItems(cart: Cart): boolean {", "\tif (cart.items.length === 0) {"],
			post_context: ["\t}", "\treturn true;", "}", "", "/** Validation calls back into the shop from inside a dependency (zod, under node_modules). */"],
		});
		expect(crash.minified).toEqual({ filename: `${SHOP}/assets/app.js`, function: shopFrames(scriptA).at(-1)!.function, lineno: 1, colno: shopFrames(scriptA).at(-1)!.colno });
		expect(frames[2]).toMatchObject({ lineno: 21, context_line: "\tcartSchema.parse(cart);" });

		const issue = await readIssue(p.token, p.projectName, group_hash).then((r) => r.json<any>());
		expect(issue.culprit).toBe("requireItems (src/checkout.ts)");
	});

	it("names a class's constructor as written where the build bound the class to a short name (esbuild's var o=class{…})", async ({ expect }) => {
		const p = await projectWithUploadToken();
		await uploadShop(p.uploadToken);
		const store = find(scriptA, /var ([\w$]+)=class\{constructor\(\w\)\{[^{}]*throw new RangeError/);
		const frame: StackFrame = {
			filename: `${SHOP}/assets/app.js`,
			function: `new ${store[1]}`,
			...positionAt(scriptA, store.index + store[0].indexOf("new RangeError")),
			in_app: true,
		};
		const { group_hash } = await ingestOk(p.rawKey, { platform: "javascript", release: RELEASE, exception: { type: "RangeError", value: "a cart holds at most 100 items", stacktrace: { frames: [frame] } } });
		const [mapped] = (await lastEvent(p, group_hash)).exception.stacktrace.frames;
		expect(mapped).toMatchObject({ filename: "src/checkout.ts", function: "CartStore", context_line: '\t\tif (items.length > 100) throw new RangeError("a cart holds at most 100 items");' });
		const issue = await readIssue(p.token, p.projectName, group_hash).then((r) => r.json<any>());
		expect(issue.culprit).toBe("CartStore (src/checkout.ts)");
	});

	it("groups two builds with different minified names as one issue", async ({ expect }) => {
		const p = await projectWithUploadToken();
		await uploadShop(p.uploadToken, scriptA, mapA, "shop@1.0.0");
		await uploadShop(p.uploadToken, scriptB, mapB, "shop@1.1.0");
		expect(shopFrames(scriptA).map((f) => f.function)).not.toEqual(shopFrames(scriptB).map((f) => f.function));
		const first = await ingestOk(p.rawKey, shopError(scriptA, { release: "shop@1.0.0" }));
		const second = await ingestOk(p.rawKey, shopError(scriptB, { release: "shop@1.1.0" }));
		expect(second).toEqual({ ok: true, group_hash: first.group_hash, is_new: false });

		// Without their maps the two builds are two issues: the minified names differ.
		const q = await projectWithUploadToken();
		const a = await ingestOk(q.rawKey, shopError(scriptA, { release: "shop@1.0.0" }));
		const b = await ingestOk(q.rawKey, shopError(scriptB, { release: "shop@1.1.0" }));
		expect(b.group_hash).not.toBe(a.group_hash);
	});

	it("finds maps by the event's debug ids (a sentry-cli bundle, no release needed) through the Sentry envelope", async ({ expect }) => {
		const p = await projectWithUploadToken();
		const debugId = "3f2b8c1e-0d4a-4c5e-9a7b-1c2d3e4f5a6b";
		const zip = bundleZip([
			{ url: "~/assets/app.js", type: "minified_source", content: scriptA, headers: { "debug-id": debugId, sourcemap: "app.js.map" } },
			{ url: "~/assets/app.js.map", type: "source_map", content: mapA, headers: { "debug-id": debugId } },
		]);
		expect(await (await uploadBundle(p.uploadToken, zip, { projects: [String(p.dsnId)] })).json()).toEqual({ state: "ok", missingChunks: [] });

		const url = `${SHOP}/static/app.3f2b.js`;
		const event = {
			event_id: crypto.randomUUID().replaceAll("-", ""),
			platform: "javascript",
			exception: { values: [{ type: "TypeError", value: "cannot submit an empty cart", stacktrace: { frames: shopFrames(scriptA, url) } }] },
			debug_meta: { images: [{ type: "sourcemap", code_file: url, debug_id: debugId.toUpperCase() }] },
		};
		const body = `${JSON.stringify({ event_id: event.event_id })}\n${JSON.stringify({ type: "event" })}\n${JSON.stringify(event)}\n`;
		const res = await call(`/api/${p.dsnId}/envelope/?sentry_key=${p.rawKey}`, { method: "POST", body, headers: { "content-type": "text/plain" } });
		expect(res.status).toBe(200);
		const issues = await call(`/api/issues?project_name=${p.projectName}`, { token: p.token }).then((r) => r.json<any>());
		expect(issues.issues[0].culprit).toBe("requireItems (src/checkout.ts)");
		const stored = await lastEvent(p, issues.issues[0].group_hash);
		expect(stored.debug_meta).toEqual({ images: [{ type: "sourcemap", code_file: url, debug_id: debugId }] });
		expect(stored.symbolication).toEqual({ frames: 6, mapped: 6, notes: [] });
	});

	it("uses an upload at once, and what it replaces no more", async ({ expect }) => {
		const p = await projectWithUploadToken();
		const before = await ingestOk(p.rawKey, shopError(scriptA));
		expect((await lastEvent(p, before.group_hash)).symbolication.mapped).toBe(0);
		await uploadShop(p.uploadToken);
		const after = await ingestOk(p.rawKey, shopError(scriptA));
		expect((await lastEvent(p, after.group_hash)).symbolication.mapped).toBe(6);
		await call(`/api/artifacts?project_name=${p.projectName}&release=${RELEASE}`, { method: "DELETE", token: p.token });
		const deleted = await ingestOk(p.rawKey, shopError(scriptA));
		expect((await lastEvent(p, deleted.group_hash)).symbolication.mapped).toBe(0);
	});

	it("reads a map once per isolate: a later event is mapped from the cache", async ({ expect }) => {
		const p = await projectWithUploadToken();
		await uploadShop(p.uploadToken);
		await ingestOk(p.rawKey, shopError(scriptA));
		// Gone from R2 behind the store's back: only the isolate's cache can still map.
		for (const row of await artifactRows(p.keyId)) await env.ARTIFACTS.delete(row.object_key);
		const { group_hash } = await ingestOk(p.rawKey, shopError(scriptA));
		expect((await lastEvent(p, group_hash)).symbolication).toEqual({ frames: 6, mapped: 6, notes: [] });
	});

	it("stays bounded: context lines for the 50 frames nearest the crash, a map's long names cut to 1,000 characters", async ({ expect }) => {
		const p = await projectWithUploadToken();
		await uploadShop(p.uploadToken);
		const crash = shopFrames(scriptA).at(-1)!;
		const deep = await ingestOk(p.rawKey, { release: RELEASE, exception: { type: "RangeError", value: "deep", stacktrace: { frames: Array(51).fill(crash) } } });
		const frames: StackFrame[] = (await lastEvent(p, deep.group_hash)).exception.stacktrace.frames;
		expect(frames).toHaveLength(51);
		expect(frames[0]).toMatchObject({ filename: "src/checkout.ts", lineno: 12 });
		expect(frames[0].context_line).toBeUndefined();
		for (const frame of frames.slice(1)) expect(frame.context_line).toBe('\t\tthrow new TypeError("cannot submit an empty cart");');

		const long = "n".repeat(1_500);
		const map = JSON.stringify({ version: 3, sources: [`src/${long}.ts`], sourcesContent: ["x"], names: [long], mappings: "AAAAA" });
		expect((await plainUpload(p.uploadToken, "long@1", { "~/long.js": "x", "~/long.js.map": map })).status).toBe(201);
		const frame = { filename: `${SHOP}/long.js`, function: "a", lineno: 1, colno: 1 };
		const named = await ingestOk(p.rawKey, { release: "long@1", exception: { type: "Error", value: "long", stacktrace: { frames: [frame, frame] } } });
		const [caller, callee] = (await lastEvent(p, named.group_hash)).exception.stacktrace.frames;
		expect(caller.filename).toHaveLength(1_000);
		expect(caller.abs_path).toHaveLength(1_000);
		// The callee is named by the call in its caller: the map's 1,500-character name, cut.
		expect(callee.function).toBe("n".repeat(1_000));
	});

	it("marks the artifacts it uses, at most once a day", async ({ expect }) => {
		const p = await projectWithUploadToken();
		await uploadShop(p.uploadToken);
		const longAgo = Date.now() - 30 * 24 * 3_600_000;
		await env.DB.prepare("update artifacts set used_at = ? where key_id = ?").bind(longAgo, p.keyId).run();
		await ingestOk(p.rawKey, shopError(scriptA));
		const rows = await artifactRows(p.keyId);
		for (const row of rows) expect(row.used_at).toBeGreaterThan(Date.now() - 60_000);
	});
});

describe("when symbolication cannot run, the event is stored as it came, with a note", () => {
	async function storedWithNotes(p: Awaited<ReturnType<typeof projectWithUploadToken>>, body: Record<string, unknown>) {
		const res = await ingest(p.rawKey, body);
		if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${await res.text()}`);
		const { group_hash } = await res.json<{ group_hash: string }>();
		const event = await lastEvent(p, group_hash);
		return { event, framesAsSent: normalizeEvent(body).exception?.stacktrace?.frames };
	}

	it("no map uploaded for the release", async ({ expect }) => {
		const p = await projectWithUploadToken();
		await uploadShop(p.uploadToken, scriptA, mapA, "shop@0.9.0");
		const { event, framesAsSent } = await storedWithNotes(p, shopError(scriptA));
		expect(event.symbolication).toEqual({ frames: 6, mapped: 0, notes: [`No source map for ${SHOP}/assets/app.js uploaded with release ${RELEASE}`] });
		expect(event.exception.stacktrace.frames).toEqual(framesAsSent);
	});

	it("no map uploaded at all", async ({ expect }) => {
		const p = await projectWithUploadToken();
		const { event, framesAsSent } = await storedWithNotes(p, shopError(scriptA));
		expect(event.symbolication).toEqual({ frames: 6, mapped: 0, notes: [`No source map for ${SHOP}/assets/app.js uploaded with release ${RELEASE}`] });
		expect(event.exception.stacktrace.frames).toEqual(framesAsSent);
	});

	it("an event with neither a release nor a debug id", async ({ expect }) => {
		const p = await projectWithUploadToken();
		await uploadShop(p.uploadToken);
		const { event } = await storedWithNotes(p, shopError(scriptA, { release: undefined }));
		expect(event.symbolication).toEqual({ frames: 6, mapped: 0, notes: [`No source map for ${SHOP}/assets/app.js: the event names neither a release nor a debug id`] });
	});

	it("a map over 8 MiB is stored but not used; one of exactly 8 MiB is", async ({ expect }) => {
		const p = await projectWithUploadToken();
		await uploadShop(p.uploadToken, scriptA, padded(8 * MiB + 1));
		const { event, framesAsSent } = await storedWithNotes(p, shopError(scriptA));
		expect(event.symbolication).toEqual({ frames: 6, mapped: 0, notes: ["The source map ~/assets/app.js.map is 8.0 MiB; maps over 8.0 MiB are not used"] });
		expect(event.exception.stacktrace.frames).toEqual(framesAsSent);

		const q = await projectWithUploadToken();
		await uploadShop(q.uploadToken, scriptA, padded(8 * MiB));
		expect((await storedWithNotes(q, shopError(scriptA))).event.symbolication).toEqual({ frames: 6, mapped: 6, notes: [] });
	}, 60_000); // Two 8 MiB uploads and a parse of one: seconds on a loaded machine, not the 5 s default.

	it("a map gone from storage", async ({ expect }) => {
		const p = await projectWithUploadToken();
		await uploadShop(p.uploadToken);
		for (const row of await artifactRows(p.keyId)) await env.ARTIFACTS.delete(row.object_key);
		const { event } = await storedWithNotes(p, shopError(scriptA));
		expect(event.symbolication).toEqual({ frames: 6, mapped: 0, notes: ["The source map ~/assets/app.js.map is missing from storage: upload it again"] });
	});

	it("a map trace-mapping cannot read", async ({ expect }) => {
		const p = await projectWithUploadToken();
		await uploadShop(p.uploadToken, scriptA, JSON.stringify({ version: 3, sources: 5, names: [], mappings: "AAAA" }));
		const { event } = await storedWithNotes(p, shopError(scriptA));
		expect(event.symbolication.mapped).toBe(0);
		expect(event.symbolication.notes).toEqual([expect.stringMatching(/^The source map ~\/assets\/app\.js\.map could not be read: \S/)]);
	});

	it("a position the map says nothing about", async ({ expect }) => {
		const p = await projectWithUploadToken();
		await uploadShop(p.uploadToken);
		const frames = shopFrames(scriptA).map((frame) => ({ ...frame, lineno: 2 }));
		const { event } = await storedWithNotes(p, { release: RELEASE, exception: { type: "TypeError", value: "x", stacktrace: { frames } } });
		expect(event.symbolication.mapped).toBe(0);
		expect(event.symbolication.notes[0]).toMatch(/^~\/assets\/app\.js\.map maps nothing at https:\/\/shop\.example\/assets\/app\.js:2:\d+$/);
	});
});

describe("the budgets of one event", () => {
	/** The project's key row, as ingestion has it. */
	const keyOf = async (keyId: string) => {
		const row = await env.DB.prepare("select id, artifacts_version from project_keys where id = ?").bind(keyId).first<{ id: string; artifacts_version: number }>();
		return { id: row!.id, artifactsVersion: row!.artifacts_version } as ProjectKey;
	};

	/** The shop's error in three scripts at once, each with its own map of `mapSize` bytes. */
	async function threeScripts(mapSize: number) {
		const p = await projectWithUploadToken();
		for (const name of ["one", "two", "three"]) {
			const res = await plainUpload(p.uploadToken, RELEASE, { [`~/${name}.js.map`]: padded(mapSize) });
			if (res.status !== 201) throw new Error(`upload failed: ${res.status}`);
		}
		const frames = ["one", "two", "three"].flatMap((name) => shopFrames(scriptA, `${SHOP}/${name}.js`).slice(0, 2));
		const event = normalizeEvent({ release: RELEASE, exception: { type: "TypeError", value: "x", stacktrace: { frames } } });
		return { p, key: await keyOf(p.keyId), event };
	}

	it("parses at most 16 MiB of maps not yet cached: the third 6 MiB map waits for a later event", async ({ expect }) => {
		const { key, event } = await threeScripts(6 * MiB);
		const first: LogEvent = await symbolicate(event, artifactMapResolver(env, key));
		expect(first.symbolication).toEqual({
			frames: 6,
			mapped: 4,
			notes: [`Symbolication stopped before ${SHOP}/three.js: this event's 16.0 MiB of source maps to parse was spent`],
		});
		// The first two are cached now: the next event parses only the third (the cache keeps 16 MiB, so the oldest goes).
		const second = await symbolicate(event, artifactMapResolver(env, key));
		expect(second.symbolication).toEqual({ frames: 6, mapped: 6, notes: [] });
	}, 60_000); // Three 6 MiB uploads and parses: seconds on a loaded machine.

	it("waits for storage at most 2 s: what is not read by then is left as it came", async ({ expect }) => {
		const { key, event } = await threeScripts(400_000);
		let clock = 0;
		// Each read of the clock is 0.8 s later: the lookup and the first map fit in 2 s, the rest do not.
		const now = () => (clock += 800);
		const result = await symbolicate(event, artifactMapResolver(env, key, now, SYMBOLICATION_LIMITS));
		expect(result.symbolication).toEqual({
			frames: 6,
			mapped: 2,
			notes: [
				`Symbolication stopped before ${SHOP}/two.js: this event's 2 s for reading source maps was spent`,
				`Symbolication stopped before ${SHOP}/three.js: this event's 2 s for reading source maps was spent`,
			],
		});
	});

	it("an unexpected failure is a note, never a refused event", async ({ expect }) => {
		const { key } = await threeScripts(400_000);
		// No bindings at all: the lookup itself throws, and the failure is logged.
		const logged = vi.spyOn(console, "error").mockImplementation(() => {});
		const event = await symbolicateEvent({} as Env, key, normalizeEvent(shopError(scriptA)));
		expect(logged).toHaveBeenCalledWith("symbolication failed:", expect.any(TypeError));
		logged.mockRestore();
		expect(event.symbolication).toEqual({ frames: 0, mapped: 0, notes: ["Symbolication failed unexpectedly: the event is stored as it came"] });
		expect(event.exception?.stacktrace?.frames).toEqual(normalizeEvent(shopError(scriptA)).exception?.stacktrace?.frames);
	});
});
