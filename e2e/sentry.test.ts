import { execFile, spawn } from "node:child_process";
import { rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import SentryCli from "@sentry/cli";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, it } from "vitest";
import { BROWSER_OUTPUT } from "../clients/logger/build.mjs";
import { launchBrowser } from "./browser";
import { api, type Issue, issuesOnceThereAre, ownerWithSite, type SitePage, serveSite, startWorker } from "./stack";

/**
 * The official Sentry SDKs from the npm registry against the real Worker, changed only in their
 * DSN: @sentry/node in a Node process, @sentry/browser in a page (e2e/fixtures/sentry), and
 * sentry-cli's send-event as a deploy script runs it.
 */
const HERE = dirname(fileURLToPath(import.meta.url));
const FIXTURES = join(HERE, "fixtures", "sentry");
const LOGGER_FIXTURES = join(HERE, "fixtures", "logger");
const NODE_PARITY = join(HERE, "fixtures", "node-parity");

let worker: Awaited<ReturnType<typeof startWorker>>;
let shop: { origin: string; close: () => Promise<void> };
let browser: Browser;

/** @sentry/browser bundled into one script that sets `window.Sentry`, as a CDN bundle would. */
async function sentryBrowserBundle(): Promise<string> {
	const result = await build({ entryPoints: [join(FIXTURES, "browser-sdk.mjs")], bundle: true, format: "iife", write: false, logLevel: "silent" });
	return result.outputFiles[0].text;
}

/** The shop's pages on their own origin; pages with `@svcapp/logger` come from its own e2e fixtures. */
async function startShop(): Promise<typeof shop> {
	const sentryBundle = await sentryBrowserBundle();
	const files: Record<string, SitePage> = {
		"/": { file: join(FIXTURES, "page.html"), type: "text/html" },
		"/parity": { file: join(FIXTURES, "parity.html"), type: "text/html" },
		"/shop.js": { file: join(FIXTURES, "shop.js"), type: "text/javascript" },
		"/logger": { file: join(LOGGER_FIXTURES, "page.html"), type: "text/html" },
		"/orders.js": { file: join(LOGGER_FIXTURES, "orders.js"), type: "text/javascript" },
		"/svc-logger.browser.js": { file: BROWSER_OUTPUT, type: "text/javascript" },
		"/sentry-browser.js": { text: sentryBundle, type: "text/javascript" },
	};
	return serveSite(({ pathname }) => files[pathname] ?? null);
}

beforeAll(async () => {
	[worker, shop, browser] = await Promise.all([startWorker(), startShop(), launchBrowser()]);
});

afterAll(async () => {
	await browser?.close();
	await shop?.close();
	await worker?.close();
});

/** A new owner and a project key for `project`, with the DSN the key answer carries. */
async function project(name: string) {
	const { token } = await ownerWithSite(worker.url, "shop.example");
	const created = await api<{ raw_api_key: string; dsn: string }>(worker.url, "/api/feedback-key", { token, json: { project_name: name } });
	return { token, name, key: created.raw_api_key, dsn: created.dsn };
}

interface StoredException {
	type: string | null;
	value: string | null;
	stacktrace: { frames: { module?: string; function?: string; filename?: string; context_line?: string; in_app?: boolean }[] } | null;
}

interface StoredEvent {
	level: string;
	platform: string;
	sdk: { name: string | null; version: string | null };
	tags: Record<string, string>;
	user: Record<string, string> | null;
	contexts: Record<string, Record<string, unknown>>;
	breadcrumbs: { category?: string; message?: string }[];
	request: { url?: string } | null;
	exception: StoredException | null;
	chained_exceptions: (StoredException & { mechanism?: { source?: string } })[];
}

async function eventsOf(p: { token: string; name: string }, issue: Issue) {
	return (await api<{ events: StoredEvent[] }>(worker.url, `/api/issues/${issue.group_hash}?project_name=${p.name}`, { token: p.token })).events;
}

