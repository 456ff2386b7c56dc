import { execFile, spawn } from "node:child_process";
import { readFile, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { Browser } from "playwright-core";
import SentryCli from "@sentry/cli";
import { afterAll, beforeAll, describe, type ExpectStatic, it } from "vitest";
import { BROWSER_OUTPUT } from "../clients/logger/build.mjs";
import { launchBrowser } from "./browser";
import { buildShop } from "./fixtures/sourcemaps/build.mjs";
import { api, type Issue, issuesOnceThereAre, ownerWithSite, type SitePage, serveSite, startWorker } from "./stack";

/**
 * Source maps end to end: the shop (e2e/fixtures/sourcemaps) built twice by esbuild, minified with
 * source maps and different minified names; its maps uploaded with the real sentry-cli (inject,
 * then upload) and with the plain upload; its errors thrown in a real browser and sent by
 * @sentry/browser and by @svcapp/logger. The issue shows the code as written, and both builds are
 * one issue, as is the same code run by Node.
 */
const HERE = dirname(fileURLToPath(import.meta.url));
const FIXTURES = join(HERE, "fixtures", "sourcemaps");
/** The binary the npm package ships (the package's optional dependency for this platform). */
const SENTRY_CLI = SentryCli.getPath();

let worker: Awaited<ReturnType<typeof startWorker>>;
let shop: { origin: string; close: () => Promise<void> };
let browser: Browser;
/** Where the builds are, each in a directory of its own. */
let builds: string;

/** The builds, by name: `<sdk>-<variant>`, each a directory with app.js and app.js.map. */
const BUILDS = ["sentry-a", "sentry-b", "logger-a", "logger-b", "injected-a"];

async function startShop(): Promise<typeof shop> {
	const sentryBundle = (
		await build({ entryPoints: [join(HERE, "fixtures", "sentry", "browser-sdk.mjs")], bundle: true, format: "iife", write: false, logLevel: "silent" })
	).outputFiles[0].text;
	return serveSite((url): SitePage | null => {
		if (url.pathname === "/") return { file: join(FIXTURES, "page.html"), type: "text/html" };
		if (url.pathname === "/sentry-browser.js") return { text: sentryBundle, type: "text/javascript" };
		if (url.pathname === "/svc-logger.browser.js") return { file: BROWSER_OUTPUT, type: "text/javascript" };
		const buildName = url.searchParams.get("build") ?? "";
		if (url.pathname === "/assets/app.js" && BUILDS.includes(buildName)) return { file: join(builds, buildName, "app.js"), type: "text/javascript" };
		return null;
	});
}

beforeAll(async () => {
	// Beside the shop's source, as a real project builds: the maps name it `../../src/checkout.ts`.
	builds = join(FIXTURES, "dist", "e2e");
	await rm(builds, { recursive: true, force: true });
	await Promise.all(BUILDS.map((name) => buildShop(name.endsWith("-a") ? "a" : "b", join(builds, name))));
	[worker, shop, browser] = await Promise.all([startWorker(), startShop(), launchBrowser()]);
});

afterAll(async () => {
	await browser?.close();
	await shop?.close();
	await worker?.close();
	if (builds) await rm(builds, { recursive: true, force: true });
});

/** A new owner with a project key, its DSN and DSN id, and an upload token for the project. */
async function project(name: string) {
	const { token } = await ownerWithSite(worker.url, "shop.example");
	const key = await api<{ raw_api_key: string; dsn: string }>(worker.url, "/api/feedback-key", { token, json: { project_name: name } });
	const upload = await api<{ token: string; id: string }>(worker.url, "/api/upload-tokens", { token, json: { project_name: name } });
	return { token, name, key: key.raw_api_key, dsn: key.dsn, dsnId: key.dsn.split("/").pop() ?? "", uploadToken: upload.token, uploadTokenId: upload.id };
}

/** sentry-cli from the npm registry, pointed at the Worker as CI would point it at Sentry. */
function sentryCli(args: string[], settings: { token: string; project: string }): Promise<{ code: number; output: string }> {
	return new Promise((resolve) => {
		execFile(
			SENTRY_CLI,
			args,
			{
				env: {
					...process.env,
					SENTRY_URL: worker.url,
					SENTRY_AUTH_TOKEN: settings.token,
					SENTRY_ORG: "any-org",
					SENTRY_PROJECT: settings.project,
					SENTRY_DISABLE_UPDATE_CHECK: "true",
				},
			},
			(error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }),
		);
	});
}

