import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, it } from "vitest";
import { BROWSER_OUTPUT } from "../clients/logger/build.mjs";
import { launchBrowser } from "./browser";
import { api, issuesOnceThereAre, ownerWithSite, type SitePage, serveSite, startWorker } from "./stack";

/**
 * @svcapp/logger against the real Worker: the same bug thrown in a Node process and in a browser
 * page (e2e/fixtures/logger), each reported by the SDK's own uncaught-error hooks.
 */
const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "logger");

let worker: Awaited<ReturnType<typeof startWorker>>;
let shop: Awaited<ReturnType<typeof startShop>>;
let browser: Browser;

/** The shop's pages on their own origin: the page, the shared orders.js, the SDK's browser build. */
function startShop() {
	const files: Record<string, SitePage> = {
		"/": { file: join(FIXTURES, "page.html"), type: "text/html" },
		"/orders.js": { file: join(FIXTURES, "orders.js"), type: "text/javascript" },
		"/svc-logger.browser.js": { file: BROWSER_OUTPUT, type: "text/javascript" },
	};
	// Any other path is the page the shop navigates to when it is left.
	return serveSite(({ pathname }) => files[pathname] ?? { type: "text/html", text: "<!doctype html><title>Next</title><p>Next page</p>" });
}

beforeAll(async () => {
	[worker, shop, browser] = await Promise.all([startWorker(), startShop(), launchBrowser()]);
});

afterAll(async () => {
	await browser?.close();
	await shop?.close();
	await worker?.close();
});

/** A new owner with a project key for `project`. */
async function projectKey(project: string) {
	const { token } = await ownerWithSite(worker.url, "shop.example");
	const { raw_api_key: key } = await api<{ raw_api_key: string }>(worker.url, "/api/feedback-key", { token, json: { project_name: project } });
	return { token, key };
}

function runNodeApp(key: string) {
	const child = spawn(process.execPath, [join(FIXTURES, "node-app.js")], {
		env: { ...process.env, SVC_ENDPOINT: worker.url, SVC_KEY: key },
	});
	let stderr = "";
	child.stderr.on("data", (chunk) => (stderr += chunk));
	return new Promise<{ code: number | null; stderr: string }>((resolve) => child.on("close", (code) => resolve({ code, stderr })));
}

interface StoredEvent {
	platform: string;
	sdk: { name: string | null; version: string | null };
	level: string;
	tags: Record<string, string>;
	user: { id?: string } | null;
	breadcrumbs: { category?: string; message?: string }[];
	request: { url?: string; headers: Record<string, string> } | null;
	exception: {
		type: string;
		value: string;
		stacktrace: { frames: { filename?: string; module?: string; function?: string; context_line?: string; in_app?: boolean }[] };
	} | null;
	message: string | null;
}

describe("@svcapp/logger against the Worker", () => {
	// In Node each frame carries its module and line of source, as @sentry/node's do; a page's frames
	// carry neither. JavaScript frames group by their source file and function, so the one bug is
	// one issue (and with @sentry/node and @sentry/browser too: e2e/sentry.test.ts).
	it("reports one bug thrown in a Node process and in a browser page as one issue with the right culprit", async ({ expect }) => {
		const { token, key } = await projectKey("shop");

		const node = await runNodeApp(key);
		expect(node.code).toBe(1);
		expect(node.stderr).toContain("TypeError: cannot submit an empty cart");

		const context = await browser.newContext();
		const page = await context.newPage();
		const pageErrors: string[] = [];
		page.on("pageerror", (error) => pageErrors.push(error.message));
		await page.goto(`${shop.origin}/?crash=1&key=${key}&endpoint=${encodeURIComponent(worker.url)}`);

		const issues = await issuesOnceThereAre(expect, worker.url, token, "shop", 2);
		await context.close();
		expect(pageErrors).toEqual(["cannot submit an empty cart"]);
		expect(issues).toHaveLength(1);
		expect(issues[0]).toMatchObject({ title: "TypeError: cannot submit an empty cart", count: 2, culprit: expect.stringMatching(/^submitOrder \(.*\/orders\.js\)$/) });

		const { events } = await api<{ events: StoredEvent[] }>(worker.url, `/api/issues/${issues[0].group_hash}?project_name=shop`, { token });
		const byPlatform = Object.fromEntries(events.map((event) => [event.platform, event]));
		expect(Object.keys(byPlatform).sort()).toEqual(["javascript", "node"]);
		for (const [platform, side, user] of [
			["node", "server", "node-user"],
			["javascript", "browser", "browser-user"],
		]) {
			const event = byPlatform[platform];
			expect(event.tags).toMatchObject({ side });
			expect(event.sdk).toEqual({ name: "@svcapp/logger", version: "1.0.0" });
			expect(event.user).toEqual({ id: user });
			expect(event.breadcrumbs).toMatchObject([{ category: "console", message: "payment provider slow" }]);
			const appFrames = event.exception!.stacktrace.frames.filter((frame) => frame.in_app);
			expect(appFrames.map((frame) => [frame.function?.replace(/^Timeout\.| \[as _onTimeout\]$/g, ""), frame.filename?.split("/").pop()])).toEqual([
				["checkout", "orders.js"],
				["submitOrder", "orders.js"],
			]);
		}
		const sourceOf = (platform: string) => byPlatform[platform].exception!.stacktrace.frames.filter((frame) => frame.in_app).map(({ module, context_line }) => [module, context_line]);
		expect(sourceOf("node")).toEqual([
			["orders", "\t\tsubmitOrder(cart);"],
			["orders", expect.stringMatching(/^\t\tthrow new TypeError\("cannot submit an empty cart"/)],
		]);
		expect(sourceOf("javascript")).toEqual([
			[undefined, undefined],
			[undefined, undefined],
		]);
		expect(byPlatform.node.level).toBe("fatal");
		expect(byPlatform.javascript.level).toBe("error");
		expect(byPlatform.javascript.request?.url).toMatch(new RegExp(`^${shop.origin}/\\?crash=1`));
		expect(byPlatform.javascript.request?.headers["User-Agent"]).toMatch(/Chrome/);
	});

	it("delivers the events captured as the page is being left", async ({ expect }) => {
		const { token, key } = await projectKey("leaving");
		const context = await browser.newContext();
		const page = await context.newPage();
		await page.goto(`${shop.origin}/?key=${key}&endpoint=${encodeURIComponent(worker.url)}`);
		await Promise.all([page.waitForURL(`${shop.origin}/next`), page.click("#leave")]);
		await context.close();

		const [issue] = await issuesOnceThereAre(expect, worker.url, token, "leaving", 4);
		expect(issue).toMatchObject({ title: "left during checkout", count: 4 });
	});
});