/** Runs a Node service of the fixtures to its end, with `env` added to this process's. */
function runNode(file: string, env: Record<string, string>) {
	const child = spawn(process.execPath, [file], { env: { ...process.env, ...env } });
	let stderr = "";
	child.stderr.on("data", (chunk) => (stderr += chunk));
	return new Promise<{ code: number | null; stderr: string }>((resolve) => child.on("close", (code) => resolve({ code, stderr })));
}

const byTitle = (issues: Issue[], title: string | RegExp) => issues.filter((issue) => (typeof title === "string" ? issue.title === title : title.test(issue.title)));

describe("@sentry/node in a Node process", () => {
	it("past the key's window: what was stored, refused and dropped by the SDK adds up in the log outcomes", async ({ expect }) => {
		const p = await project("rate-limited");
		await api(worker.url, "/api/feedback-key", { token: p.token, method: "PATCH", json: { project_name: p.name, logs_rate_limit_per_minute: 2 } });
		const run = await runNode(join(FIXTURES, "rate-limited-app.mjs"), { SENTRY_DSN: p.dsn });
		expect(run.code, run.stderr).toBe(0);
		const outcomes = await api<{ totals: Record<string, number> }>(worker.url, `/api/log-outcomes?project_name=${p.name}&days=1`, { token: p.token });
		// Two stored; the next refused with 429 and X-Sentry-Rate-Limits, and the rest never sent (the
		// SDK's backoff) but those it had sent before that answer came, refused too: six in all.
		const { accepted, rate_limited, client_discard, ...others } = outcomes.totals;
		expect({ accepted, others }).toEqual({ accepted: 2, others: { filtered: 0, invalid: 0, over_issue_cap: 0 } });
		expect(rate_limited).toBeGreaterThanOrEqual(1);
		expect(client_discard).toBeGreaterThanOrEqual(1);
		expect(rate_limited + client_discard).toBe(4);
	});


	it("captureFeedback with a screenshot attached lands in the feedback inbox with the image", async ({ expect }) => {
		const p = await project("feedback-service");
		const run = await runNode(join(FIXTURES, "feedback-app.mjs"), { SENTRY_DSN: p.dsn });
		expect(run.code, run.stderr).toBe(0);
		const { feedback } = await api<{ feedback: Array<{ data: Record<string, unknown>; attachments: Array<{ content_type: string; url: string }> }> }>(
			worker.url,
			`/api/feedback?project_name=${p.name}`,
			{ token: p.token },
		);
		expect(feedback).toHaveLength(1);
		expect(feedback[0].data).toMatchObject({ title: "The chart is empty", email: "ana@example.com", name: "Ana", page_url: "https://shop.example/reports" });
		expect(feedback[0].attachments.map((a) => a.content_type)).toEqual(["image/png"]);
		const image = await fetch(new URL(feedback[0].attachments[0].url, worker.url), { headers: { authorization: `Bearer ${p.token}` } });
		expect(image.headers.get("content-type")).toBe("image/png");
		expect(Buffer.from(await image.arrayBuffer()).subarray(1, 4).toString()).toBe("PNG");
	});

	it("captureException, captureMessage, chained errors, breadcrumbs, user and tags arrive and group", async ({ expect }) => {
		const p = await project("node-service");
		const child = spawn(process.execPath, [join(FIXTURES, "node-app.mjs")], { env: { ...process.env, SENTRY_DSN: p.dsn } });
		let output = "";
		child.stdout.on("data", (chunk) => (output += chunk));
		child.stderr.on("data", (chunk) => (output += chunk));
		const code = await new Promise((resolve) => child.on("close", resolve));
		expect(code, output).toBe(0);

		// Two events of one bug, a message, one wrapper around two causes, and the gzip-compressed one.
		const issues = await issuesOnceThereAre(expect, worker.url, p.token, p.name, 6);
		expect(issues).toHaveLength(5);
		const [card] = byTitle(issues, /^TypeError: card declined for order (101|202)$/);
		expect(card).toMatchObject({ count: 2, level: "error", culprit: expect.stringMatching(/^chargeCard \(.*node-app\.mjs\)$/) });
		expect(byTitle(issues, "Payment provider is slow")).toMatchObject([{ level: "warning", count: 1 }]);
		expect(byTitle(issues, "Error: Could not load the order")).toHaveLength(2);
		expect(byTitle(issues, "RangeError: report too large")).toMatchObject([{ count: 1 }]);

		const [event] = await eventsOf(p, card);
		expect(event).toMatchObject({
			platform: "node",
			sdk: { name: "sentry.javascript.node", version: expect.stringMatching(/^\d+\.\d+\.\d+/) },
			tags: { side: "server" },
			user: { id: "node-user", email: "buyer@example.com" },
		});
		expect(event.breadcrumbs).toContainEqual(expect.objectContaining({ category: "cart", message: "added 3 items" }));

		const causes = await Promise.all(byTitle(issues, "Error: Could not load the order").map(async (issue) => (await eventsOf(p, issue))[0].chained_exceptions));
		expect(causes.map(([cause]) => `${cause.type}: ${cause.value}`).sort()).toEqual([
			"Error: connect ECONNREFUSED 10.0.0.5:5432",
			"SyntaxError: Unexpected token < in JSON at position 0",
		]);
		expect(causes[0][0].mechanism).toMatchObject({ source: "cause" });
	});
});

