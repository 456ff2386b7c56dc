// Sentry's inbound filter "browser extensions": its rules at their edges, then the endpoints that
// apply it (/api/app-logs-ingest, the Sentry envelope and store endpoints) and the key's setting.
import { describe, it } from "vitest";
import { fromBrowserExtension } from "../domain/logs/browserExtensions";
import { normalizeEvent } from "../domain/logs/normalizeEvent";
import { configureKey } from "./helpers";
import { ingest, ingestOk, issuesOf, ownerWithLogKey, storedEvents } from "./logHelpers";
import { eventEnvelope, nodeEvent, post, query, sendEnvelope, sentryProject } from "./sentryHelpers";

type Json = Record<string, any>;
type Frame = Json;

const APP = "https://shop.example/assets/app.js";
const EXTENSION = "chrome-extension://kbfnbcaeplbcioakkpcpgfkobkghlhen/content.js";
const frame = (source: string, fn = "run"): Frame => ({ abs_path: source, function: fn, lineno: 1 });

/** An event whose one exception has `value` and these frames, oldest call first, as the endpoints store it. */
const eventOf = (frames: Frame[], value = "boom") => normalizeEvent({ exception: { type: "TypeError", value, stacktrace: { frames } } });
const filters = (frames: Frame[], value?: string) => fromBrowserExtension(eventOf(frames, value));

describe("the browser-extensions rules", () => {
	it.for([
		EXTENSION,
		"chrome://extensions/x.js",
		"moz-extension://2d1e0f3c/content.js",
		"safari-extension://com.example.blocker/script.js",
		"safari-web-extension://0A1B2C3D/content.js",
		"CHROME-EXTENSION://ABC/content.js",
		"https://graph.facebook.com/",
		"https://connect.facebook.net/en_US/sdk.js",
		"https://eatdifferent.com.woopra-ns.com/main.js",
		"https://static.woopra.com/js/woopra.js",
		"http://127.0.0.1:4001/isrunning",
		"https://webappstoolbarba.texthelp.com/x.js",
		"http://metrics.itunes.apple.com.edgesuite.net/itunespreview/itunes/browser:firefo",
		"https://fscr.kaspersky-labs.com/B-9B72-7B7/main.js",
		"webkit-masked-url://hidden/",
	])("a crash site in %s is dropped", (source, { expect }) => {
		expect(filters([frame(APP), frame(source)])).toBe(true);
	});

	it.for([
		APP,
		// A scheme counts only where the URL starts.
		`https://shop.example/?from=${EXTENSION}`,
		"chrome-extensions://x/content.js",
		"app:///main.js",
		"/srv/app/src/orders.js",
	])("a crash site in %s is kept", (source, { expect }) => {
		expect(filters([frame(EXTENSION), frame(source)])).toBe(false);
	});

	it("only the crash site counts: an extension's frame among the app's is kept, the app's calls into an extension are dropped", ({ expect }) => {
		expect(filters([frame(APP, "main"), frame(EXTENSION, "wrapped"), frame(APP, "onClick")])).toBe(false);
		expect(filters([frame(APP, "main"), frame(APP, "onClick"), frame(EXTENSION, "inject")])).toBe(true);
	});

	it("frames that name no source are passed over on the way to the crash site; a crash site with no source at all drops nothing", ({ expect }) => {
		expect(filters([frame(EXTENSION), frame("<anonymous>"), frame("[native code]")])).toBe(true);
		expect(filters([frame(APP), frame("<anonymous>")])).toBe(false);
		expect(filters([frame(EXTENSION), { function: "nameless", lineno: 3 }])).toBe(false);
		// The source is abs_path, else the filename, as Relay reads a frame.
		expect(filters([{ filename: EXTENSION, function: "inject" }])).toBe(true);
		expect(filters([{ abs_path: APP, filename: EXTENSION, function: "run" }])).toBe(false);
		expect(filters([])).toBe(false);
	});

	it.for([
		["Extension context invalidated.", true],
		["TypeError: can't access dead object", true],
		["Can't find variable:\tZiteReader", true],
		["null is not an object (evaluating 'elt.parentNode')", true],
		["error _gCrWeb", true],
		["FB_XD_FRAGMENT", true],
		["Extension context", false],
		["Cannot read properties of undefined (reading 'id')", false],
	] as const)("an exception valued %j: dropped %s", ([value, dropped], { expect }) => {
		expect(filters([frame(APP)], value)).toBe(dropped);
	});

	it("the first exception sent decides (the oldest of a chain), as Relay reads exception.values[0]; a message is never looked at", ({ expect }) => {
		const chain = (first: string, last: string) =>
			fromBrowserExtension(
				normalizeEvent({
					exception: {
						values: [
							{ type: "Error", value: "cause", stacktrace: { frames: [frame(first)] } },
							{ type: "Error", value: "reported", stacktrace: { frames: [frame(last)] } },
						],
					},
				}),
			);
		expect(chain(EXTENSION, APP)).toBe(true);
		expect(chain(APP, EXTENSION)).toBe(false);
		expect(fromBrowserExtension(normalizeEvent({ message: "Extension context invalidated" }))).toBe(false);
	});
});