/** The plain upload, as a deploy script without sentry-cli would do it: both files of a build, named by their URL. */
async function plainUpload(uploadToken: string, release: string, buildName: string) {
	const form = new FormData();
	for (const file of ["app.js", "app.js.map"]) form.append("file", new Blob([await readFile(join(builds, buildName, file))]), `~/assets/${file}`);
	const res = await fetch(`${worker.url}/api/releases/${encodeURIComponent(release)}/artifacts`, {
		method: "POST",
		headers: { authorization: `Bearer ${uploadToken}` },
		body: form,
	});
	if (res.status !== 201) throw new Error(`plain upload: ${res.status} ${await res.text()}`);
}

interface Frame {
	filename?: string;
	function?: string;
	lineno?: number;
	colno?: number;
	in_app?: boolean;
	context_line?: string;
	pre_context?: string[];
	post_context?: string[];
	minified?: Frame;
}

interface StoredEvent {
	platform: string | null;
	sdk: { name: string | null };
	release: string | null;
	exception: { type: string | null; value: string | null; stacktrace: { frames: Frame[] } | null } | null;
	symbolication?: { frames: number; mapped: number; notes: string[] };
}

/** Opens the shop page with `query` and clicks Pay: the shop's error is thrown, uncaught. */
async function clickPay(query: Record<string, string>) {
	const page = await browser.newPage();
	await page.goto(`${shop.origin}/?${new URLSearchParams(query)}`);
	await page.waitForSelector("body[data-ready]");
	await page.click("#pay");
	return page;
}

async function eventsOf(p: { token: string; name: string }, issue: Issue) {
	return (await api<{ events: StoredEvent[] }>(worker.url, `/api/issues/${issue.group_hash}?project_name=${p.name}`, { token: p.token })).events;
}

/** What every event of the shop's error must show once symbolicated, whichever SDK sent it. */
function expectTheCodeAsWritten(expect: ExpectStatic, event: StoredEvent, build: string) {
	const frames = event.exception?.stacktrace?.frames ?? [];
	const crash = frames.at(-1);
	expect(crash, JSON.stringify(event.symbolication)).toMatchObject({
		filename: "src/checkout.ts",
		function: "requireItems",
		lineno: 12,
		colno: 9,
		in_app: true,
		context_line: '\t\tthrow new TypeError("cannot submit an empty cart");',
		pre_context: ["\titems: string[];", "}", "", "function requireItems(cart: Cart): boolean {", "\tif (cart.items.length === 0) {"],
		post_context: ["\t}", "\treturn true;", "}", "", "/** Validation calls back into the shop from inside a dependency (zod, under node_modules). */"],
	});
	// The frame as the browser reported it stays beside the mapped one.
	expect(crash?.minified).toMatchObject({ filename: `${shop.origin}/assets/app.js?build=${build}`, lineno: expect.any(Number), colno: expect.any(Number) });
	expect(crash?.minified?.function).not.toContain("requireItems");
	const app = frames.filter((frame) => frame.in_app);
	expect(app.map((frame) => [frame.filename, frame.function])).toEqual([
		["src/main.ts", undefined],
		["src/checkout.ts", "checkout"],
		["src/checkout.ts", "submitOrder"],
		["src/checkout.ts", "requireItems"],
	]);
	// zod's frames are the dependency's own: mapped, and not the app's.
	const dependency = frames.filter((frame) => frame.filename?.startsWith("node_modules/zod/"));
	expect(dependency.length).toBeGreaterThan(0);
	for (const frame of dependency) expect(frame.in_app).toBe(false);
	expect(event.symbolication).toMatchObject({ notes: [] });
	expect(event.symbolication?.mapped).toBe(event.symbolication?.frames);
}