describe("raven (raven-node), the Node client before @sentry/node", () => {
	it("posts compressed, base64-encoded events to the store endpoint: captured, uncaught and a message arrive and group", async ({ expect }) => {
		const p = await project("raven-service");
		const run = await runNode(join(FIXTURES, "raven-app.cjs"), { SENTRY_DSN: p.dsn });
		expect(run.code, run.stderr).toBe(1);
		expect(run.stderr).toContain("TypeError: card declined for order 303");

		// The same bug twice from one place is one issue (titled by whichever of its events came last, as
		// raven sends both at once); uncaught from a timer, its own.
		const issues = await issuesOnceThereAre(expect, worker.url, p.token, p.name, 4);
		expect(issues.map(({ title, level, count }) => [title.replace(/ (?:101|202)$/, " 101 or 202"), level, count]).sort()).toEqual([
			["Payment provider is slow", "warning", 1],
			["TypeError: card declined for order 101 or 202", "error", 2],
			["TypeError: card declined for order 303", "fatal", 1],
		]);
		const [card] = byTitle(issues, /^TypeError: card declined for order (?:101|202)$/);
		expect(card.culprit).toMatch(/^chargeCard \(.*raven-app\.cjs\)$/);
		const [event] = await eventsOf(p, card);
		// raven sends no `sdk`: it is the client X-Sentry-Auth names, as Sentry reads it.
		expect(event).toMatchObject({ platform: "node", release: "shop@1.0.0", environment: "e2e", sdk: { name: "raven-node", version: expect.stringMatching(/^2\./) }, tags: { side: "server" }, user: { id: "raven-user" } });
	});
});

