import type { Request } from "playwright-core";
import { describe, it } from "vitest";
import { api, launchChromium, ownerWithSite, workerSiteAndBrowser } from "./stack";
import { pauseClock, sends, setVisibility, trackerPages } from "./trackerPage";

const stack = workerSiteAndBrowser();
const { isCollect, newPage, open, storedEvents, eventsOnceThereAre } = trackerPages(() => stack);

describe("the tracker in chromium against the Worker", () => {
	it("records page views with SPA navigation, a custom event, identify and every _leave", async ({ expect }) => {
		const { token, trackingId } = await ownerWithSite(stack.worker.url, "localhost");
		const { context, page } = await newPage();
		const requests: Request[] = [];
		page.on("request", (request) => isCollect(request) && requests.push(request));

		expect(await open(page, trackingId)).toBe(204);
		await page.evaluate(() => history.pushState({}, "", "/pricing"));
		await page.evaluate(() => {
			const svc = (window as unknown as { svc: { track(n: string, d?: unknown): void; identify(id: string): void } }).svc;
			svc.track("signup", { plan: "pro" });
			svc.identify("user-42");
			// A query change through replaceState is the same page: no page view.
			history.replaceState({}, "", "/pricing?tab=yearly");
		});
		await page.evaluate(() => history.back()); // popstate back to "/"
		await page.waitForFunction(() => location.pathname === "/");
		await page.goto("about:blank"); // pagehide: the last _leave
		// (The context stays open until the beacons arrived: closing it would cancel them.)
		const events = await eventsOnceThereAre(expect, token, trackingId, 8);
		await context.close();
		const summary = events.map((e) => [e.name, e.url_path, e.seq, e.distinct_id]).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
		expect(summary).toEqual(
			[
				["", "/", 0, null],
				["_leave", "/", 1, null],
				["", "/pricing", 0, null],
				["signup", "/pricing", 1, null],
				["_identify", "/pricing", 2, "user-42"],
				["_leave", "/pricing", 3, "user-42"],
				["", "/", 0, "user-42"],
				["_leave", "/", 1, "user-42"],
			].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
		);
		for (const event of events) {
			expect(event).toMatchObject({ v: "2", url_host: "localhost", title: "Test shop", browser: "Chrome", os: "Linux", device: "desktop" });
			expect(event.screen).toMatch(/^\d+x\d+$/);
			expect(event.language).not.toBe("");
		}
		expect(new Set(events.map((e) => e.visitor_id)).size).toBe(1);
		expect(events.find((e) => e.name === "signup")!.data).toBe('{"plan":"pro"}');
		// Each page view's end reports its engagement: visible time and how deep the (short) page was seen.
		for (const leave of events.filter((e) => e.name === "_leave")) {
			expect(Number.isInteger(leave.engaged_ms)).toBe(true);
			expect(leave.engaged_ms).toBeGreaterThanOrEqual(0);
			expect(leave.scroll_depth).toBe(100);
			expect(leave.duration).toBeNull();
		}
		// The SPA page view names the page it came from; the first came from nowhere.
		const views = events.filter((e) => e.name === "");
		expect(views.find((e) => e.url_path === "/pricing")!.referrer).toBe(`${stack.site.origin}/?id=${trackingId}`);
		expect(views.find((e) => e.url_path === "/" && e.distinct_id === null)!.referrer).toBe("");
		// Endpoint next to the script's own src, JSON as text/plain. (The beacon sent while the page
		// unloads leaves from the browser process, where the page no longer sees it.)
		expect(requests.length).toBeGreaterThanOrEqual(7);
		for (const request of requests) {
			expect(request.headers()["content-type"]).toMatch(/^text\/plain/);
			expect(JSON.parse(request.postData()!).tracking_id).toBe(trackingId);
		}

		const stats = await api(stack.worker.url, `/api/sites/${trackingId}/stats`, { token });
		expect(stats).toMatchObject({ pageviews: 3, visitors: 1, sessions: 1, events: 1, identified_visitors: 1, bounce_rate: 0 });
		expect(stats.top_pages.map(({ time_on_page, ...page }: { time_on_page: number }) => page)).toEqual([
			{ path: "/", pageviews: 2, visitors: 1, scroll_depth: 100 },
			{ path: "/pricing", pageviews: 1, visitors: 1, scroll_depth: 100 },
		]);
		expect(stats.custom_events).toEqual([{ name: "signup", events: 1, visitors: 1 }]);
		expect(stats.top_referrers).toEqual([]);
	});

	it("reports engagement on every hide: the sum of both visible spells, never the hidden time, and the deepest scroll", async ({ expect }) => {
		const { token, trackingId } = await ownerWithSite(stack.worker.url, "localhost");
		const { context, page } = await newPage();
		await pauseClock(page);
		expect(await open(page, trackingId, "/essay?tall=1")).toBe(204);
		const viewport = page.viewportSize();
		expect(viewport).not.toBeNull();

		await page.clock.runFor(5_000);
		// A browser fires "scroll" once per frame; with the page's clock paused a frame may not come
		// between the two moves, so each move is followed by the event it would get.
		const scrollTo = (y: number) =>
			page.evaluate((top) => {
				window.scrollTo(0, top);
				window.dispatchEvent(new Event("scroll"));
			}, y);
		await scrollTo(2_000);
		await scrollTo(500); // back up: the deepest point stays
		await setVisibility(page, "hidden");
		await page.clock.runFor(60_000); // hidden: not engagement
		await setVisibility(page, "visible");
		await page.clock.runFor(7_000);
		await setVisibility(page, "hidden");
		await page.clock.runFor(1_000);
		await page.goto("about:blank"); // hidden already: nothing more to report

		const events = await eventsOnceThereAre(expect, token, trackingId, 3);
		await context.close();
		const reports = events.filter((e) => e.name === "_leave").sort((a, b) => a.seq - b.seq);
		const deepest = Math.round(((2_000 + (viewport?.height ?? 0)) / 4_000) * 100);
		expect(reports.map((e) => [e.url_path, e.engaged_ms, e.scroll_depth])).toEqual([
			["/essay", 5_000, deepest],
			["/essay", 7_000, deepest],
		]);
		const stats = await api(stack.worker.url, `/api/sites/${trackingId}/stats`, { token });
		expect(stats).toMatchObject({ pageviews: 1, sessions: 1, avg_duration: 12 });
		expect(stats.top_pages).toEqual([{ path: "/essay", pageviews: 1, visitors: 1, scroll_depth: deepest, time_on_page: 12 }]);
	});

	it("reports scroll depth as a share of the page's height when reported, not while the page was still short", async ({ expect }) => {
		const { token, trackingId } = await ownerWithSite(stack.worker.url, "localhost");
		const { context, page } = await newPage();
		const height = page.viewportSize()?.height ?? 0;
		// The tag without defer runs in the head, before the 4,000-pixel body is there.
		expect(await open(page, trackingId, "/essay?tall=1&sync=1")).toBe(204);
		// A single-page app's next view drawn after its pushState, as routers do: short, then 4,000 pixels.
		expect(await open(page, trackingId, "/start")).toBe(204);
		await page.evaluate(() => {
			history.pushState({}, "", "/drawn-later");
			document.querySelector("h1")?.setAttribute("style", "height:4000px;margin:0");
		});
		await page.goto("about:blank");
		const events = await eventsOnceThereAre(expect, token, trackingId, 6);
		await context.close();
		const depths = Object.fromEntries(events.filter((e) => e.name === "_leave").map((e) => [e.url_path, e.scroll_depth]));
		const unscrolled = Math.round((height / 4_000) * 100);
		expect(depths).toEqual({ "/essay": unscrolled, "/start": 100, "/drawn-later": unscrolled });
	});

	it("carries a glance under 3 seconds into the next report, and reports what is left when the page is closed", async ({ expect }) => {
		const { token, trackingId } = await ownerWithSite(stack.worker.url, "localhost");
		const { context, page } = await newPage();
		await pauseClock(page);
		expect(await open(page, trackingId, "/")).toBe(204);

		await page.clock.runFor(4_000);
		await setVisibility(page, "hidden"); // 4 s and the first depth: reported
		await setVisibility(page, "visible");
		await page.clock.runFor(1_000);
		await setVisibility(page, "hidden"); // 1 s, nothing deeper: kept for later
		await setVisibility(page, "visible");
		await page.clock.runFor(2_500);
		await setVisibility(page, "hidden"); // 1 + 2.5 s: reported
		await setVisibility(page, "visible");
		await page.clock.runFor(500);
		await page.goto("about:blank"); // the end: the last 0.5 s goes too

		const events = await eventsOnceThereAre(expect, token, trackingId, 4);
		await context.close();
		const reports = events.filter((e) => e.name === "_leave").sort((a, b) => a.seq - b.seq);
		expect(reports.map((e) => e.engaged_ms)).toEqual([4_000, 3_500, 500]);
	});

	it("counts a page shown again from the back/forward cache, and its second _leave", async ({ expect }) => {
		const { token, trackingId } = await ownerWithSite(stack.worker.url, "localhost");
		const cached = await launchChromium({ backForwardCache: true });
		try {
			const context = await cached.newContext();
			await context.addInitScript(() =>
				addEventListener("pageshow", (e) => {
					if (e.persisted) (window as unknown as { __restored: boolean }).__restored = true;
				}),
			);
			const page = await context.newPage();
			expect(await open(page, trackingId, "/")).toBe(204);
			expect(await open(page, trackingId, "/other")).toBe(204); // pagehide: "/" is left
			await page.goBack({ waitUntil: "commit" }); // a restored page fires no load event
			await page.waitForFunction(() => location.pathname === "/");
			// The page came back as it was, without loading (or running the tracker) again.
			expect(await page.evaluate(() => (window as unknown as { __restored?: boolean }).__restored)).toBe(true);
			await page.goto("about:blank");
			const events = await eventsOnceThereAre(expect, token, trackingId, 6);
			expect(events.map((e) => [e.name, e.url_path]).sort()).toEqual([
				["", "/"],
				["", "/"],
				["", "/other"],
				["_leave", "/"],
				["_leave", "/"],
				["_leave", "/other"],
			]);
		} finally {
			await cached.close();
		}
	});

	it("counts each view once when the page includes the tag twice, SPA navigation too", async ({ expect }) => {
		const { token, trackingId } = await ownerWithSite(stack.worker.url, "localhost");
		const { context, page } = await newPage();
		await page.goto(`${stack.site.origin}/?id=${trackingId}&twice=1`);
		await page.waitForFunction(() => (window as unknown as { __beacons: number }).__beacons >= 1);
		await page.evaluate(() => history.pushState({}, "", "/pricing"));
		await page.evaluate(() => (window as unknown as { svc: { track(n: string): void } }).svc.track("signup"));
		await page.goto("about:blank");
		// Waits for a possible straggler: more than the five expected would show here.
		await new Promise((resolve) => setTimeout(resolve, 500));
		const events = await eventsOnceThereAre(expect, token, trackingId, 5);
		await context.close();
		expect(events.map((e) => [e.name, e.url_path]).sort()).toEqual([
			["", "/"],
			["", "/pricing"],
			["_leave", "/"],
			["_leave", "/pricing"],
			["signup", "/pricing"],
		]);
	});

	it("replays calls queued before the script loaded, after the page view", async ({ expect }) => {
		const { token, trackingId } = await ownerWithSite(stack.worker.url, "localhost");
		const { context, page } = await newPage();
		await page.goto(`${stack.site.origin}/?id=${trackingId}&queue=1`);
		const events = await eventsOnceThereAre(expect, token, trackingId, 3);
		await context.close();
		expect(events.map((e) => [e.seq, e.name, e.distinct_id, e.data]).sort()).toEqual([
			[0, "", null, null],
			[1, "_identify", "early-user", null],
			[2, "early", "early-user", '{"a":1}'],
		]);
	});

	it("sends nothing from a prerendered page until it is shown: then the view, then the calls made meanwhile", async ({ expect }) => {
		const { token, trackingId } = await ownerWithSite(stack.worker.url, "localhost");
		const { context, page } = await newPage({
			init: () => Object.defineProperty(document, "prerendering", { get: () => !(window as unknown as { __shown?: boolean }).__shown, configurable: true }),
		});
		await page.goto(`${stack.site.origin}/thanks?id=${trackingId}&queue=1`);
		await page.waitForFunction(() => "svc" in window && !Array.isArray((window as unknown as { svc: { q?: unknown } }).svc.q));
		await page.evaluate(() => (window as unknown as { svc: { track(n: string): void } }).svc.track("signup"));
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(await sends(page)).toBe(0);
		await page.evaluate(() => {
			(window as unknown as { __shown: boolean }).__shown = true;
			document.dispatchEvent(new Event("prerenderingchange"));
		});
		const events = await eventsOnceThereAre(expect, token, trackingId, 4);
		await context.close();
		expect(events.map((e) => [e.seq, e.name, e.url_path]).sort()).toEqual([
			[0, "", "/thanks"],
			[1, "_identify", "/thanks"],
			[2, "early", "/thanks"],
			[3, "signup", "/thanks"],
		]);
	});

	it("leaves a site's own svc alone, sends no nameless event, counts hash routes with data-hash and reads paths decoded", async ({ expect }) => {
		const { token, trackingId } = await ownerWithSite(stack.worker.url, "localhost");
		const { context, page } = await newPage();
		expect(await open(page, trackingId, "/own?own=1")).toBe(204);
		expect(await page.evaluate(() => (window as unknown as { svc: { api: string } }).svc.api)).toBe("the site's own");
		expect(await open(page, trackingId, "/app/?hash=1")).toBe(204);
		await page.evaluate(() => {
			const svc = (window as unknown as { svc: { track(n?: unknown): void } }).svc;
			svc.track();
			svc.track(null);
			location.hash = "#/inbox";
		});
		await page.waitForFunction(() => (window as unknown as { __beacons: number }).__beacons >= 3);
		await page.evaluate(() => history.pushState({}, "", "/intl/größe café"));
		await page.goto("about:blank");
		const events = await eventsOnceThereAre(expect, token, trackingId, 8);
		await context.close();
		expect(events.filter((e) => e.name !== "_leave").map((e) => e.url_path).sort()).toEqual(["/app/", "/app/inbox", "/intl/größe café", "/own"]);
	});

	it("with data-hash, a query inside the hash route is the same page and no part of its path", async ({ expect }) => {
		const { token, trackingId } = await ownerWithSite(stack.worker.url, "localhost");
		const { context, page } = await newPage();
		expect(await open(page, trackingId, "/app/?hash=1")).toBe(204);
		await page.evaluate(() => {
			location.hash = "#/reset?token=s3cr3t";
		});
		await page.waitForFunction(() => (window as unknown as { __beacons: number }).__beacons >= 3);
		await page.evaluate(() => {
			location.hash = "#/reset?token=other";
		});
		await page.goto("about:blank");
		const events = await eventsOnceThereAre(expect, token, trackingId, 4);
		await context.close();
		expect(events.map((e) => [e.name, e.url_path]).sort()).toEqual([
			["", "/app/"],
			["", "/app/reset"],
			["_leave", "/app/"],
			["_leave", "/app/reset"],
		]);
	});

	it("caps names at 100 characters, data beyond 6,000 characters to {}, and sends at most 30 events per 10 seconds", async ({ expect }) => {
		const { token, trackingId } = await ownerWithSite(stack.worker.url, "localhost");
		const { context, page } = await newPage();
		await open(page, trackingId);
		const sent = await page.evaluate(() => {
			const svc = (window as unknown as { svc: { track(n: string, d?: unknown): void } }).svc;
			svc.track("n".repeat(150));
			svc.track("big", { s: "x".repeat(6_000) });
			svc.track("fits", { s: "x".repeat(5_990) });
			svc.track(`${"e".repeat(99)}😀`); // the emoji straddles the cut: left out whole
			for (let i = 0; i < 40; i++) svc.track(`burst-${i}`);
			return (window as unknown as { __beacons: number }).__beacons;
		});
		// The page view, the four above and 25 of the 40: the 31st and later were never sent.
		expect(sent).toBe(30);
		// All 30 arrive although they left at once (beyond the browser's beacon quota).
		const events = await eventsOnceThereAre(expect, token, trackingId, 30);
		await context.close();
		expect(events.find((e) => e.name.startsWith("n"))!.name).toBe("n".repeat(100));
		expect(events.find((e) => e.name === "big")!.data).toBe("{}");
		expect(events.find((e) => e.name === "fits")!.data).toBe(JSON.stringify({ s: "x".repeat(5_990) }));
		expect(events.find((e) => e.name.startsWith("e"))!.name).toBe("e".repeat(99));
		expect(events.filter((e) => e.name.startsWith("burst-"))).toHaveLength(25);
		expect(events.some((e) => e.name === "burst-25")).toBe(false);
	});

	it("falls back to fetch with keepalive when the browser refuses the beacon, on leaving too", async ({ expect }) => {
		const { token, trackingId } = await ownerWithSite(stack.worker.url, "localhost");
		const { context, page } = await newPage({ init: () => (navigator.sendBeacon = () => false) });
		expect(await open(page, trackingId)).toBe(204);
		expect(await page.evaluate(() => (window as unknown as { __fetches: number }).__fetches)).toBe(1);
		await page.goto("about:blank");
		const events = await eventsOnceThereAre(expect, token, trackingId, 2);
		await context.close();
		expect(events.map((e) => [e.name, e.url_path, e.seq]).sort()).toEqual([
			["", "/", 0],
			["_leave", "/", 1],
		]);
	});

	it("names each event with an id of its own where the browser has no crypto.randomUUID", async ({ expect }) => {
		const { token, trackingId } = await ownerWithSite(stack.worker.url, "localhost");
		const { context, page } = await newPage({ init: () => Object.defineProperty(Crypto.prototype, "randomUUID", { value: undefined }) });
		expect(await open(page, trackingId)).toBe(204);
		await page.evaluate(() => (window as unknown as { svc: { track(n: string): void } }).svc.track("a"));
		await page.evaluate(() => (window as unknown as { svc: { track(n: string): void } }).svc.track("b"));
		const events = await eventsOnceThereAre(expect, token, trackingId, 3);
		await context.close();
		const ids = events.map((e) => e.event_id);
		// Hex without a UUID's hyphens: the fallback's, not randomUUID's.
		for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8,64}$/);
		expect(new Set(ids).size).toBe(3);
	});

	it.for([
		["Global Privacy Control", () => Object.defineProperty(Navigator.prototype, "globalPrivacyControl", { get: () => true })],
		["Do Not Track", () => Object.defineProperty(Navigator.prototype, "doNotTrack", { get: () => "1" })],
		["svc_ignore in localStorage", () => localStorage.setItem("svc_ignore", "true")],
	] as const)("sends nothing under %s, and svc.track still works as a no-op", async ([, init], { expect }) => {
		const { trackingId } = await ownerWithSite(stack.worker.url, "localhost");
		const { context, page } = await newPage({ init });
		await page.goto(`${stack.site.origin}/?id=${trackingId}`);
		await page.waitForFunction(() => typeof (window as unknown as { svc?: { track?: unknown } }).svc?.track === "function");
		await page.evaluate(() => (window as unknown as { svc: { track(n: string): void } }).svc.track("clicked"));
		expect(await sends(page)).toBe(0);
		expect(await page.evaluate(() => (window as unknown as { __fetches: number }).__fetches)).toBe(0);
		await context.close();
	});

	it("is not counted when the browser says it is headless (a bot), though it is answered 204", async ({ expect }) => {
		const { token, trackingId } = await ownerWithSite(stack.worker.url, "localhost");
		const headless = await launchChromium({ headlessUserAgent: true });
		try {
			const page = await headless.newPage();
			expect(await page.evaluate(() => navigator.userAgent)).toContain("HeadlessChrome");
			expect(await open(page, trackingId)).toBe(204);
		} finally {
			await headless.close();
		}
		expect(await storedEvents(token, trackingId)).toEqual([]);
	});

	it("is refused with 403 on a site whose domain is another one", async ({ expect }) => {
		const { token, trackingId } = await ownerWithSite(stack.worker.url, "example.com");
		const { context, page } = await newPage();
		expect(await open(page, trackingId)).toBe(403);
		await context.close();
		expect(await storedEvents(token, trackingId)).toEqual([]);
	});
});
