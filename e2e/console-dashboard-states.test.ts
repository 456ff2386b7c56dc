/**
 * The analytics dashboard in states its walk-throughs (console-analytics.test.ts,
 * console-dashboard.test.ts) do not reach: a breakdown longer than its card, a site whose
 * collection is off, and a filtered view estimated from a sample of the visitors. Each starts from
 * a new owner signed in on a page of their own.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { OWNER_LIMITS } from "../domain/limits";
import { axeViolations } from "./axe";
import { ARTIFACTS, ownerPages } from "./consolePage";
import { api, type Database, DESKTOP_CHROME, workerAndBrowser } from "./stack";

const stack = workerAndBrowser();
const { signedIn, addSite } = ownerPages(stack);

describe("a breakdown longer than its card", () => {
	it("shows its top 10 and says there are more, at 11 pages and not at 10", async () => {
		let trackingId = "";
		const { context, page, pageErrors } = await signedIn("many-pages", "10.98.0.13", {
			before: async (token) => {
				trackingId = await addSite(token, "many.example");
			},
		});
		const view = (path: string) =>
			fetch(`${stack.worker.url}/api/collect`, {
				method: "POST",
				headers: { "content-type": "text/plain", "user-agent": DESKTOP_CHROME },
				body: JSON.stringify({ tracking_id: trackingId, v: "2", url_host: "many.example", url_path: path, visitor_id: `visitor-${path}` }),
			}).then((res) => expect(res.status).toBe(204));
		const pages = page.getByRole("region", { name: "Pages" });
		const more = pages.getByText("The top 10 of more; the CSV holds every one.");
		for (let i = 1; i <= 10; i++) await view(`/p${i}`);
		await page.goto(`${stack.worker.url}/analytics/${trackingId}`);
		await expect.poll(() => pages.locator("tbody tr").count()).toBe(10);
		expect(await more.count()).toBe(0);
		await view("/p11");
		await page.reload();
		await more.waitFor();
		expect(await pages.locator("tbody tr").count()).toBe(10);
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});

describe("a site whose collection is off", () => {
	it("says so on its dashboard", async () => {
		let trackingId = "";
		const { context, page, pageErrors } = await signedIn("paused-site", "10.98.0.9", {
			before: async (token) => {
				trackingId = await addSite(token, "paused.example");
				await api(stack.worker.url, `/api/sites/${trackingId}`, { method: "PATCH", token, json: { active: false } });
			},
		});
		await page.goto(`${stack.worker.url}/analytics/${trackingId}`);
		await page.getByRole("status").filter({ hasText: "Collection is off for this site" }).waitFor();
		expect(await axeViolations(page)).toEqual([]);
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});

describe("a filtered view over more events than the statistics count one by one", () => {
	it("says the figures are estimated from a share of the visitors, and counts every one on request", async () => {
		const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000;
		let site = { tracking_id: "" };
		const { context, page, pageErrors } = await signedIn("sampled", "10.98.0.4", {
			before: async (token) => {
				site = { tracking_id: await addSite(token, "sampled.example") };
				const env = await stack.worker.server.getWorker<{ DB: Database }>().getEnv();
				// The rollups (the hour's row and its UTC day's, as the collector writes both) say the hour
				// held one event more than a filtered answer counts one by one; the two events themselves
				// are of visitors in the sample's first bucket and in its last.
				for (const [span, start] of [[3_600_000, hour], [86_400_000, Math.floor(hour / 86_400_000) * 86_400_000]]) {
					await env.DB.prepare("INSERT INTO analytics_rollups (tracking_id, dim, span, start, value, pageviews) VALUES (?, '', ?, ?, '', ?)")
						.bind(site.tracking_id, span, start, OWNER_LIMITS.statsSampleEvents + 1)
						.run();
				}
				for (const [id, visitor] of [["e1", "00".padEnd(32, "a")], ["e2", "ff".padEnd(32, "a")]]) {
					await env.DB.prepare("INSERT INTO analytics_events (tracking_id, event_id, ts, visitor_id, country, url_path) VALUES (?, ?, ?, ?, 'DE', '/')")
						.bind(site.tracking_id, id, hour + 60_000, visitor)
						.run();
				}
			},
		});
		await page.goto(`${stack.worker.url}/analytics/${site.tracking_id}?country=DE`);
		const note = page.getByTestId("sample-note");
		await note.waitFor();
		expect(await note.textContent()).toContain("Estimated from 99.6 % of visitors");
		// Of the two page views, the sample holds the first bucket's: 1 × 256 / 255, rounded.
		expect(await page.getByTestId("figure-Page views").locator(".value").textContent()).toBe("1");
		expect(await axeViolations(page)).toEqual([]);

		await page.getByRole("button", { name: "Count every visitor" }).click();
		await page.getByText("Every visitor counted").waitFor();
		expect(new URL(page.url()).searchParams.get("exact")).toBe("true");
		await expect.poll(() => page.getByTestId("figure-Page views").locator(".value").textContent()).toBe("2");
		expect(await note.count()).toBe(0);
		await page.screenshot({ path: join(ARTIFACTS, "dashboard-sampled.png"), fullPage: true });
		await page.getByRole("button", { name: "Estimate instead" }).click();
		await note.waitFor();
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});