describe("@sentry/node and @svcapp/logger in Node processes", () => {
	const appFrames = (frames: NonNullable<StoredException["stacktrace"]>["frames"] = []) => frames.filter((frame) => frame.in_app).map(({ filename, module, function: fn, context_line }) => ({ filename, module, function: fn, context_line }));

	it("group the same bugs as one issue each, as Sentry groups them: a crash, a chained error, a message with its stack", async ({ expect }) => {
		const p = await project("node-parity");
		const [sentry, logger] = await Promise.all([
			runNode(join(NODE_PARITY, "sentry-app.mjs"), { SENTRY_DSN: p.dsn }),
			runNode(join(NODE_PARITY, "logger-app.mjs"), { SVC_KEY: p.key, SVC_ENDPOINT: worker.url }),
		]);
		for (const run of [sentry, logger]) {
			expect(run.code, run.stderr).toBe(1);
			expect(run.stderr).toContain("TypeError: cannot submit order 7: the cart is empty");
		}

		const issues = await issuesOnceThereAre(expect, worker.url, p.token, p.name, 6);
		expect(issues.map(({ title, count }) => [title, count]).sort()).toEqual([
			["Error: Could not load the order", 2],
			["TypeError: cannot submit order 7: the cart is empty", 2],
			["stock low for A-1", 2],
		]);
		const culprits = Object.fromEntries(issues.map((issue) => [issue.title, issue.culprit]));
		expect(culprits).toEqual({
			"TypeError: cannot submit order 7: the cart is empty": expect.stringMatching(/^submitOrder \(.*\/node-parity\/lib\/shop\.mjs\)$/),
			"Error: Could not load the order": expect.stringMatching(/^loadOrder \(.*\/node-parity\/lib\/shop\.mjs\)$/),
			"stock low for A-1": expect.stringMatching(/^warnLowStock \(.*\/node-parity\/lib\/shop\.mjs\)$/),
		});

		// Each issue holds one event of each SDK, whose in-app frames say the same: file, module (named
		// from the services' folder), function and line of source; so each event's culprit is the issue's.
		for (const issue of issues) {
			const events = await eventsOf(p, issue);
			expect(events.map((event) => event.sdk.name).sort()).toEqual(["@svcapp/logger", "sentry.javascript.node"]);
			const [first, second] = events.map((event) => [...event.chained_exceptions, event.exception].map((exception) => appFrames(exception?.stacktrace?.frames)));
			expect(first.flat().length).toBeGreaterThanOrEqual(2);
			expect(first.flat().every((frame) => frame.module === "lib:shop" && frame.context_line)).toBe(true);
			expect(second).toEqual(first);
		}
	});
});

describe("@sentry/browser in a page", () => {
	it("an uncaught error, captureMessage, a chained error, breadcrumbs, user and tags arrive and group", async ({ expect }) => {
		const p = await project("web-shop");
		const context = await browser.newContext();
		const page = await context.newPage();
		await page.goto(`${shop.origin}/?dsn=${encodeURIComponent(p.dsn)}`);
		// The same uncaught bug twice, with other events between (the SDK drops an exact repeat of the last one).
		await page.click("#pay");
		await page.click("#report");
		await page.click("#pay");

		const issues = await issuesOnceThereAre(expect, worker.url, p.token, p.name, 4);
		await context.close();
		expect(issues).toHaveLength(3);
		const [uncaught] = byTitle(issues, "TypeError: Cannot read properties of undefined (reading 'total')");
		expect(uncaught).toMatchObject({ count: 2, culprit: expect.stringContaining("/shop.js)") });
		expect(byTitle(issues, "Payment provider is slow")).toMatchObject([{ level: "warning", count: 1 }]);
		const [chained] = byTitle(issues, "Error: Could not load the order");

		const [event] = await eventsOf(p, uncaught);
		expect(event).toMatchObject({ platform: "javascript", sdk: { name: "sentry.javascript.browser" }, tags: { side: "browser" }, user: { id: "browser-user" } });
		// The page's address carries its DSN, whose key is filtered as this service's secrets are.
		expect(event.request?.url).toBe(`${shop.origin}/?dsn=${encodeURIComponent(p.dsn).replace(p.key, "[Filtered]")}`);
		// What Relay adds: the address of a user who opted in (sendDefaultPii), the browser and OS of the User-Agent.
		expect(event.user?.ip_address).toBe("127.0.0.1");
		const chromeVersion = browser.version().split(".").slice(0, 3).join(".");
		expect(event.contexts).toMatchObject({ browser: { name: expect.stringMatching(/Chrome/), version: chromeVersion }, os: { name: expect.any(String) } });
		expect(event.breadcrumbs).toContainEqual(expect.objectContaining({ category: "cart", message: "added 3 items" }));
		expect(event.breadcrumbs).toContainEqual(expect.objectContaining({ category: "ui.click" }));
		const [chainEvent] = await eventsOf(p, chained);
		expect(chainEvent.chained_exceptions).toMatchObject([{ type: "Error", value: "network down", mechanism: { source: "cause" } }]);
	});
});

