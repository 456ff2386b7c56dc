/**
 * What the end-to-end tests run against: the real Worker on the local runtime (wrangler's test
 * harness, the real wrangler.toml, the real D1 migrations), a static site on another origin
 * that embeds the tracker, and a headless Chromium driven by playwright-core (e2e/browser.ts).
 */
import { mkdir, readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, type ExpectStatic } from "vitest";
import { createTestHarness } from "wrangler";
// With their extensions: local-server's tests import this file under Node's own module resolution.
import { TRACKER_QUEUE } from "../console/src/trackerQueue.js";
import { launchBrowser } from "./browser.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/** A desktop Chrome user agent: headless chromium's own says "HeadlessChrome", which is a bot. */
export const DESKTOP_CHROME =
	"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

export async function startWorker() {
	// wrangler.toml serves the console's build as assets; the directory must exist even when the
	// console has not been built.
	await mkdir(join(ROOT, "console", "dist"), { recursive: true });
	const server = createTestHarness({ root: ROOT, workers: [{ configPath: "./wrangler.toml" }] });
	const { url } = await server.listen();
	await server.getWorker().applyD1Migrations("DB");
	return { url: url.href.replace(/\/$/, ""), server, close: () => server.close() };
}

/** What the tests use of the Worker's D1 binding (`worker.server.getWorker().getEnv()`). */
export type Database = { prepare(sql: string): { bind(...values: unknown[]): { run(): Promise<unknown> } } };

