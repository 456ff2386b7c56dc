/**
 * svc browser tracker, protocol version 2 (docs/api.md#collect-browser-analytics, docs/limits.md#tracker).
 *
 *   <script defer src="https://svc.example/t.js" data-id="TRACKING_ID"></script>
 *
 * Sends a page view per page (single-page-app navigation included), engagement reports
 * (`_leave`: the milliseconds the page was visible since the previous report, and the deepest
 * point of the page seen, in percent) each time the page is hidden or left, and whatever the
 * site calls through `svc.track(name, data)` and `svc.identify(id)`. No cookies, no storage of
 * its own: visitors are counted by the collector.
 * Sends nothing under Do Not Track or Global Privacy Control, or when `localStorage.svc_ignore`
 * is "true" (an owner excluding their own visits). Nothing leaves a prerendered page until it is
 * shown. `data-hash` on the tag counts each `#/route` of a hash-routed app as a page of its own.
 * Must never break the page it runs on: a `window.svc` of the site's own is left alone.
 */
import { readablePath } from "../../../domain/analytics/pagePath";

/** Built in (true) for t.links.js only: t.js leaves the link clicks out, whose code it does not carry. */
declare const LINKS: boolean;

type Call = [method: "track" | "identify", args: unknown[]];
interface Api {
	track(name: string, data?: unknown): void;
	identify(id: string): void;
}