describe("one bug in code shared by a Node service and a page", () => {
	it("is one issue with the right culprit from @sentry/node, @sentry/browser and @svcapp/logger in both", async ({ expect }) => {
		const p = await project("shared-code");
		const [sentryNode, loggerNode] = await Promise.all([
			runNode(join(FIXTURES, "orders-node-app.mjs"), { SENTRY_DSN: p.dsn }),
			runNode(join(LOGGER_FIXTURES, "node-app.js"), { SVC_KEY: p.key, SVC_ENDPOINT: worker.url }),
		]);
		for (const run of [sentryNode, loggerNode]) {
			expect(run.code, run.stderr).toBe(1);
			expect(run.stderr).toContain("TypeError: cannot submit an empty cart");
		}
		const context = await browser.newContext();
		const [sentryPage, loggerPage] = await Promise.all([context.newPage(), context.newPage()]);
		await sentryPage.goto(`${shop.origin}/parity?dsn=${encodeURIComponent(p.dsn)}`);
		await loggerPage.goto(`${shop.origin}/logger?crash=1&key=${p.key}&endpoint=${encodeURIComponent(worker.url)}`);

		const issues = await issuesOnceThereAre(expect, worker.url, p.token, p.name, 4);
		await context.close();
		expect(issues).toHaveLength(1);
		expect(issues[0]).toMatchObject({ title: "TypeError: cannot submit an empty cart", count: 4, culprit: expect.stringMatching(/^submitOrder \(.*\/orders\.js\)$/) });
		const events = await eventsOf(p, issues[0]);
		expect(events.map((event) => `${event.platform} ${event.sdk.name}`).sort()).toEqual([
			"javascript @svcapp/logger",
			"javascript sentry.javascript.browser",
			"node @svcapp/logger",
			"node sentry.javascript.node",
		]);
		// The same two frames of orders.js in each, told apart by what only Node adds: a module and lines of source.
		for (const event of events) {
			const frames = event.exception?.stacktrace?.frames.filter((frame) => frame.in_app && frame.filename?.endsWith("/orders.js")) ?? [];
			expect(frames.map((frame) => frame.function?.replace(/^Timeout\.| \[as _onTimeout\]$/g, ""))).toEqual(["checkout", "submitOrder"]);
			expect(frames.every((frame) => Boolean(frame.module && frame.context_line))).toBe(event.platform === "node");
		}
	});
});

/** `sentry-cli send-event` from the npm registry, with the project's DSN as a script would give it. */
function sendEvent(dsn: string, args: string[]): Promise<{ code: number; output: string }> {
	return new Promise((resolve) => {
		execFile(SentryCli.getPath(), ["send-event", "--no-environ", ...args], { env: { ...process.env, SENTRY_DSN: dsn, SENTRY_DISABLE_UPDATE_CHECK: "true" } }, (error, stdout, stderr) =>
			resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }),
		);
	});
}

describe("sentry-cli send-event", () => {
	it("a message with level, tags, release and environment, and events from files sent --raw, each stored", async ({ expect }) => {
		const p = await project("deploy-scripts");
		const sent = await sendEvent(p.dsn, ["-m", "Deploy failed on host web-3", "--level", "fatal", "-t", "stage:deploy", "--release", "deploy@5.0.0", "--env", "production"]);
		expect(sent.code, sent.output).toBe(0);
		// --raw sends each file as it is, every one with the nil UUID as the envelope's event_id.
		for (const message of ["Backup of db1 failed", "Certificate expires soon"]) {
			const file = join(tmpdir(), `svc-raw-event-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
			await writeFile(file, JSON.stringify({ level: "warning", message }));
			const raw = await sendEvent(p.dsn, ["--raw", file]);
			await rm(file);
			expect(raw.code, raw.output).toBe(0);
		}
		const issues = await issuesOnceThereAre(expect, worker.url, p.token, p.name, 3);
		expect(issues.map(({ title, level }) => [title, level]).sort()).toEqual([
			["Backup of db1 failed", "warning"],
			["Certificate expires soon", "warning"],
			["Deploy failed on host web-3", "fatal"],
		]);
		const [event] = await eventsOf(p, byTitle(issues, "Deploy failed on host web-3")[0]);
		expect(event).toMatchObject({ sdk: { name: "sentry-cli" }, tags: { stage: "deploy" }, release: "deploy@5.0.0", environment: "production" });
	});
});
