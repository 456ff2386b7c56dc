/**
 * The owner console's analytics in a real browser: a site added, what the public endpoints
 * collected on its dashboard with every breakdown filtering the page, and a reported AI-crawler
 * visit next to the page's human views.
 */
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { type ConsoleUnderTest, openConsole, useSession } from "./consolePage";
import { TRACKER_QUEUE } from "../console/src/trackerQueue";
import { DESKTOP_CHROME, signUpOwner } from "./stack";

let ui: ConsoleUnderTest;
let page: Page;
let worker: ConsoleUnderTest["worker"];
let checkPage: ConsoleUnderTest["checkPage"];

// A new owner, signed in.
beforeAll(async () => {
	ui = await openConsole();
	({ page, worker, checkPage } = ui);
	const { token } = await signUpOwner(worker.url, "analytics", "10.97.0.1");
	await useSession(page, worker.url, token);
	await page.goto(`${worker.url}/projects`);
});

afterAll(async () => {
	await ui?.close();
});

describe("owner console: analytics", () => {
	let trackingId = "";

	it("adds a site, and its dashboard shows what was collected, each breakdown filtering the page", async () => {
		await page.getByRole("navigation", { name: "Areas" }).getByRole("link", { name: "Analytics" }).click();
		await page.getByText("No sites yet").waitFor();
		await page.getByLabel("Domain").fill("shop.example");
		await page.getByLabel("Name (optional)").fill("Shop");
		await page.getByRole("button", { name: "Add site" }).click();
		const tag = await page.locator("pre.snippet").first().textContent();
		trackingId = /data-id="(s_[\w-]+)"/.exec(tag ?? "")?.[1] ?? "";
		expect(tag).toContain(`${worker.url}/t.js`);
		// The tracker that counts link clicks is one word away, and is served there.
		await page.getByText(/load t\.links\.js in place of t\.js\.$/).waitFor();
		expect((await fetch(`${worker.url}/t.links.js`)).status).toBe(200);
		// How to send custom events, a call before the deferred tag has loaded included (the line the
		// tracker's tests load, e2e/stack.ts), and how to leave one's own visits out.
		await page.getByText("Custom events, and leaving out your own visits").click();
		expect(await page.locator("pre.snippet").nth(1).textContent()).toBe(TRACKER_QUEUE);
		await page.getByText('run localStorage.svc_ignore = "true"').waitFor();
		await checkPage("sites");

		// Two visitors: A views / (from a search engine) and /pricing, then signs up; B views /.
		const collect = (body: Record<string, unknown>) =>
			fetch(`${worker.url}/api/collect`, {
				method: "POST",
				headers: { "content-type": "text/plain", "user-agent": DESKTOP_CHROME },
				body: JSON.stringify({ tracking_id: trackingId, v: "2", url_host: "shop.example", ...body }),
			}).then((res) => expect(res.status).toBe(204));
		await collect({ visitor_id: "visitor-a", url_path: "/", referrer: "https://www.google.com/" });
		await collect({ visitor_id: "visitor-a", url_path: "/pricing" });
		await collect({ visitor_id: "visitor-a", url_path: "/pricing", event_name: "signup", event_data: JSON.stringify({ plan: "pro" }) });
		await collect({ visitor_id: "visitor-b", url_path: "/" });

		await page.getByRole("link", { name: "Shop", exact: true }).click();
		await page.getByRole("heading", { name: "Dashboard" }).waitFor();
		await expect.poll(() => page.getByTestId("figure-Visitors").locator(".value").textContent()).toBe("2");
		expect(await page.getByTestId("figure-Page views").locator(".value").textContent()).toBe("3");
		// Both were here a moment ago; nobody was in the period before.
		expect(await page.getByTestId("figure-now").locator(".value").textContent()).toBe("2");
		expect(await page.getByTestId("figure-Visitors").getByText("none the period before").isVisible()).toBe(true);
		// A's visit came from Google (the referrer's source), B's from nowhere.
		const sources = page.getByRole("region", { name: "Sources" });
		expect(await sources.getByRole("button", { name: "Google" }).isVisible()).toBe(true);
		expect(await sources.getByRole("button", { name: "Direct / None" }).isVisible()).toBe(true);
		await sources.getByRole("button", { name: "Referrers" }).click();
		expect(await sources.getByRole("button", { name: "www.google.com" }).isVisible()).toBe(true);
		const pages = page.getByRole("region", { name: "Pages" });
		await pages.getByRole("button", { name: "Exit pages" }).click();
		expect(await pages.getByRole("button", { name: "/pricing" }).isVisible()).toBe(true);
		await pages.getByRole("button", { name: "Top pages" }).click();
		await page.getByRole("region", { name: "Custom events" }).getByRole("button", { name: "Properties" }).click();
		expect(await page.getByText("signup · plan = pro").isVisible()).toBe(true);
		await checkPage("dashboard");

		// A list as CSV, with the file name the API gives it; its button names the card it belongs to.
		const [download] = await Promise.all([page.waitForEvent("download"), pages.getByRole("button", { name: "Download CSV of Top pages in Pages", exact: true }).click()]);
		// Named after the site's domain and the period's first and last day.
		expect(download.suggestedFilename()).toMatch(/^shop\.example-pages-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
		const csv = await readFile(await download.path(), "utf8");
		expect(csv.split("\r\n").slice(0, 3)).toEqual(["path,pageviews,visitors,scroll_depth,time_on_page", "/,2,2,,", "/pricing,1,1,,"]);

		// A source filters the whole page to the visits that came from it, and opens on the referrer
		// URLs behind it (host and path), which stay in the URL with the filter.
		await sources.getByRole("button", { name: "Sources", exact: true }).click();
		await sources.getByRole("button", { name: "Google" }).click();
		await expect.poll(() => page.getByTestId("figure-Visitors").locator(".value").textContent()).toBe("1");
		expect(page.url()).toContain("source=Google");
		expect(await sources.getByRole("button", { name: "Referrer URLs", pressed: true }).isVisible()).toBe(true);
		expect(await sources.getByRole("cell", { name: "www.google.com/" }).isVisible()).toBe(true);
		await checkPage("dashboard-source");
		await page.reload();
		await sources.getByRole("cell", { name: "www.google.com/" }).waitFor();
		// The chip's operator turns the filter into "is not": B's visit, from no source, with its one
		// page view (A's from Google had two). The address keeps it through a reload, and Back
		// returns to "is".
		const pageViews = () => page.getByTestId("figure-Page views").locator(".value").textContent();
		expect(await pageViews()).toBe("2");
		await page.getByRole("combobox", { name: "Source: is, is not, contains or does not contain Google" }).selectOption("is not");
		await expect.poll(pageViews).toBe("1");
		const filters = () => Object.fromEntries([...new URL(page.url()).searchParams].filter(([name]) => name.startsWith("source")));
		expect(filters()).toEqual({ source_not: "Google" });
		expect(await sources.getByRole("button", { name: "Direct / None" }).isVisible()).toBe(true);
		await checkPage("dashboard-source-not");
		await page.reload();
		await page.getByRole("button", { name: "Source is not Google, remove filter" }).waitFor();
		await expect.poll(pageViews).toBe("1");
		await page.goBack();
		await page.getByRole("button", { name: "Source is Google, remove filter" }).waitFor();
		await expect.poll(pageViews).toBe("2");
		expect(filters()).toEqual({ source: "Google" });
		await page.goForward();
		await expect.poll(pageViews).toBe("1");
		// A row picked is "is", in the place of the filter's "is not".
		await sources.getByRole("button", { name: "Direct / None" }).click();
		const direct = page.getByRole("button", { name: "Source is Direct / None, remove filter" });
		await direct.waitFor();
		expect(filters()).toEqual({ source: "Direct / None" });
		await direct.click();
		await expect.poll(() => sources.getByRole("button", { name: "Referrer URLs" }).count()).toBe(0);

		// A custom event's property filters the page to the visits that had that event with it.
		// Still on Properties, chosen above: the address kept it through the reload.
		const events = page.getByRole("region", { name: "Custom events" });
		await events.getByRole("button", { name: "Properties", exact: true, pressed: true }).click();
		await events.getByRole("button", { name: "signup · plan = pro" }).click();
		await expect.poll(() => page.getByTestId("figure-Visitors").locator(".value").textContent()).toBe("1");
		expect(page.url()).toContain("property=plan%3Apro");
		expect(page.url()).toContain("event=signup");
		expect(await page.getByTestId("figure-Page views").locator(".value").textContent()).toBe("2");
		await checkPage("dashboard-property");
		await page.getByRole("button", { name: "Property plan is pro, remove filter" }).click();
		await page.getByRole("button", { name: "Custom event is signup, remove filter" }).click();
		await expect.poll(() => page.getByTestId("figure-Visitors").locator(".value").textContent()).toBe("2");

		// An exit page filters the page to the visits that left from it: A's, with both its page views.
		await pages.getByRole("button", { name: "Exit pages" }).click();
		await pages.getByRole("button", { name: "/pricing" }).click();
		await expect.poll(() => page.getByTestId("figure-Visitors").locator(".value").textContent()).toBe("1");
		expect(page.url()).toContain("exit_page=%2Fpricing");
		expect(await page.getByTestId("figure-Page views").locator(".value").textContent()).toBe("2");
		await page.getByRole("button", { name: "Exit page is /pricing, remove filter" }).click();
		await expect.poll(() => page.getByTestId("figure-Visitors").locator(".value").textContent()).toBe("2");
		await pages.getByRole("button", { name: "Top pages" }).click();

		// A breakdown row filters the whole page, and the filter is in the URL. While the filtered
		// answer is on its way (held back here), the page says the figures are the previous ones.
		const filtered = (url: URL) => url.pathname.endsWith("/stats") && url.searchParams.get("page") === "/pricing";
		let release = () => {};
		const held = new Promise<void>((resolve) => {
			release = resolve;
		});
		await page.route(filtered, async (route) => {
			await held;
			await route.continue();
		});
		await page.getByRole("region", { name: "Pages" }).getByRole("button", { name: "/pricing" }).click();
		await page.getByRole("status").filter({ hasText: "the figures below are still the previous ones" }).waitFor();
		expect(await page.locator("[aria-busy=true]").count()).toBe(1);
		expect(await page.getByTestId("figure-Page views").locator(".value").textContent()).toBe("3");
		release();
		await expect.poll(() => page.getByTestId("figure-Page views").locator(".value").textContent()).toBe("1");
		expect(await page.locator("[aria-busy=true]").count()).toBe(0);
		await page.unroute(filtered);
		expect(page.url()).toContain("page=%2Fpricing");
		await page.getByRole("button", { name: "Page is /pricing, remove filter" }).click();
		await expect.poll(() => page.getByTestId("figure-Page views").locator(".value").textContent()).toBe("3");

		await page.getByRole("combobox", { name: /^Period/ }).selectOption("today");
		await expect.poll(() => page.getByTestId("figure-Visitors").locator(".value").textContent()).toBe("2");
	});

	it("shows a reported AI-crawler visit, next to the page's human views", async () => {
		const res = await fetch(`${worker.url}/api/bot-crawl-ingest`, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({
				tracking_id: trackingId,
				url_host: "shop.example",
				url_path: "/pricing",
				ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
				country: "FR",
				status: 200,
				ip: "20.171.206.17",
			}),
		});
		expect(res.status).toBe(204);

		await page.getByRole("navigation", { name: "Areas" }).getByRole("link", { name: "Crawlers" }).click();
		await page.getByRole("heading", { name: "AI crawlers" }).waitFor();
		await expect.poll(() => page.getByTestId("figure-crawler-visits").locator(".value").textContent()).toBe("1");
		const recent = page.getByRole("region", { name: "Recent visits", exact: true });
		expect(await recent.getByRole("cell", { name: "GPTBot" }).isVisible()).toBe(true);
		expect(await recent.getByRole("cell", { name: "shop.example/pricing" }).isVisible()).toBe(true);
		// The address is inside OpenAI's published ranges.
		expect(await page.getByText("GPTBot · OpenAI · AI training · 1 verified").isVisible()).toBe(true);
		expect(await recent.getByText("verified", { exact: true }).isVisible()).toBe(true);
		expect(await page.getByTestId("figure-verified").locator(".value").textContent()).toBe("1");
		// /pricing: one AI read (by GPTBot) and the one human view sent above.
		const pricing = page.getByRole("region", { name: "Read by AI, viewed by people" }).getByRole("row", { name: /^\/pricing/ });
		await pricing.waitFor();
		expect(await pricing.getByRole("cell").allTextContents()).toEqual(["/pricingGPTBot 1", "1", "1", "1"]);
		// The two cards of crawlers and paths share the width between them, leaving no empty column.
		const row = await page.locator(".breakdowns").boundingBox();
		const paths = await page.getByRole("region", { name: "Paths" }).boundingBox();
		expect(Math.abs(paths!.x + paths!.width - (row!.x + row!.width))).toBeLessThan(2);
		await checkPage("crawlers");
	});

	it("shows the pages only AI reads (the view kept in the URL), 20 more at a time, and a line per crawler", async () => {
		const ingest = (crawler: string, url_path: string) =>
			fetch(`${worker.url}/api/bot-crawl-ingest`, {
				method: "POST",
				headers: { "content-type": "application/json" },
				body: JSON.stringify({ tracking_id: trackingId, url_host: "shop.example", url_path, ua: `Mozilla/5.0 (compatible; ${crawler}/1.0)`, status: 200 }),
			}).then((res) => expect(res.status).toBe(204));
		// 21 guides nobody viewed, each read once by GPTBot; ClaudeBot reads /pricing.
		await Promise.all(Array.from({ length: 21 }, (_, i) => ingest("GPTBot", `/guide/${String(i).padStart(2, "0")}`)));
		await ingest("ClaudeBot", "/pricing");
		await page.reload();
		const chart = page.getByRole("region", { name: "Visits over time" }).getByRole("img");
		await expect.poll(() => chart.getAttribute("aria-label")).toBe("AI crawler visits over the period, per crawler: GPTBot 22, ClaudeBot 1; 23 in all");

		const section = page.getByRole("region", { name: "Read by AI, viewed by people" });
		await section.getByLabel("Which pages").selectOption("ai-only");
		expect(new URL(page.url()).searchParams.get("pages")).toBe("ai-only");
		// Read once each by GPTBot, viewed by nobody: the first 20 guides, and then all 21 (not /pricing, which people viewed).
		const guides = (n: number) => Array.from({ length: n }, (_, i) => `/guide/${String(i).padStart(2, "0")}AI onlyGPTBot 1`);
		const firstCells = () => section.locator("tbody tr td:first-child").allTextContents();
		await expect.poll(firstCells).toEqual(guides(20));
		await section.getByRole("button", { name: "Show more pages" }).click();
		await expect.poll(firstCells).toEqual(guides(21));
		expect(await section.getByRole("button", { name: "Show more pages" }).count()).toBe(0);
		expect(await section.getByText("21 pages shown").isVisible()).toBe(true);
		await page.reload();
		await expect.poll(() => section.getByLabel("Which pages").inputValue()).toBe("ai-only");
		await checkPage("crawlers-ai-only");
	});

	it("renames a site and moves it to another domain: events from the old one are refused after, and the card says so", async () => {
		// The sites' list (the area's link leads to the site last used).
		await page.goto(`${worker.url}/analytics`);
		await page.getByText("Rename or change the domain").click();
		const settings = page.getByRole("form", { name: "Settings of Shop" });
		await settings.getByLabel("Name").fill("Shop EU");
		await settings.getByLabel("Domain").fill("shop.example.eu");
		await settings.getByRole("button", { name: "Save" }).click();
		await page.getByRole("link", { name: "Shop EU", exact: true }).waitFor();
		expect(await page.getByText("shop.example.eu · tracking ID").isVisible()).toBe(true);
		// Saved, and folded away.
		await expect.poll(() => page.getByRole("form", { name: "Settings of Shop EU" }).isVisible()).toBe(false);

		const collectFrom = (url_host: string) =>
			fetch(`${worker.url}/api/collect`, {
				method: "POST",
				headers: { "content-type": "text/plain", "user-agent": DESKTOP_CHROME },
				body: JSON.stringify({ tracking_id: trackingId, v: "2", url_host, url_path: "/" }),
			}).then((res) => res.status);
		expect(await collectFrom("shop.example.eu")).toBe(204);
		expect(await collectFrom("shop.example")).toBe(403);
		// The site's card says where its tag still runs and counts nothing (noted after the answer).
		const refused = page.getByRole("status").filter({ hasText: "Visits from shop.example were refused, most recently just now" });
		await expect
			.poll(async () => {
				await page.reload();
				await page.getByRole("link", { name: "Shop EU", exact: true }).waitFor();
				return refused.count();
			})
			.toBe(1);
		expect(await refused.textContent()).toContain("it is not shop.example.eu or one of its subdomains");
		// And a dashboard with nothing to show says it too, where the owner looks for the missing visits.
		await page.goto(`${worker.url}/analytics/${trackingId}?period=yesterday`);
		await refused.waitFor();
		await page.goto(`${worker.url}/analytics`);

		// Opened again, the fields hold the saved values; a refused change says why and keeps what was typed.
		await page.getByText("Rename or change the domain").click();
		const domain = page.getByRole("form", { name: "Settings of Shop EU" }).getByLabel("Domain");
		expect(await domain.inputValue()).toBe("shop.example.eu");
		await domain.fill("not a domain");
		await page.getByRole("form", { name: "Settings of Shop EU" }).getByRole("button", { name: "Save" }).click();
		await page.getByRole("alert").filter({ hasText: "domain" }).waitFor();
		expect(await domain.inputValue()).toBe("not a domain");
		await checkPage("site-settings");
	});

	it("warns, before a site is added, of a domain another site has, one of its subdomains or its parent, or of localhost, and adds it all the same", async () => {
		await page.goto(`${worker.url}/analytics`);
		const form = page.getByRole("form", { name: "New site" });
		const domain = form.getByLabel("Domain");
		const warning = form.getByRole("status");
		// Shop EU's, as typed in a hurry: the same site's domain.
		await domain.fill("https://www.Shop.Example.EU/pricing");
		await warning.filter({ hasText: "Another of your sites, Shop EU, already has this domain: their figures will be counted apart." }).waitFor();
		// Told with the field.
		expect(await domain.getAttribute("aria-describedby")).toBe(await warning.getAttribute("id"));
		await checkPage("sites-domain-taken");
		await domain.fill("shop.example.com");
		await warning.waitFor({ state: "detached" });
		expect(await domain.getAttribute("aria-describedby")).toBeNull();
		// Shop EU takes its subdomains' visits too: a site of one of them, or of its parent, splits them by snippet.
		await domain.fill("blog.shop.example.eu");
		await warning
			.filter({ hasText: "blog.shop.example.eu is a subdomain of shop.example.eu, which your site Shop EU has: its pages are counted by whichever site's snippet they carry, not both." })
			.waitFor();
		await domain.fill("example.eu");
		await warning.filter({ hasText: "Your site Shop EU has shop.example.eu, a subdomain of example.eu" }).waitFor();
		// A name that merely ends the same is no subdomain.
		await domain.fill("myshop.example.eu");
		await warning.waitFor({ state: "detached" });

		for (const local of ["localhost:3000", "127.0.0.1"]) {
			await domain.fill(local);
			await warning.filter({ hasText: "local development server: a visit counts only when the tracker runs there" }).waitFor();
		}
		// Spaces are no domain: the browser keeps the form from being sent.
		const typed = await domain.inputValue();
		await domain.fill("   ");
		expect(await domain.evaluate((input: HTMLInputElement) => input.validity.patternMismatch)).toBe(true);
		await form.getByRole("button", { name: "Add site" }).click();
		expect(await domain.evaluate((input: HTMLInputElement) => input.matches(":invalid"))).toBe(true);
		await domain.fill(typed);
		// A warning, not a refusal: the site is added, and the emptied form warns no more.
		await form.getByRole("button", { name: "Add site" }).click();
		await page.getByRole("link", { name: "127.0.0.1", exact: true }).waitFor();
		// Emptied once the list shows the new site.
		await expect.poll(() => domain.inputValue()).toBe("");
		expect(await warning.count()).toBe(0);

		// A site's own domain is no other site's; another's is, in its settings too.
		await page.locator("li", { has: page.getByRole("link", { name: "Shop EU", exact: true }) }).getByText("Rename or change the domain").click();
		await page.getByRole("form", { name: "Settings of Shop EU" }).getByLabel("Domain").fill("shop.example.eu");
		expect(await page.getByRole("form", { name: "Settings of Shop EU" }).getByRole("status").count()).toBe(0);
		await page.locator("li", { has: page.getByRole("link", { name: "127.0.0.1", exact: true }) }).getByText("Rename or change the domain").click();
		const local = page.getByRole("form", { name: "Settings of 127.0.0.1" });
		await local.getByRole("status").filter({ hasText: "127.0.0.1 is the address of a local development server" }).waitFor();
		await local.getByLabel("Domain").fill("shop.example.eu");
		await local.getByRole("status").filter({ hasText: "Another of your sites, Shop EU, already has this domain" }).waitFor();
	});
});
