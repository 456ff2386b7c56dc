/**
 * The Analytics page's list of sites with each site's visitors in the last 24 hours and a bar per
 * hour, as Plausible's list shows them: from traffic sent to the collect endpoint, read for the
 * whole list in one request.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type ConsoleUnderTest, openConsole, useSession } from "./consolePage";
import { api, DESKTOP_CHROME, signUpOwner } from "./stack";

let ui: ConsoleUnderTest;

beforeAll(async () => {
	ui = await openConsole();
});
afterAll(async () => {
	await ui?.close();
});

it("shows each site's visitors in the last 24 hours, with a sparkline and its words, from one request", async () => {
	const { page, worker } = ui;
	const { token } = await signUpOwner(worker.url, "site-figures", "10.93.0.1");
	const site = (domain: string, name: string) => api<{ tracking_id: string }>(worker.url, "/api/sites", { token, json: { domain, name } });
	const shop = (await site("shop.example", "Shop")).tracking_id;
	await site("blog.example", "Blog");
	// Three visitors on the shop, one of them on two pages; none on the blog.
	for (const [visitor, path] of [["a", "/"], ["a", "/pricing"], ["b", "/"], ["c", "/about"]]) {
		const res = await fetch(`${worker.url}/api/collect`, {
			method: "POST",
			headers: { "content-type": "text/plain", "user-agent": DESKTOP_CHROME },
			body: JSON.stringify({ tracking_id: shop, v: "2", url_host: "shop.example", visitor_id: `visitor-${visitor}`, url_path: path }),
		});
		expect(res.status).toBe(204);
	}
	// The list does not wait for each site's collector to write what it accepted: the figures follow within a moment.
	const shopVisitors = async () =>
		(await api<{ sites: Array<{ tracking_id: string; last_24h: { visitors: number } }> }>(worker.url, "/api/sites?figures=last_24h", { token })).sites.find(
			(s) => s.tracking_id === shop,
		)?.last_24h.visitors;
	await expect.poll(shopVisitors, { timeout: 10_000 }).toBe(3);

	const listReads: string[] = [];
	page.on("request", (request) => {
		const url = new URL(request.url());
		if (url.pathname.startsWith("/api/sites")) listReads.push(`${url.pathname}${url.search}`);
	});
	await useSession(page, worker.url, token);
	await page.goto(`${worker.url}/analytics`);
	const card = (name: string) => page.getByRole("listitem").filter({ has: page.getByRole("heading", { name, exact: true }) });
	await ui.waitShown(card("Shop").getByText("visitors in the last 24 hours"));
	expect(((await card("Shop").getByText("in the last 24 hours").locator("..").textContent()) ?? "").replace(/\s+/g, " ")).toBe("3 visitors in the last 24 hours");
	expect(((await card("Blog").getByText("in the last 24 hours").locator("..").textContent()) ?? "").replace(/\s+/g, " ")).toBe("0 visitors in the last 24 hours");
	// The sparkline says in words what it draws: all three came in this hour.
	expect(await card("Shop").getByRole("img").getAttribute("aria-label")).toBe("Visitors per hour over the last 24 hours: at most 3 visitors in an hour");
	expect(await card("Blog").getByRole("img").getAttribute("aria-label")).toBe("No visitors in any hour of the last 24 hours");
	expect(await card("Shop").locator(".sparkline canvas").count()).toBe(1);
	// One read of the list with its figures for every site, none per site.
	expect(listReads.filter((path) => path.includes("figures"))).toEqual(["/api/sites?figures=last_24h"]);
	expect(listReads.filter((path) => /^\/api\/sites\/s_/.test(path))).toEqual([]);
	await ui.checkPage("analytics-site-figures");
});
