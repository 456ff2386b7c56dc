/**
 * The tracker's tests' pages: a browser context that counts the page's beacons and fetches, the
 * test site opened for a tracking id, and the events the owner API shows once they arrive.
 * `stack` answers the test file's Worker, site and browser, started in its beforeAll.
 */
import type { Browser, BrowserContext, Page, Request } from "playwright-core";
import type { ExpectStatic } from "vitest";
import { api, type startSite, type startWorker } from "./stack";

interface Stack {
	worker: Awaited<ReturnType<typeof startWorker>>;
	site: Awaited<ReturnType<typeof startSite>>;
	browser: Browser;
}

export interface StoredEvent {
	event_id: string;
	name: string;
	url_host: string | null;
	url_path: string;
	url_query: string;
	seq: number;
	v: string;
	data: string | null;
	duration: number | null;
	engaged_ms: number | null;
	scroll_depth: number | null;
	distinct_id: string | null;
	visitor_id: string;
	referrer: string;
	title: string;
	language: string;
	screen: string;
	browser: string;
	os: string;
	device: string;
}

/** Counts the page's calls to sendBeacon and fetch, synchronously, before the tracker loads. */
const COUNT_SENDS = () => {
	const w = window as unknown as { __beacons: number; __fetches: number };
	w.__beacons = 0;
	w.__fetches = 0;
	const beacon = navigator.sendBeacon.bind(navigator);
	navigator.sendBeacon = (url, data) => {
		w.__beacons++;
		return beacon(url, data);
	};
	const fetcher = window.fetch.bind(window);
	window.fetch = (...args) => {
		w.__fetches++;
		return fetcher(...args);
	};
};

/** The helpers that need the test file's running stack. */
export function trackerPages(stack: () => Stack) {
	const isCollect = (request: Request) => request.url() === `${stack().worker.url}/api/collect` && request.method() === "POST";

	async function newPage(options: { init?: () => void } = {}): Promise<{ context: BrowserContext; page: Page }> {
		const context = await stack().browser.newContext();
		await context.addInitScript(COUNT_SENDS);
		if (options.init) await context.addInitScript(options.init);
		return { context, page: await context.newPage() };
	}

	/** Opens the test site for `trackingId` and waits until the first page view has been answered. */
	async function open(page: Page, trackingId: string, path = "/") {
		const answered = page.waitForResponse((response) => isCollect(response.request()));
		await page.goto(`${stack().site.origin}${path}${path.includes("?") ? "&" : "?"}id=${trackingId}`);
		return (await answered).status();
	}

	async function storedEvents(token: string, trackingId: string): Promise<StoredEvent[]> {
		const { events } = await api<{ events: StoredEvent[] }>(stack().worker.url, `/api/sites/${trackingId}/events?limit=1000`, { token });
		return events;
	}

	/**
	 * Waits until the owner API shows `count` events (beacons are asynchronous; the wait ends as
	 * soon as they are there), then answers them. On a shortfall the failure lists what arrived.
	 */
	async function eventsOnceThereAre(expect: ExpectStatic, token: string, trackingId: string, count: number) {
		let events = await storedEvents(token, trackingId);
		for (let tries = 0; events.length < count && tries < 100; tries++) {
			await new Promise((resolve) => setTimeout(resolve, 200));
			events = await storedEvents(token, trackingId);
		}
		expect(events.map((e) => `${e.name || "(view)"} ${e.url_path} seq ${e.seq}`)).toHaveLength(count);
		return events;
	}
	return { isCollect, newPage, open, storedEvents, eventsOnceThereAre };
}

/** The page's clock is the test's, stopped: "visible for 5 s" is exactly 5,000 ms, however slow the machine. */
export async function pauseClock(page: Page) {
	const start = Date.parse("2025-03-01T10:00:00Z");
	await page.clock.install({ time: start });
	await page.clock.pauseAt(start + 1_000);
}

/**
 * Headless Chromium keeps every page visible: the page is told it is hidden or shown, as a tab
 * switch tells it, and the tracker's own listeners do the rest.
 */
export const setVisibility = (page: Page, state: "hidden" | "visible") =>
	page.evaluate((value) => {
		Object.defineProperty(document, "visibilityState", { value, configurable: true });
		document.dispatchEvent(new Event("visibilitychange"));
	}, state);

export const sends = (page: Page) => page.evaluate(() => (window as unknown as { __beacons: number; __fetches: number }).__beacons);