const extensionCrash = (value = "x is undefined") => ({
	level: "error",
	exception: { type: "TypeError", value, stacktrace: { frames: [frame(APP, "main"), frame(EXTENSION, "inject")] } },
});
const appCrash = { level: "error", exception: { type: "TypeError", value: "x is undefined", stacktrace: { frames: [frame(EXTENSION, "wrapped"), frame(APP, "main")] } } };

describe("POST /api/app-logs-ingest with the filter", () => {
	it("on for a new key: an extension's error is answered 200 as filtered with a hash, and neither stored nor counted against the windows", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		await configureKey(owner.token, owner.projectName, { logs_rate_limit_per_minute: 1 });
		for (let i = 0; i < 3; i++) {
			const body = await ingestOk(owner.rawKey, extensionCrash());
			expect(body).toEqual({ ok: true, group_hash: expect.stringMatching(/^[0-9a-f]{32}$/), is_new: false, filtered: "browser-extensions" });
		}
		// The key's window of one still has its one event: the app's own error.
		expect(await ingestOk(owner.rawKey, appCrash)).toMatchObject({ is_new: true });
		expect((await ingest(owner.rawKey, appCrash)).status).toBe(429);
		const issues = await issuesOf(owner);
		expect(issues.map((issue) => issue.count)).toEqual([1]);
		expect(await storedEvents(owner.keyId)).toHaveLength(1);
	});

	it("the key's checks still come first: 401 for a key that is not valid, 403 with App Logs off", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		expect((await ingest("svc_nothing", extensionCrash())).status).toBe(401);
		await configureKey(owner.token, owner.projectName, { logs_enabled: false });
		expect((await ingest(owner.rawKey, extensionCrash())).status).toBe(403);
	});

	it("turned off, an extension's error is stored like any other; on again, dropped again", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		await configureKey(owner.token, owner.projectName, { filter_browser_extensions: false });
		const stored = await ingestOk(owner.rawKey, extensionCrash("Extension context invalidated."));
		expect(stored).toEqual({ ok: true, group_hash: expect.any(String), is_new: true });
		await configureKey(owner.token, owner.projectName, { filter_browser_extensions: true });
		// The hash answered is the issue's own: the one the event was stored under while the filter was off.
		expect(await ingestOk(owner.rawKey, extensionCrash("Extension context invalidated."))).toEqual({ ...stored, is_new: false, filtered: "browser-extensions" });
		expect((await issuesOf(owner)).map((issue) => issue.count)).toEqual([1]);
	});
});

describe("the Sentry endpoints with the filter", () => {
	const sentryCrash = (frames: Frame[]) =>
		nodeEvent({ platform: "javascript", exception: { values: [{ type: "TypeError", value: "x is undefined", stacktrace: { frames }, mechanism: { type: "onerror", handled: false } }] } });

	it("an extension's error is answered 200 with its id, as Sentry answers it, and not stored; the app's own is", async ({ expect }) => {
		const project = await sentryProject();
		const dropped = sentryCrash([{ filename: APP, function: "main" }, { filename: EXTENSION, function: "inject" }]);
		const res = await sendEnvelope(project, eventEnvelope(dropped));
		expect(res.status).toBe(200);
		expect(await res.json()).toEqual({ id: dropped.event_id });
		const viaStore = sentryCrash([{ filename: "moz-extension://2d1e0f3c/content.js", function: "inject" }]);
		const stored = await post(`/api/${project.dsnId}/store/${query(project)}`, JSON.stringify(viaStore));
		expect(await stored.json()).toEqual({ id: viaStore.event_id });
		const kept = sentryCrash([{ filename: EXTENSION, function: "wrapped" }, { filename: APP, function: "main" }]);
		expect((await sendEnvelope(project, eventEnvelope(kept))).status).toBe(200);
		expect((await issuesOf(project)).map((issue) => issue.count)).toEqual([1]);
		expect((await storedEvents(project.keyId)).map((row) => row.event.event_id)).toEqual([kept.event_id]);
	});

	it("a message sent with a stack (no exception) is kept, as Relay filters only the exceptions an SDK sent", async ({ expect }) => {
		const project = await sentryProject();
		const message = nodeEvent({ exception: undefined, message: "Extension context invalidated", stacktrace: { frames: [{ filename: EXTENSION, function: "inject" }] } });
		expect((await sendEnvelope(project, eventEnvelope(message))).status).toBe(200);
		expect(await issuesOf(project)).toHaveLength(1);
	});
});