describe("sentry-cli and @sentry/browser", () => {
	it("inject and upload succeed, and the issue shows the code as written; both builds are one issue", async ({ expect }) => {
		const p = await project("sentry-shop");
		for (const [buildName, release] of [
			["sentry-a", "shop@1.0.0"],
			["sentry-b", "shop@1.1.0"],
		]) {
			const dir = join(builds, buildName);
			const injected = await sentryCli(["sourcemaps", "inject", dir], { token: p.uploadToken, project: p.dsnId });
			expect(injected.code, injected.output).toBe(0);
			const uploaded = await sentryCli(["sourcemaps", "upload", "--release", release, "--url-prefix", "~/assets", dir], { token: p.uploadToken, project: p.dsnId });
			expect(uploaded.code, uploaded.output).toBe(0);
		}
		expect((await readFile(join(builds, "sentry-a", "app.js"), "utf8")).trimEnd()).toMatch(/\/\/# debugId=[0-9a-f-]{36}$/);
		const artifacts = await api<{ artifacts: Array<{ url: string; type: string; debug_id: string | null; release: string }> }>(
			worker.url,
			`/api/artifacts?project_name=${p.name}`,
			{ token: p.token },
		);
		expect(artifacts.artifacts.map((a) => [a.release, a.url, a.type]).sort()).toEqual([
			["shop@1.0.0", "~/assets/app.js", "minified_source"],
			["shop@1.0.0", "~/assets/app.js.map", "source_map"],
			["shop@1.1.0", "~/assets/app.js", "minified_source"],
			["shop@1.1.0", "~/assets/app.js.map", "source_map"],
		]);
		for (const artifact of artifacts.artifacts) expect(artifact.debug_id).toMatch(/^[0-9a-f-]{36}$/);

		// The pages give Sentry no release: the debug ids alone find the maps.
		const first = await clickPay({ sdk: "sentry", build: "sentry-a", dsn: p.dsn });
		await issuesOnceThereAre(expect, worker.url, p.token, p.name, 1);
		const second = await clickPay({ sdk: "sentry", build: "sentry-b", dsn: p.dsn });
		const issues = await issuesOnceThereAre(expect, worker.url, p.token, p.name, 2);
		await Promise.all([first.close(), second.close()]);

		expect(issues).toHaveLength(1);
		expect(issues[0]).toMatchObject({ title: "TypeError: cannot submit an empty cart", culprit: "requireItems (src/checkout.ts)", count: 2 });
		const events = await eventsOf(p, issues[0]);
		expect(events.map((event) => event.sdk.name)).toEqual(["sentry.javascript.browser", "sentry.javascript.browser"]);
		expectTheCodeAsWritten(expect, events[1], "sentry-a");
		expectTheCodeAsWritten(expect, events[0], "sentry-b");
		// The two builds named the same functions differently.
		const minifiedNames = events.map((event) => event.exception?.stacktrace?.frames.at(-1)?.minified?.function);
		expect(minifiedNames[0]).not.toBe(minifiedNames[1]);
	});

	it("is refused with a revoked token, and for another project, and says why", async ({ expect }) => {
		const p = await project("sentry-refused");
		const other = await project("sentry-other");
		const dir = join(builds, "sentry-a");

		const wrongProject = await sentryCli(["sourcemaps", "upload", "--release", "shop@1.0.0", dir], { token: p.uploadToken, project: other.dsnId });
		expect(wrongProject.code).toBe(1);
		expect(wrongProject.output).toContain(`This upload token is for project ${p.dsnId} (sentry-refused), not ${other.dsnId}`);

		await api(worker.url, `/api/upload-tokens/${p.uploadTokenId}`, { method: "DELETE", token: p.token });
		const revoked = await sentryCli(["sourcemaps", "upload", "--release", "shop@1.0.0", dir], { token: p.uploadToken, project: p.dsnId });
		expect(revoked.code).toBe(1);
		expect(revoked.output).toContain("Upload token is not valid: it was revoked, or never existed");

		for (const project of [p, other]) {
			const { artifacts } = await api<{ artifacts: unknown[] }>(worker.url, `/api/artifacts?project_name=${project.name}`, { token: project.token });
			expect(artifacts).toEqual([]);
		}
	});

	it("takes the release steps a CI or a bundler plugin runs, and refuses them for another project", async ({ expect }) => {
		const p = await project("sentry-releases");
		const other = await project("sentry-releases-other");
		const steps = [
			// The usual first check of a CI's settings: the server, and what the token may do.
			["info"],
			["releases", "new", "shop@2.0.0"],
			["releases", "finalize", "shop@2.0.0"],
			["releases", "info", "shop@2.0.0"],
			["releases", "list"],
			["releases", "set-commits", "shop@2.0.0", "--auto", "--ignore-missing"],
			["deploys", "new", "--release", "shop@2.0.0", "--env", "production"],
		];
		for (const args of steps) {
			const run = await sentryCli(args, { token: p.uploadToken, project: p.dsnId });
			expect(run.code, `${args.join(" ")}: ${run.output}`).toBe(0);
		}
		const wrongProject = await sentryCli(["releases", "new", "shop@2.0.0"], { token: p.uploadToken, project: other.dsnId });
		expect(wrongProject.code).toBe(1);
		expect(wrongProject.output).toContain(`This upload token is for project ${p.dsnId} (sentry-releases), not ${other.dsnId}`);
		const info = await sentryCli(["info"], { token: p.uploadToken, project: p.dsnId });
		expect(info.output).toMatch(/Scopes:\s+- project:releases/);
		const wrongToken = await sentryCli(["info"], { token: p.token, project: p.dsnId });
		expect(wrongToken.code).toBe(1);
		expect(wrongToken.output).toContain("Not an upload token");
	});
});

describe("the plain upload and @svcapp/logger", () => {
	it("the issue shows the code as written, found by release and URL; both builds are one issue", async ({ expect }) => {
		const p = await project("logger-shop");
		await plainUpload(p.uploadToken, "shop@1.0.0", "logger-a");
		await plainUpload(p.uploadToken, "shop@1.1.0", "logger-b");

		const first = await clickPay({ sdk: "logger", build: "logger-a", release: "shop@1.0.0", key: p.key, endpoint: worker.url });
		await issuesOnceThereAre(expect, worker.url, p.token, p.name, 1);
		const second = await clickPay({ sdk: "logger", build: "logger-b", release: "shop@1.1.0", key: p.key, endpoint: worker.url });
		const issues = await issuesOnceThereAre(expect, worker.url, p.token, p.name, 2);
		await Promise.all([first.close(), second.close()]);

		expect(issues).toHaveLength(1);
		expect(issues[0]).toMatchObject({ title: "TypeError: cannot submit an empty cart", culprit: "requireItems (src/checkout.ts)", count: 2 });
		const events = await eventsOf(p, issues[0]);
		expect(events.map((event) => [event.sdk.name, event.release])).toEqual([
			["@svcapp/logger", "shop@1.1.0"],
			["@svcapp/logger", "shop@1.0.0"],
		]);
		expectTheCodeAsWritten(expect, events[1], "logger-a");
		expectTheCodeAsWritten(expect, events[0], "logger-b");
	});

	it("the same code run by a Node service is the page's issue: its frames group with the mapped ones", async ({ expect }) => {
		const p = await project("logger-node-and-page");
		await plainUpload(p.uploadToken, "shop@1.0.0", "logger-a");
		const page = await clickPay({ sdk: "logger", build: "logger-a", release: "shop@1.0.0", key: p.key, endpoint: worker.url });
		await issuesOnceThereAre(expect, worker.url, p.token, p.name, 1);
		const node = spawn(process.execPath, [join(FIXTURES, "node", "main.mjs")], { env: { ...process.env, SVC_KEY: p.key, SVC_ENDPOINT: worker.url } });
		let stderr = "";
		node.stderr.on("data", (chunk) => (stderr += chunk));
		expect(await new Promise((resolve) => node.on("close", resolve)), stderr).toBe(1);
		const issues = await issuesOnceThereAre(expect, worker.url, p.token, p.name, 2);
		await page.close();

		expect(issues).toHaveLength(1);
		expect(issues[0]).toMatchObject({
			title: "TypeError: cannot submit an empty cart",
			count: 2,
			// The culprit is the latest event's: Node's frame, named as V8 names it.
			culprit: expect.stringMatching(/^(?:Object\.)?requireItems(?: \[as fn\])? \(.*src\/checkout\.ts\)$/),
		});
		const events = Object.fromEntries((await eventsOf(p, issues[0])).map((event) => [event.platform ?? "", event]));
		expectTheCodeAsWritten(expect, events.javascript, "logger-a");
		// Node ran the TypeScript itself: the same files, by their paths on disk, with no map at all.
		const nodeFrames = events.node.exception?.stacktrace?.frames.filter((frame) => frame.in_app) ?? [];
		expect(nodeFrames.map((frame) => [frame.filename?.split("/").slice(-2).join("/"), frame.function])).toEqual([
			["node/main.mjs", "Timeout._onTimeout"],
			["src/checkout.ts", "checkout"],
			["src/checkout.ts", "submitOrder"],
			["src/checkout.ts", "Object.requireItems [as fn]"],
		]);
		expect(events.node.symbolication).toBeUndefined();
	});

	it("with sentry-cli's debug ids, maps are found without a release", async ({ expect }) => {
		const p = await project("logger-debug-ids");
		const dir = join(builds, "injected-a");
		for (const args of [["sourcemaps", "inject", dir], ["sourcemaps", "upload", "--url-prefix", "~/assets", dir]]) {
			const run = await sentryCli(args, { token: p.uploadToken, project: p.dsnId });
			expect(run.code, run.output).toBe(0);
		}
		const page = await clickPay({ sdk: "logger", build: "injected-a", key: p.key, endpoint: worker.url });
		const [issue] = await issuesOnceThereAre(expect, worker.url, p.token, p.name, 1);
		await page.close();
		expect(issue).toMatchObject({ culprit: "requireItems (src/checkout.ts)" });
		const [event] = await eventsOf(p, issue);
		expect(event.release).toBeNull();
		expectTheCodeAsWritten(expect, event, "injected-a");
	});

	it("without maps, the two builds are two issues, each saying why it was not mapped", async ({ expect }) => {
		const p = await project("logger-unmapped");
		const first = await clickPay({ sdk: "logger", build: "logger-a", release: "shop@1.0.0", key: p.key, endpoint: worker.url });
		await issuesOnceThereAre(expect, worker.url, p.token, p.name, 1);
		const second = await clickPay({ sdk: "logger", build: "logger-b", release: "shop@1.1.0", key: p.key, endpoint: worker.url });
		const issues = await issuesOnceThereAre(expect, worker.url, p.token, p.name, 2);
		await Promise.all([first.close(), second.close()]);
		expect(issues).toHaveLength(2);
		const [event] = await eventsOf(p, issues[0]);
		expect(event.symbolication?.mapped).toBe(0);
		expect(event.symbolication?.notes).toEqual([expect.stringMatching(/^No source map for http:\/\/localhost:\d+\/assets\/app\.js\?build=logger-[ab] uploaded with release shop@1\.[01]\.0$/)]);
	});
});

