/**
 * The dashboard's top figures pick what its chart draws, as Plausible's do: each is a toggle
 * button, the chart (and its line for the period before) follows, and the address keeps the
 * choice through a reload.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { type ConsoleUnderTest, openConsole, useSession } from "./consolePage";
import { api, DESKTOP_CHROME, signUpOwner } from "./stack";

let ui: ConsoleUnderTest;
let page: Page;
let worker: ConsoleUnderTest["worker"];
let token = "";
let site = "";

const collect = (body: Record<string, unknown>) =>
	fetch(`${worker.url}/api/collect`, {
		method: "POST",
		headers: { "content-type": "text/plain", "user-agent": DESKTOP_CHROME },
		body: JSON.stringify({ tracking_id: site, v: "2", url_host: "graph.example", ...body }),
	}).then((res) => expect(res.status).toBe(204));

const figure = (label: string) => page.getByRole("button", { name: new RegExp(`^${label}`) });
const chart = () => page.getByRole("region", { name: /over time$/ }).getByRole("img");
/** The legend while nothing is pointed at: the period's figures, the period before's too. */
const legend = () => page.locator(".chart .u-legend .u-series").allTextContents();

// Today: A views two pages and reads one for 90 s, B views one page (a bounce), C views one and
// signs up (no bounce: a custom event). Three visits, one of them a bounce; 90 s over three visits
// is 30 s; four page views in three visits, 1.3 a visit.
beforeAll(async () => {
	ui = await openConsole();
	({ page, worker } = ui);
	({ token } = await signUpOwner(worker.url, "graph", "10.97.4.1"));
	site = (await api<{ tracking_id: string }>(worker.url, "/api/sites", { token, json: { domain: "graph.example", name: "Graph" } })).tracking_id;
	await collect({ visitor_id: "visitor-a", url_path: "/" });
	await collect({ visitor_id: "visitor-a", url_path: "/pricing" });
	await collect({ visitor_id: "visitor-a", url_path: "/pricing", event_name: "_leave", engaged_ms: 90_000 });
	await collect({ visitor_id: "visitor-b", url_path: "/" });
	await collect({ visitor_id: "visitor-c", url_path: "/docs" });
	await collect({ visitor_id: "visitor-c", url_path: "/docs", event_name: "signup" });
	await useSession(page, worker.url, token);
});

afterAll(async () => {
	await ui?.close();
});

describe("owner console: the chart draws the top figure chosen", () => {
	it("draws visitors at first; a figure clicked is pressed and drawn, the period before's line with it, and a reload keeps it", async () => {
		await page.goto(`${worker.url}/analytics/${site}?period=today`);
		await expect.poll(() => figure("Visitors").getAttribute("aria-pressed")).toBe("true");
		expect(await chart().getAttribute("aria-label")).toBe("Visitors over the period: 3 visitors; 0 visitors in the period before");
		expect(await legend()).toEqual(["Time (UTC)whole period", "Visitors3", "Visitors, period before0"]);
		// The figure on the site now has no series: no button.
		expect(await page.getByTestId("figure-now").evaluate((element) => element.tagName)).toBe("DIV");

		await figure("Bounce rate").click();
		await expect.poll(() => figure("Bounce rate").getAttribute("aria-pressed")).toBe("true");
		expect(await figure("Visitors").getAttribute("aria-pressed")).toBe("false");
		expect(await page.getByRole("heading", { name: "Bounce rate over time" }).isVisible()).toBe(true);
		// The period before had no visits: no bounce rate, nor a line.
		expect(await chart().getAttribute("aria-label")).toBe("Bounce rate over the period: 33.3%; none in the period before");
		expect(await legend()).toEqual(["Time (UTC)whole period", "Bounce rate33.3%", "Bounce rate, period before"]);
		expect(new URL(page.url()).searchParams.get("metric")).toBe("bounce_rate");
		expect(new URL(page.url()).searchParams.get("period")).toBe("today");
		await ui.checkPage("dashboard-bounce-rate");

		await page.reload();
		await expect.poll(() => figure("Bounce rate").getAttribute("aria-pressed")).toBe("true");
		expect(await chart().getAttribute("aria-label")).toMatch(/^Bounce rate over the period: 33\.3%/);

		// From the keyboard: a figure is a button like any other.
		await figure("Visit duration").focus();
		await page.keyboard.press("Enter");
		await expect.poll(() => chart().getAttribute("aria-label")).toBe("Visit duration over the period: 30s; none in the period before");
		await figure("Views per visit").focus();
		await page.keyboard.press("Space");
		await expect.poll(() => chart().getAttribute("aria-label")).toBe("Views per visit over the period: 1.3; none in the period before");
		await figure("Visits").click();
		await expect.poll(() => legend()).toEqual(["Time (UTC)whole period", "Visits3", "Visits, period before0"]);

		// Visitors again: the default, which the address leaves out.
		await figure("Visitors").click();
		await expect.poll(() => new URL(page.url()).searchParams.has("metric")).toBe(false);
		expect(await chart().getAttribute("aria-label")).toMatch(/^Visitors over the period/);
	});

	it("draws the conversion rate under a custom event's filter, and visitors again without it", async () => {
		const reads: string[] = [];
		const counting = (request: { url: () => string }) => {
			if (new URL(request.url()).pathname === `/api/sites/${site}/stats`) reads.push(request.url());
		};
		page.on("request", counting);
		await page.goto(`${worker.url}/analytics/${site}?period=today&event=signup`);
		// C alone converted, out of the three visitors.
		await expect.poll(() => figure("Conversion rate").count()).toBe(1);
		// One read of the statistics: the answer carries the visitors the rate is out of.
		await page.waitForLoadState("networkidle");
		page.off("request", counting);
		expect(reads).toHaveLength(1);
		await figure("Conversion rate").click();
		await expect.poll(() => chart().getAttribute("aria-label")).toBe("Conversion rate over the period: 33.3%; none in the period before");
		expect(await legend()).toEqual(["Time (UTC)whole period", "Conversion rate33.3%", "Conversion rate, period before"]);
		await ui.checkPage("dashboard-conversion-rate");
		// Without the filter there is no conversion rate to draw: visitors, as Plausible falls back to the first figure.
		await page.getByRole("button", { name: "Custom event is signup, remove filter" }).click();
		await expect.poll(() => figure("Visitors").getAttribute("aria-pressed")).toBe("true");
		expect(await figure("Conversion rate").count()).toBe(0);
		await expect.poll(() => chart().getAttribute("aria-label")).toMatch(/^Visitors over the period: 3 visitors/);
	});

	it("a metric the dashboard does not draw, typed in the address, draws visitors", async () => {
		await page.goto(`${worker.url}/analytics/${site}?period=today&metric=revenue`);
		await expect.poll(() => figure("Visitors").getAttribute("aria-pressed")).toBe("true");
		expect(await page.locator('.figures button[aria-pressed="true"]').count()).toBe(1);
	});
});
