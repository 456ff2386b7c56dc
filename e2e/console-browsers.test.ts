/**
 * The console in browsers unlike the walk-throughs' one: a page whose code cannot load (as after a
 * deploy), a browser reporting a POSIX locale, and one west of UTC. Each starts from a new owner
 * signed in on a page of their own.
 */
import { describe, expect, it } from "vitest";
import { axeViolations } from "./axe";
import { ownerPages } from "./consolePage";
import { DESKTOP_CHROME, workerAndBrowser } from "./stack";

const stack = workerAndBrowser();
const { signedIn, addSite } = ownerPages(stack);

describe("when a page's code cannot load", () => {
	it("says so in words, and the navigation still works", async () => {
		const { context, page: broken } = await signedIn("broken", "10.98.0.2");
		// As after a deploy that replaced the chunks an open console still asks for.
		await broken.route(/\/assets\/(AnalyticsPage|TimeChart)-[\w-]+\.js$/, (route) => route.fulfill({ status: 404, body: "" }));
		await broken.goto(`${stack.worker.url}/analytics`);
		await broken.getByRole("alert").filter({ hasText: "This page could not be shown" }).waitFor();
		await broken.getByRole("button", { name: "Reload" }).waitFor();
		expect(await axeViolations(broken)).toEqual([]);
		await broken.getByRole("navigation", { name: "Areas" }).getByRole("link", { name: "Account" }).click();
		await broken.getByRole("heading", { name: "Account" }).waitFor();
		await context.close();
	});
});

describe("in a browser that reports a POSIX locale", () => {
	it("draws the dashboard's chart (a headless browser started without a locale reports en-US@posix)", async () => {
		let site = { tracking_id: "" };
		const { context, page: posix, pageErrors: errors } = await signedIn("posix", "10.98.0.3", {
			locale: "en-US@posix",
			before: async (token) => {
				site = { tracking_id: await addSite(token, "posix.example") };
			},
		});
		await posix.goto(`${stack.worker.url}/analytics/${site.tracking_id}`);
		await posix.getByRole("heading", { name: "Dashboard" }).waitFor();
		await posix.locator(".chart canvas").first().waitFor();
		expect(await posix.getByText("This page could not be shown").count()).toBe(0);
		expect(errors).toEqual([]);
		// What the page's own code reads: the same tag, made one Intl accepts.
		expect(await posix.evaluate(() => navigator.language)).toBe("en-US");
		await context.close();
	});
});

describe("in a browser west of UTC", () => {
	it("asks for whole UTC days and draws today's visits on today, in UTC", async () => {
		let trackingId = "";
		const { context, page, pageErrors } = await signedIn("new-york", "10.98.0.14", {
			timezoneId: "America/New_York",
			before: async (token) => {
				trackingId = await addSite(token, "west.example");
				const res = await fetch(`${stack.worker.url}/api/collect`, {
					method: "POST",
					headers: { "content-type": "text/plain", "user-agent": DESKTOP_CHROME },
					body: JSON.stringify({ tracking_id: trackingId, v: "2", url_host: "west.example", url_path: "/" }),
				});
				expect(res.status).toBe(204);
			},
		});
		const asked = page.waitForRequest((request) => request.url().includes(`/api/sites/${trackingId}/stats?`));
		await page.goto(`${stack.worker.url}/analytics/${trackingId}`);
		const today = Math.floor(Date.now() / 86_400_000) * 86_400_000;
		const query = new URL((await asked).url()).searchParams;
		expect([query.get("from"), query.get("to")]).toEqual([new Date(today - 6 * 86_400_000).toISOString(), new Date(today + 86_400_000).toISOString()]);
		expect(await page.getByText("UTC days").isVisible()).toBe(true);
		// The last day's point, under the pointer: today's UTC date, at its UTC midnight.
		const plot = page.locator(".chart .u-over").first();
		await page.getByTestId("figure-Visitors").locator(".value").filter({ hasText: "1" }).waitFor();
		const box = await plot.boundingBox();
		await plot.hover({ position: { x: (box?.width ?? 2) - 1, y: (box?.height ?? 2) / 2 } });
		const time = page.locator(".chart .u-legend .u-series").first();
		await expect.poll(() => time.textContent()).toContain(new Date(today).toISOString().slice(0, 10));
		expect(await time.textContent()).toContain("Time (UTC)");
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});