(() => {
	const MAX_NAME = 100;
	const MAX_DATA = 6_000;
	const MAX_IDENTITY = 200;

	/** Cut on a whole character: an emoji at the cut is left out, never halved into a lone surrogate. */
	const cut = (text: string, max: number) => text.slice(0, /[\ud800-\udbff]/.test(text[max - 1] ?? "") ? max - 1 : max);
	/** At most BURST events in any WINDOW_MS: a runaway loop on the page cannot flood the collector. */
	const BURST = 30;
	const WINDOW_MS = 10_000;
	/**
	 * A hide reports when the page was visible this long since the last report, or was scrolled
	 * deeper: quick tab switches add up into the next report instead of each sending one.
	 */
	const REPORT_MS = 3_000;

	const w = window as Window & { svc?: Partial<Api> & { q?: Call[] }; doNotTrack?: string; __svcTracker?: 1 };
	// The tag included twice (a layout and a page both adding it): the first copy counts, alone.
	if (w.__svcTracker) return;
	w.__svcTracker = 1;
	const d = document;
	const nav = navigator as Navigator & { globalPrivacyControl?: boolean };
	const loc = location;
	const script = d.currentScript as HTMLScriptElement | null;
	const queued = w.svc?.q;
	const noop = () => {};
	const api: Api = { track: noop, identify: noop };
	// Taken over when absent or the queue snippet's; a site's own `svc` stays as it is.
	if (!w.svc || Array.isArray(queued)) w.svc = api;

	const id = script?.getAttribute("data-id");
	let ignored = false;
	try {
		ignored = localStorage.getItem("svc_ignore") === "true";
	} catch {}
	if (!script || !id || ignored || nav.doNotTrack === "1" || w.doNotTrack === "1" || nav.globalPrivacyControl) return;

	// Next to the script by default: https://svc.example/t.js posts to https://svc.example/api/collect.
	const endpoint = script.getAttribute("data-api") || new URL("api/collect", script.src).href;
	const hashRoutes = script.hasAttribute("data-hash");
	// The page's path as people read it, with the route of a hash-routed app when asked (without
	// the route's query: `#/reset?token=…` is the page /reset, as a query is no part of a path).
	const pagePath = () => {
		const p = readablePath(loc.pathname);
		return hashRoutes && loc.hash.startsWith("#/") ? p.replace(/\/$/, "") + loc.hash.slice(1).split("?")[0] : p;
	};
	// Until a prerendered page is shown, calls wait here.
	let waiting: Call[] | undefined;

	let seq = 0;
	let sent: number[] = [];
	let distinct: string | undefined;
	// The page being viewed, and its engagement not yet reported: visible since (0 while hidden),
	// visible time gathered, deepest point seen (the viewport's bottom, in pixels from the top) and
	// deepest point reported (percent).
	let path = "";
	let query = "";
	let href = "";
	let visibleSince = 0;
	let engaged = 0;
	let depth = 0;
	let reportedDepth = 0;
	let referrer = d.referrer;

	// Where randomUUID is missing (before Safari 15.4): the time and 52 random bits, hex, an event_id too.
	const uuid = (): string => (crypto.randomUUID ? crypto.randomUUID() : Date.now().toString(16) + Math.random().toString(16).slice(2));

	const send = (name: string, extra?: Record<string, unknown>) => {
		const now = Date.now();
		sent = sent.filter((t) => now - t < WINDOW_MS);
		if (sent.length >= BURST) return;
		sent.push(now);
		const body = JSON.stringify({
			tracking_id: id,
			v: "2",
			event_id: uuid(),
			seq: seq++,
			event_name: name,
			url_host: loc.hostname,
			url_path: pagePath(),
			url_query: loc.search,
			referrer,
			title: d.title,
			language: nav.language,
			screen: `${screen.width}x${screen.height}`,
			distinct_id: distinct,
			...extra,
		});
		// A beacon survives the page being closed; when the browser refuses one, keepalive fetch does
		// too. Both share a small in-flight quota (Chromium: 10 requests, 64 KB), so in a burst the
		// page, while it lives, falls back to a plain fetch.
		if (!(nav.sendBeacon?.(endpoint, body))) {
			fetch(endpoint, { method: "POST", body, keepalive: true })
				.catch(() => fetch(endpoint, { method: "POST", body }))
				.catch(noop);
		}
	};

	const visible = () => d.visibilityState === "visible";
	const measure = () => {
		depth = Math.max(depth, scrollY + innerHeight);
	};

	// The page is hidden, or its view ends (left, or replaced by the next view): report what was
	// gathered since the last report; at the end, whatever is left however little.
	// The depth is a share of the page's height when reported, not when scrolled: a page still
	// loading (a tag without defer, images, a single-page app's next view not yet drawn) is short.
	const report = (end?: boolean) => {
		if (!href) return;
		measure();
		const now = Date.now();
		const height = d.documentElement.scrollHeight;
		const percent = height ? Math.min(100, Math.round((depth / height) * 100)) : 100;
		if (visibleSince) engaged += now - visibleSince;
		visibleSince = visible() ? now : 0;
		if (engaged < (end ? 1 : REPORT_MS) && percent <= reportedDepth) return;
		send("_leave", { url_path: path, url_query: query, engaged_ms: engaged, scroll_depth: percent });
		engaged = 0;
		reportedDepth = percent;
	};

	const pageview = () => {
		report(true);
		if (href) referrer = href;
		href = loc.href;
		path = pagePath();
		query = loc.search;
		visibleSince = visible() ? Date.now() : 0;
		engaged = depth = reportedDepth = 0;
		measure();
		seq = 0;
		send("");
	};

	// Single-page apps: a new path through the History API is a new page; query changes are not.
	const navigated = () => {
		if (pagePath() !== path) pageview();
	};
	for (const method of ["pushState", "replaceState"] as const) {
		const original = history[method];
		history[method] = function (this: History, ...args: Parameters<History["pushState"]>) {
			original.apply(this, args);
			navigated();
		};
	}
	w.addEventListener("popstate", navigated);
	if (hashRoutes) w.addEventListener("hashchange", navigated);
	w.addEventListener("scroll", measure, { passive: true });
	// Every hide reports, since a mobile tab hidden may be killed without another word; pagehide
	// covers closing and navigating away. Shown again, the page gathers visible time anew.
	w.addEventListener("pagehide", () => {
		report(true);
		visibleSince = 0;
	});
	d.addEventListener("visibilitychange", () => {
		if (visible()) visibleSince = Date.now();
		else report();
	});
	// Back or forward to a page kept in the back/forward cache: it is shown again (a new view, and
	// new reports later) without loading, so this script does not run again.
	// The time between being shown and this event belongs to the new view, not the one left.
	w.addEventListener("pageshow", (e) => {
		if (e.persisted) {
			visibleSince = 0;
			pageview();
		}
	});

	api.track = (name, data) => {
		if (waiting) return void waiting.push(["track", [name, data]]);
		// A name is text or a number: svc.track() is no event named "undefined".
		name = typeof name === "string" || typeof name === "number" ? cut(String(name), MAX_NAME) : "";
		if (!name) return;
		let json: string | undefined;
		try {
			json = data === undefined ? undefined : JSON.stringify(data);
		} catch {
			json = "{}";
		}
		send(name, { event_data: json && json.length > MAX_DATA ? "{}" : json });
	};
	api.identify = (value) => {
		if (waiting) return void waiting.push(["identify", [value]]);
		distinct = value === undefined || value === null ? undefined : cut(String(value), MAX_IDENTITY) || undefined;
		if (distinct) send("_identify");
	};
	// t.links.js: a click on a link out of the site, or on a file to download, is an event, as
	// Plausible's outbound-link and file-download extensions count them: the main button or the
	// middle one (a new tab), seen before the page's own handlers can stop it. The link's URL goes
	// without its query and fragment, which may carry a visitor's token. The beacon outlives the
	// page the click leaves.
	if (LINKS) {
		const FILE = /\.(pdf|xlsx?|docx?|txt|rtf|csv|exe|key|pps|pptx?|7z|pkg|rar|gz|zip|avi|mov|mp4|mpe?g|wmv|midi?|mp3|wav|wma|dmg)$/i;
		// The link is looked for along the composed path: a click in an open shadow root reaches the
		// document as a click on its host, which hides a link inside it, and a link's own content
		// (an icon component) may have a shadow root of its own. An image map's areas are links too.
		const clicked = (e: MouseEvent) => {
			const link = e.composedPath().find((node) => (node as Element).matches?.("a[href],area[href]")) as HTMLAnchorElement | undefined;
			// A click of the main button, an auxclick of the middle one: a browser that also sends a
			// click for the middle button does not count it twice.
			if (!link || e.button !== (e.type === "click" ? 0 : 1) || !/^https?:$/.test(link.protocol)) return;
			// The path as people read it, as a page's path is stored (`/Preisliste März.pdf`).
			const url = link.origin + readablePath(link.pathname);
			if (FILE.test(link.pathname)) api.track("File Download", { url });
			else if (link.host !== loc.host) api.track("Outbound Link: Click", { url });
		};
		d.addEventListener("click", clicked, true);
		d.addEventListener("auxclick", clicked, true);
	}
	const run = (calls: Call[]) => {
		for (const [method, args] of calls) (api[method] as (...a: unknown[]) => void)(...args);
	};

	// A prerendered page is not a view until the visitor actually sees it, and sends nothing before.
	if ((d as Document & { prerendering?: boolean }).prerendering) {
		waiting = [];
		d.addEventListener(
			"prerenderingchange",
			() => {
				const calls = waiting as Call[];
				waiting = undefined;
				pageview();
				run(calls);
			},
			{ once: true },
		);
	} else {
		pageview();
	}
	// Calls made before this script loaded (window.svc = {q: [...]}) run now, in order.
	if (Array.isArray(queued)) run(queued);
})();
