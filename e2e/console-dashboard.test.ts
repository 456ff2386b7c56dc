/**
 * The analytics dashboard beyond the walk-through of console-analytics.test.ts: its chart where the
 * period has not reached yet, a filter that matches nothing, the site picker, the figures
 * Plausible users look for, "is not" filters from a link, the custom events' property rows, the
 * list each card opens on, and a period before the site was added.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { type ConsoleUnderTest, openConsole, useSession } from "./consolePage";
import { api, DESKTOP_CHROME, signUpOwner } from "./stack";

let ui: ConsoleUnderTest;
let page: Page;
let worker: ConsoleUnderTest["worker"];
let checkPage: ConsoleUnderTest["checkPage"];
let token = "";
let shop = "";
let blog = "";
/** When the shop's events were sent: the hour they fall in. */
let collectedAt = 0;

const DAY = 86_400_000;
const utcDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const collect = (trackingId: string, body: Record<string, unknown>) =>
	fetch(`${worker.url}/api/collect`, {
		method: "POST",
		headers: { "content-type": "text/plain", "user-agent": DESKTOP_CHROME },
		body: JSON.stringify({ tracking_id: trackingId, v: "2", url_host: "shop.example", ...body }),
	}).then((res) => expect(res.status).toBe(204));

const figure = (label: string) => page.getByTestId(`figure-${label}`).locator(".value");

// A new owner with two sites, signed in. Shop: A views / and /pricing, then signs up on the pro
// plan; B views / and upgrades to the pro plan. The blog has nothing yet.
beforeAll(async () => {
	ui = await openConsole();
	({ page, worker, checkPage } = ui);
	({ token } = await signUpOwner(worker.url, "dashboard", "10.97.1.1"));
	shop = (await api<{ tracking_id: string }>(worker.url, "/api/sites", { token, json: { domain: "shop.example", name: "Shop" } })).tracking_id;
	blog = (await api<{ tracking_id: string }>(worker.url, "/api/sites", { token, json: { domain: "blog.example", name: "Blog" } })).tracking_id;
	await collect(shop, { visitor_id: "visitor-a", url_path: "/" });
	await collect(shop, { visitor_id: "visitor-a", url_path: "/pricing" });
	await collect(shop, { visitor_id: "visitor-a", url_path: "/pricing", event_name: "signup", event_data: JSON.stringify({ plan: "pro" }) });
	await collect(shop, { visitor_id: "visitor-b", url_path: "/" });
	await collect(shop, { visitor_id: "visitor-b", url_path: "/", event_name: "upgrade", event_data: JSON.stringify({ plan: "pro" }) });
	collectedAt = Date.now();
	await useSession(page, worker.url, token);
});

afterAll(async () => {
	await ui?.close();
});

/** Points at the chart `fraction` of the way across and answers the legend's text for the series at `index` (0: the time). */
async function legendAt(fraction: number, index: number): Promise<string> {
	const plot = page.locator(".chart .u-over").first();
	const box = await plot.boundingBox();
	if (!box) throw new Error("no chart");
	await page.mouse.move(box.x + Math.min(box.width - 1, box.width * fraction), box.y + box.height / 2);
	return (await page.locator(".chart .u-legend .u-series").nth(index).textContent()) ?? "";
}

