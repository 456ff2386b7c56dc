/**
 * The dashboard's Realtime view and All time, as Plausible's, in a real browser: each picked by
 * its letter and kept in the URL. Realtime shows who is on the site now and the last 30 minutes by
 * minute, with nothing to compare, and reads again every 30 seconds while its tab is visible: an
 * event collected through /api/collect moves its figures without a reload. All time runs from the
 * site's first day to today, with no period before. The page's clock is installed to run the 30
 * seconds at once; the Worker's stays the real one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { type ConsoleUnderTest, openConsole, useSession } from "./consolePage";
import { api, DESKTOP_CHROME, signUpOwner } from "./stack";
import { setVisibility } from "./trackerPage";

let ui: ConsoleUnderTest;
let page: Page;
let worker: ConsoleUnderTest["worker"];
let site = "";
let statsFrom = "";
/** Each request the page made for the site's statistics: `realtime ?query` or `stats ?query`. */
const asked: string[] = [];

const DAY = 86_400_000;
const tomorrow = Math.floor(Date.now() / DAY) * DAY + DAY;

const figure = (testId: string) => page.getByTestId(testId).locator(".value");
const periodSelect = () => page.getByRole("combobox", { name: /^Period/ });
const realtimeReads = () => asked.filter((request) => request.startsWith("realtime")).length;

/** A page view of `visitor` through the real collection path, as the tracker sends it. */
async function visit(visitor: string, path = "/") {
	const res = await fetch(`${worker.url}/api/collect`, {
		method: "POST",
		headers: { "content-type": "text/plain", "user-agent": DESKTOP_CHROME },
		body: JSON.stringify({ tracking_id: site, v: "2", url_host: "live.example", visitor_id: `visitor-${visitor}`, url_path: path }),
	});
	expect(res.status).toBe(204);
}

// A new owner with a site two visitors saw a moment ago.
beforeAll(async () => {
	ui = await openConsole();
	({ page, worker } = ui);
	const { token } = await signUpOwner(worker.url, "realtime", "10.97.8.1");
	({ tracking_id: site, stats_from: statsFrom } = await api<{ tracking_id: string; stats_from: string }>(worker.url, "/api/sites", {
		token,
		json: { domain: "live.example", name: "Live" },
	}));
	await visit("a");
	await visit("b", "/pricing");
	page.on("request", (request) => {
		const url = new URL(request.url());
		if (url.pathname === `/api/sites/${site}/stats/realtime`) asked.push(`realtime ${url.search}`);
		else if (url.pathname === `/api/sites/${site}/stats`) asked.push(`stats ${url.search}`);
	});
	// The page's timers run when the test says: 30 seconds of the realtime view's refresh at once.
	await page.clock.install();
	await useSession(page, worker.url, token);
});

afterAll(async () => {
	await ui?.close();
});