export async function api<T = any>(
	base: string,
	path: string,
	init: { method?: string; token?: string; json?: unknown; ip?: string } = {},
) {
	const res = await fetch(base + path, {
		method: init.method ?? (init.json === undefined ? "GET" : "POST"),
		headers: {
			...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
			// The local runtime takes the client IP from this header, as Cloudflare sets it.
			...(init.ip ? { "cf-connecting-ip": init.ip } : {}),
			...(init.json === undefined ? {} : { "content-type": "application/json" }),
		},
		body: init.json === undefined ? undefined : JSON.stringify(init.json),
	});
	const text = await res.text();
	if (!res.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${res.status} ${text}`);
	return (text ? JSON.parse(text) : null) as T;
}

/** An issue as `GET /api/issues` lists it. */
export interface Issue {
	group_hash: string;
	title: string;
	culprit: string | null;
	level: string;
	count: number;
}

/**
 * The project's issues once their events add up to `events`: SDKs send in the background, so this
 * waits for them (up to 20 s) and then checks the sum.
 */
export async function issuesOnceThereAre(expect: ExpectStatic, base: string, token: string, project: string, events: number): Promise<Issue[]> {
	const read = async () => (await api<{ issues: Issue[] }>(base, `/api/issues?project_name=${encodeURIComponent(project)}`, { token })).issues;
	const total = (issues: Issue[]) => issues.reduce((sum, issue) => sum + issue.count, 0);
	let issues = await read();
	for (let tries = 0; total(issues) < events && tries < 100; tries++) {
		await new Promise((resolve) => setTimeout(resolve, 200));
		issues = await read();
	}
	expect(total(issues), JSON.stringify(issues)).toBe(events);
	return issues;
}

/** A new owner signed up through the API (from address `ip`): their email and session token. */
export async function signUpOwner(url: string, name: string, ip: string): Promise<{ email: string; token: string }> {
	const email = `${name}-${Date.now()}@example.com`;
	const { token } = await api<{ token: string }>(url, "/api/auth/signup", { json: { email, password: "correct horse battery" }, ip });
	return { email, token };
}

let accounts = 0;
/**
 * A new owner with a site whose domain is `domain`. Each signs up from its own address, as
 * different owners do: one address may sign up 10 times an hour.
 */
export async function ownerWithSite(base: string, domain: string) {
	const n = accounts++;
	const { token } = await signUpOwner(base, `e2e-${n}`, `10.99.${Math.floor(n / 250)}.${(n % 250) + 1}`);
	const site = await api<{ tracking_id: string }>(base, "/api/sites", { token, json: { domain } });
	return { token, trackingId: site.tracking_id };
}

/** What a test site answers for a path: a file, or text made in the test, and any headers of its own. */
export type SitePage = { type: string; headers?: Record<string, string> } & ({ file: string } | { text: string });

/**
 * A site on its own origin: "localhost", while the Worker is reached on 127.0.0.1, so its pages
 * post to another origin as real sites do. `route` answers each request's URL; null is a 404.
 */
export async function serveSite(route: (url: URL) => SitePage | null | Promise<SitePage | null>): Promise<{ origin: string; close: () => Promise<void> }> {
	const server: Server = createServer(async (req, res) => {
		const page = await route(new URL(req.url ?? "/", "http://x"));
		if (!page) return res.writeHead(404).end();
		const body = "file" in page ? await readFile(page.file) : page.text;
		res.writeHead(200, { ...page.headers, "content-type": `${page.type}; charset=utf-8` }).end(body);
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	return { origin: `http://localhost:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/**
 * A single-page site on its own origin: every path answers the same page, which loads the
 * tracker from the Worker. `?id=` picks the tracking ID, so each test uses its own site.
 */
export function startSite(workerUrl: string) {
	return serveSite(({ searchParams: query }) => {
		const id = query.get("id") ?? "";
		// ?queue=1: calls made before the tracker loads, after the line the sites' cards give for them.
		const queue = query.has("queue")
			? `${TRACKER_QUEUE}
<script>svc.identify("early-user"); svc.track("early", { a: 1 });</script>`
			: "";
		// ?own=1: a site with a `svc` global of its own.
		const own = query.has("own") ? `<script>var svc = { api: "the site's own" };</script>` : "";
		// ?twice=1: the tag included twice, as a layout and a page template both adding it do.
		// ?hash=1: a hash-routed app's tag, with data-hash. ?sync=1: the tag without defer, run
		// before the body is parsed.
		// ?links=1: t.links.js, which counts clicks on outbound links and downloads (?links=plain: the
		// same links with t.js), and links of each kind to click: out (to the Worker's origin, another
		// host), a file, a page of the site.
		const script = query.get("links") === "1" ? "t.links.js" : "t.js";
		const tag = `<script${query.has("sync") ? "" : " defer"} src="${workerUrl}/${script}" data-id="${id}"${query.has("hash") ? " data-hash" : ""}></script>`;
		const links = query.has("links")
			? `<p><a id="out" href="${workerUrl}/partner/offer?ref=shop&token=secret#top"><span>Our partner</span></a>
<a id="file" href="/files/price-list.pdf?v=2" download>Price list</a> <a id="inside" href="#pricing">Pricing</a></p>`
			: "";
		// ?tall=1: a page 4,000 pixels tall, to scroll.
		const body = (query.has("tall") ? `<h1 style="height:4000px;margin:0">Test shop</h1>` : "<h1>Test shop</h1>") + links;
		const text = `<!doctype html>
<html><head><title>Test shop</title>${own}${queue}
${query.has("twice") ? tag + tag : tag}
</head><body style="margin:0">${body}</body></html>`;
		return { type: "text/html", text };
	});
}

/**
 * Chromium, headless. Unless `headlessUserAgent`, it presents itself as desktop Chrome at the
 * browser level: beacons sent while a page unloads leave from the browser process with its own
 * user agent, not a context's override, and headless chromium's own is a bot's.
 * `backForwardCache` keeps chromium's back/forward cache, which playwright turns off by default
 * and the headless shell build (the packaged one) leaves off unless `--enable-bfcache` asks.
 */
export function launchChromium({ headlessUserAgent = false, backForwardCache = false } = {}): Promise<Browser> {
	return launchBrowser({
		ignoreDefaultArgs: backForwardCache ? ["--disable-back-forward-cache"] : [],
		args: [
			...(backForwardCache ? ["--enable-bfcache"] : []),
			...(headlessUserAgent ? [] : [`--user-agent=${DESKTOP_CHROME}`]),
		],
	});
}

/** workerAndBrowser()'s stack and the test site that loads the tracker from that Worker (startSite): the tracker tests'. */
export function workerSiteAndBrowser(): {
	readonly worker: Awaited<ReturnType<typeof startWorker>>;
	readonly site: Awaited<ReturnType<typeof startSite>>;
	readonly browser: Browser;
} {
	const started = {} as { worker: Awaited<ReturnType<typeof startWorker>>; site: Awaited<ReturnType<typeof startSite>>; browser: Browser };
	beforeAll(async () => {
		[started.worker, started.browser] = await Promise.all([startWorker(), launchChromium()]);
		started.site = await startSite(started.worker.url);
	});
	afterAll(async () => {
		await started.browser?.close();
		await started.site?.close();
		await started.worker?.close();
	});
	return started;
}

/** A Worker and a Chromium for one file's tests: started before the first, closed after the last. */
export function workerAndBrowser(): { readonly worker: Awaited<ReturnType<typeof startWorker>>; readonly browser: Browser } {
	const started = {} as { worker: Awaited<ReturnType<typeof startWorker>>; browser: Browser };
	beforeAll(async () => {
		[started.worker, started.browser] = await Promise.all([startWorker(), launchChromium()]);
	});
	afterAll(async () => {
		await started.browser?.close();
		await started.worker?.close();
	});
	return started;
}