describe("owner console: the dashboard", () => {
	it("draws the period's hours to come as nothing, not as zeros, and a day's point as its date", async () => {
		const today = Math.floor(Date.now() / DAY) * DAY;
		// Today and tomorrow: hourly, and tomorrow's hours are all still to come.
		await page.goto(`${worker.url}/analytics/${shop}?period=custom&from=${utcDate(today)}&to=${utcDate(today + DAY)}`);
		await expect.poll(() => figure("Visitors").textContent()).toBe("2");
		// Nothing pointed at: the legend gives the period's figures, the period before's too.
		expect(await page.locator(".chart .u-legend .u-series").allTextContents()).toEqual(["Time (UTC)whole period", "Visitors2", "Visitors, period before0"]);
		// Tomorrow's last hour: no figure yet, nor for the period before, compared only as far as this
		// one has gone.
		await expect.poll(() => legendAt(1, 1)).toBe("Visitors");
		expect(await legendAt(1, 0)).toContain(`${utcDate(today + DAY)} 11:00pm`);
		expect(await legendAt(1, 2)).toBe("Visitors, period before");
		// The hour under way (hour h of the 48 is h / 47 of the way across) holds what was collected.
		const hour = Math.floor((collectedAt - today) / 3_600_000);
		await expect.poll(() => legendAt(hour / 47, 1)).toBe("Visitors2");
		await checkPage("dashboard-tomorrow");

		// By day over 30 days: a day's point is its date, with no time of day.
		await page.goto(`${worker.url}/analytics/${shop}?period=30d`);
		await expect.poll(() => figure("Visitors").textContent()).toBe("2");
		await expect.poll(() => legendAt(1, 0)).toBe(`Time (UTC)${utcDate(today)}`);
		await checkPage("dashboard-30-days");
	});

	it("says a filter that matches nothing matches nothing (the tag is fine), and removes the filters on request", async () => {
		await page.goto(`${worker.url}/analytics/${shop}?period=30d&page=%2Fnowhere&country=DE`);
		const none = page.getByRole("status").filter({ hasText: "Nothing in this period matches the filters" });
		await none.waitFor();
		expect(await page.getByText("Nothing was collected in this period").count()).toBe(0);
		expect(await figure("Visitors").textContent()).toBe("0");
		// The shop sends custom events, none under these filters: no hint to start sending them.
		const events = page.getByRole("region", { name: "Custom events" });
		expect(await events.getByText("No custom event matches the filters.").isVisible()).toBe(true);
		expect(await events.getByText(/svc\.track/).count()).toBe(0);
		await checkPage("dashboard-filtered-to-nothing");
		await none.getByRole("button", { name: "remove every filter" }).click();
		await expect.poll(() => figure("Visitors").textContent()).toBe("2");
		const url = new URL(page.url());
		expect([url.searchParams.get("page"), url.searchParams.get("country"), url.searchParams.get("period")]).toEqual([null, null, "30d"]);
		expect(await none.count()).toBe(0);
	});

	it("opens a shared link's \"is not\" filters as chips that say so, a long path cut short within a phone's screen", async () => {
		const long = `/${"a-long-segment/".repeat(100)}`;
		await page.goto(`${worker.url}/analytics/${shop}?period=30d&page_not=${encodeURIComponent(long)}&event_not=upgrade`);
		// No page view is on that path; B's visit upgraded: A's visit, both its page views.
		await expect.poll(() => figure("Visitors").textContent()).toBe("1");
		expect(await figure("Page views").textContent()).toBe("2");
		expect(await page.getByRole("button", { name: "Custom event is not upgrade, remove filter" }).isVisible()).toBe(true);
		expect(await page.getByRole("combobox", { name: `Page: is, is not, contains or does not contain ${long}` }).inputValue()).toBe("is_not");
		// checkPage finds no sideways scrolling at 390 px.
		await checkPage("dashboard-not-filters");
		await page.getByRole("button", { name: "Custom event is not upgrade, remove filter" }).click();
		await expect.poll(() => figure("Visitors").textContent()).toBe("2");
	});

	it("shows views per visit among the figures, and each custom event's conversion rate", async () => {
		await page.goto(`${worker.url}/analytics/${shop}?period=30d`);
		// Three page views in two visits (A's and B's).
		await expect.poll(() => figure("Views per visit").textContent()).toBe("1.5");
		const events = page.getByRole("region", { name: "Custom events" });
		expect(await events.getByRole("columnheader").allTextContents()).toEqual(["Custom events", "Events", "Visitors", "CR"]);
		// Each figure's header on one line: "Visitors" is not broken inside the word.
		const headerLines = await events.locator("th.num").evaluateAll((cells) =>
			cells.map((cell) => {
				const text = document.createRange();
				text.selectNodeContents(cell);
				return new Set(Array.from(text.getClientRects(), (line) => Math.round(line.top))).size;
			}),
		);
		expect(headerLines).toEqual([1, 1, 1]);
		// One of the two visitors sent each.
		expect(await events.getByRole("row", { name: /^signup/ }).getByRole("cell").allTextContents()).toEqual(["signup", "1", "1", "50%"]);
		expect(await events.getByRole("row", { name: /^upgrade/ }).getByRole("cell").allTextContents()).toEqual(["upgrade", "1", "1", "50%"]);
		// Under a filter, out of the visitors it keeps: B alone, who upgraded.
		await page.goto(`${worker.url}/analytics/${shop}?period=30d&event=upgrade`);
		await expect.poll(() => figure("Visitors").textContent()).toBe("1");
		// The chart as a screen reader reads it: one visitor in the singular.
		expect(await page.getByRole("img", { name: /^Visitors over the period/ }).getAttribute("aria-label")).toBe(
			"Visitors over the period: 1 visitor; 0 visitors in the period before",
		);
		expect(await figure("Views per visit").textContent()).toBe("1");
		// The event's conversion rate is still out of every visitor the other filters keep (A and B),
		// as Plausible counts a goal's, not out of the converted visitors the filter keeps (100%).
		await expect.poll(() => events.getByRole("row", { name: /^upgrade/ }).getByRole("cell").allTextContents()).toEqual(["upgrade", "1", "1", "50%"]);
		await expect.poll(() => figure("Conversion rate").textContent()).toBe("50%");
		await checkPage("dashboard-figures");
		// With another filter too, out of the visitors that one keeps: both viewed /, B upgraded.
		await page.goto(`${worker.url}/analytics/${shop}?period=30d&event=upgrade&page=%2F`);
		await expect.poll(() => figure("Conversion rate").textContent()).toBe("50%");
		await page.goto(`${worker.url}/analytics/${shop}?period=30d&property=plan%3Apro`);
		await expect.poll(() => figure("Conversion rate").textContent()).toBe("100%");
		// Without an event or property filter there is no conversion rate among the figures.
		await page.goto(`${worker.url}/analytics/${shop}?period=30d&page=%2F`);
		await expect.poll(() => figure("Visitors").textContent()).toBe("2");
		expect(await page.getByTestId("figure-Conversion rate").count()).toBe(0);
	});

	it("filters a property row to that event's property value, not another event's that carried the same", async () => {
		await page.goto(`${worker.url}/analytics/${shop}?period=30d`);
		const events = page.getByRole("region", { name: "Custom events" });
		await events.getByRole("button", { name: "Properties" }).click();
		// Both events carried plan = pro: A's signup and B's upgrade.
		await events.getByRole("button", { name: "upgrade · plan = pro" }).waitFor();
		await events.getByRole("button", { name: "signup · plan = pro" }).click();
		await expect.poll(() => new URL(page.url()).searchParams.get("event")).toBe("signup");
		expect(new URL(page.url()).searchParams.get("property")).toBe("plan:pro");
		// A alone, with both page views.
		await expect.poll(() => figure("Visitors").textContent()).toBe("1");
		expect(await figure("Page views").textContent()).toBe("2");
		expect(await page.getByRole("button", { name: "Custom event is signup, remove filter" }).isVisible()).toBe(true);
		expect(await page.getByRole("button", { name: "Property plan is pro, remove filter" }).isVisible()).toBe(true);
		expect(await events.getByRole("button", { name: "upgrade · plan = pro" }).count()).toBe(0);
	});

	it("opens each card on the list its filter was picked from, after a reload or from a shared link too", async () => {
		await page.goto(`${worker.url}/analytics/${shop}?period=30d`);
		const pages = page.getByRole("region", { name: "Pages" });
		await pages.getByRole("button", { name: "Entry pages", exact: true }).click();
		await pages.getByRole("button", { name: "/", exact: true }).click();
		await expect.poll(() => new URL(page.url()).searchParams.get("entry_page")).toBe("/");
		await page.reload();
		await page.getByRole("button", { name: "Entry page is /, remove filter" }).waitFor();
		expect(await pages.getByRole("button", { name: "Entry pages", exact: true }).getAttribute("aria-pressed")).toBe("true");
		// A link with a property and with an OS: the Properties and OS lists.
		await page.goto(`${worker.url}/analytics/${shop}?period=30d&event=signup&property=plan%3Apro&os=Linux`);
		const events = page.getByRole("region", { name: "Custom events" });
		await events.getByRole("button", { name: "signup · plan = pro" }).waitFor();
		expect(await events.getByRole("button", { name: "Properties", exact: true }).getAttribute("aria-pressed")).toBe("true");
		expect(await page.getByRole("region", { name: "Devices" }).getByRole("button", { name: "OS", exact: true }).getAttribute("aria-pressed")).toBe("true");
		// "Is not" of a filter opens its card on its list too.
		await page.goto(`${worker.url}/analytics/${shop}?period=30d&entry_page_not=%2Fpricing&os_not=Linux`);
		await page.getByRole("button", { name: "Entry page is not /pricing, remove filter" }).waitFor();
		expect(await pages.getByRole("button", { name: "Entry pages", exact: true }).getAttribute("aria-pressed")).toBe("true");
		expect(await page.getByRole("region", { name: "Devices" }).getByRole("button", { name: "OS", exact: true }).getAttribute("aria-pressed")).toBe("true");
	});

	it("keeps the list each card shows in the address: a reload or a shared link opens the same lists", async () => {
		await page.goto(`${worker.url}/analytics/${shop}?period=30d`);
		const card = (name: string) => page.getByRole("region", { name, exact: true });
		const tab = (region: string, name: string) => card(region).getByRole("button", { name, exact: true });
		await tab("Pages", "Exit pages").click();
		await tab("Devices", "OS").click();
		await tab("Custom events", "Properties").click();
		await expect.poll(() => new URL(page.url()).searchParams.get("custom_events_tab")).toBe("properties");
		expect(new URL(page.url()).searchParams.get("pages_tab")).toBe("exit-pages");
		expect(new URL(page.url()).searchParams.get("devices_tab")).toBe("os");
		await page.reload();
		await card("Custom events").getByRole("button", { name: "signup · plan = pro" }).waitFor();
		for (const [region, name] of [["Pages", "Exit pages"], ["Devices", "OS"], ["Custom events", "Properties"], ["Sources", "Sources"]]) {
			expect(await tab(region, name).getAttribute("aria-pressed"), `${region}: ${name}`).toBe("true");
		}
		// Back to the first list of a card, and the next reload shows it.
		await tab("Pages", "Top pages").click();
		await page.reload();
		await card("Custom events").getByRole("button", { name: "signup · plan = pro" }).waitFor();
		expect(await tab("Pages", "Top pages").getAttribute("aria-pressed")).toBe("true");
	});

	it("switches to another site for the same period, leaving the old site's filters behind", async () => {
		await page.goto(`${worker.url}/analytics/${shop}?period=custom&from=2026-01-01&to=2026-01-31&page=%2Fpricing`);
		await page.getByRole("button", { name: "Page is /pricing, remove filter" }).waitFor();
		await page.getByRole("combobox", { name: /^Site/ }).selectOption({ label: "Blog" });
		await expect.poll(() => new URL(page.url()).pathname).toBe(`/analytics/${blog}`);
		expect(new URL(page.url()).search).toBe("?period=custom&from=2026-01-01&to=2026-01-31");
		expect(await page.getByLabel("From").inputValue()).toBe("2026-01-01");
		// The address changes first; the page drops the old site's filters as it renders the new one.
		await expect.poll(() => page.getByRole("button", { name: /remove filter$/ }).count()).toBe(0);
		// Nothing collected on the blog, and no filter to blame: the custom events' card says how to send them.
		await page.getByText("Nothing was collected in this period").waitFor();
		expect(await page.getByRole("region", { name: "Custom events" }).getByText("No custom events. Send them with svc.track(name, data).").isVisible()).toBe(true);
		// The crawlers of a site switch the same way.
		await page.getByRole("link", { name: "AI crawlers of this site" }).click();
		await page.getByRole("heading", { name: "AI crawlers" }).waitFor();
		await page.getByRole("combobox", { name: /^Site/ }).selectOption({ label: "Shop" });
		await expect.poll(() => page.url()).toBe(`${worker.url}/crawlers/${shop}?period=custom&from=2026-01-01&to=2026-01-31`);
	});

	it("says a period that ended before the site was added holds nothing for that reason, and points at the tag only for one since", async () => {
		// The blog was added today, with nothing collected yet: yesterday cannot hold anything, tag or no tag.
		await page.goto(`${worker.url}/analytics/${blog}?period=yesterday`);
		const before = page.getByText(/^Nothing was collected in this period: it ended before the site was added, on /);
		await before.waitFor();
		expect(await page.getByRole("link", { name: "the site's tag" }).count()).toBe(0);
		await checkPage("dashboard-before-site-added");
		// Today, which the site has been there for: its tag may be missing.
		await page.goto(`${worker.url}/analytics/${blog}?period=today`);
		await page.getByRole("link", { name: "the site's tag" }).waitFor();
		expect(await before.count()).toBe(0);
	});
});