describe("owner console: the Realtime view and All time", () => {
	it("shows the visitors now and the last 30 minutes by minute on R, kept in the URL, with no comparison and no arrow", async () => {
		await page.goto(`${worker.url}/analytics/${site}`);
		await expect.poll(() => figure("figure-Visitors").textContent()).toBe("2");
		await page.keyboard.press("r");
		await expect.poll(() => new URL(page.url()).search).toBe("?period=realtime");
		await expect.poll(() => figure("figure-current-visitors").textContent()).toBe("2");
		expect(await figure("figure-realtime-visitors").textContent()).toBe("2");
		expect(await figure("figure-realtime-pageviews").textContent()).toBe("2");
		expect(await periodSelect().inputValue()).toBe("realtime");
		// Asked with the filters and a limit only: the window and its minutes are the statistics'.
		expect(asked.filter((request) => request.startsWith("realtime")).at(-1)).toBe("realtime ?limit=11");
		// The chart of the visitors by minute, alone: no period before to draw or compare with.
		expect(await page.getByRole("img", { name: "Visitors over the period: 2 visitors" }).count()).toBe(1);
		expect(await page.getByText("the period before").count()).toBe(0);
		expect(await page.getByTestId("figure-Bounce rate").count()).toBe(0);
		// The breakdowns count the same 30 minutes.
		expect(await page.getByRole("region", { name: "Pages" }).getByText("/pricing").count()).toBe(1);
		expect(await page.getByRole("button", { name: /^Previous period/ }).isDisabled()).toBe(true);
		expect(await page.getByRole("button", { name: /^Next period/ }).isDisabled()).toBe(true);
		// An arrow key steps nowhere either.
		await page.keyboard.press("ArrowLeft");
		expect(new URL(page.url()).search).toBe("?period=realtime");
		await ui.checkPage("dashboard-realtime");

		await page.reload();
		await expect.poll(() => figure("figure-current-visitors").textContent()).toBe("2");
		expect(await periodSelect().inputValue()).toBe("realtime");
	});

	it("reads again every 30 seconds while the tab is visible: a new visitor moves the figures without a reload", async () => {
		await page.goto(`${worker.url}/analytics/${site}?period=realtime`);
		await expect.poll(() => figure("figure-realtime-visitors").textContent()).toBe("2");
		await visit("c", "/docs");
		await page.clock.runFor(30_000);
		await expect.poll(() => figure("figure-realtime-visitors").textContent()).toBe("3");
		expect(await figure("figure-current-visitors").textContent()).toBe("3");
		expect(await figure("figure-realtime-pageviews").textContent()).toBe("3");
		expect(await page.getByRole("img", { name: "Visitors over the period: 3 visitors" }).count()).toBe(1);

		// Hidden, it asks nothing however long; shown again, it reads at the next 30 seconds.
		await setVisibility(page, "hidden");
		const readsWhileShown = realtimeReads();
		await visit("d");
		await page.clock.runFor(120_000);
		expect(realtimeReads()).toBe(readsWhileShown);
		expect(await figure("figure-realtime-visitors").textContent()).toBe("3");
		await setVisibility(page, "visible");
		await page.clock.runFor(30_000);
		await expect.poll(() => figure("figure-realtime-visitors").textContent()).toBe("4");
	});

	it("counts all time from the site's first day to today on A, kept in the URL, with no comparison and no arrow", async () => {
		await page.goto(`${worker.url}/analytics/${site}?period=7d`);
		await expect.poll(() => figure("figure-Visitors").textContent()).toBe("4");
		await page.keyboard.press("a");
		await expect.poll(() => new URL(page.url()).search).toBe("?period=all");
		const range = new URLSearchParams({ from: `${statsFrom}T00:00:00.000Z`, to: new Date(tomorrow).toISOString() });
		// The site was added today: its first day is today, not the 400 days a range may cover.
		expect(statsFrom).toBe(new Date(tomorrow - DAY).toISOString().slice(0, 10));
		await expect.poll(() => asked.filter((request) => request.startsWith("stats")).at(-1)).toBe(`stats ?${range}&limit=11`);
		// The last 7 days' figures, each compared, stay until all time's come, which are not.
		await expect.poll(() => page.getByText("the period before").count()).toBe(0);
		expect(await figure("figure-Visitors").textContent()).toBe("4");
		expect(await periodSelect().inputValue()).toBe("all");
		expect(await page.getByRole("img", { name: "Visitors over the period: 4 visitors" }).count()).toBe(1);
		expect(await page.getByRole("button", { name: /^Previous period/ }).isDisabled()).toBe(true);
		expect(await page.getByRole("button", { name: /^Next period/ }).isDisabled()).toBe(true);
		await ui.checkPage("dashboard-all-time");
		await page.reload();
		await expect.poll(() => periodSelect().inputValue()).toBe("all");
		await expect.poll(() => figure("figure-Visitors").textContent()).toBe("4");
		// The last 7 days compare again.
		await page.keyboard.press("w");
		await expect.poll(() => asked.at(-1)).toContain("compare=previous");
	});

	it("offers no Realtime on the crawlers' page, which counts hours: R there does nothing", async () => {
		await page.goto(`${worker.url}/crawlers/${site}?period=all`);
		await expect.poll(() => periodSelect().inputValue()).toBe("all");
		expect(await periodSelect().locator("option", { hasText: "Realtime" }).count()).toBe(0);
		await page.keyboard.press("r");
		expect(new URL(page.url()).search).toBe("?period=all");
	});
});
