/**
 * The console's charts as drawn (TimeChart): a bar chart's last bar, the hour under way, whole inside
 * the plot rather than cut in half at its right edge, and a legend that gives the period's figures
 * while the pointer is on no bucket, rather than "--".
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations } from "./axe";
import { DESKTOP, useSession } from "./consolePage";
import { api, signUpOwner, workerAndBrowser } from "./stack";

const stack = workerAndBrowser();

/** Where the last bar of the chart's bar colour (--chart-1) runs along a line just above the plot's floor, in device pixels, and the plot's own left and right. */
function lastBar(page: Page) {
	return page.locator(".chart").first().evaluate((chart) => {
		const canvas = chart.querySelector("canvas") as HTMLCanvasElement;
		const over = (chart.querySelector(".u-over") as HTMLElement).getBoundingClientRect();
		const box = canvas.getBoundingClientRect();
		const scale = canvas.width / box.width;
		const [left, right] = [Math.round((over.left - box.left) * scale), Math.round((over.right - box.left) * scale)];
		const y = Math.round((over.bottom - box.top - 3) * scale);
		const row = (canvas.getContext("2d") as CanvasRenderingContext2D).getImageData(0, y, canvas.width, 1).data;
		const bar = getComputedStyle(document.documentElement).getPropertyValue("--chart-1").trim().match(/[\da-f]{2}/gi)?.map((hex) => Number.parseInt(hex, 16)) ?? [];
		const isBar = (x: number) => bar.every((channel, i) => Math.abs(row[x * 4 + i] - channel) <= 8);
		let end = right - 1;
		while (end >= left && !isBar(end)) end--;
		let start = end;
		while (start > left && isBar(start - 1)) start--;
		return { left, right, start, end };
	});
}

let page: Page;
const pageErrors: string[] = [];

// A new owner whose project's key sent one event this hour, on its issue's page.
beforeAll(async () => {
	const { token } = await signUpOwner(stack.worker.url, "charts", "10.96.0.1");
	const { raw_api_key: key } = await api<{ raw_api_key: string }>(stack.worker.url, "/api/feedback-key", { token, json: { project_name: "shop" } });
	const { group_hash: hash } = await api<{ group_hash: string }>(stack.worker.url, "/api/app-logs-ingest", { token: key, json: { message: "Checkout failed" } });
	page = await stack.browser.newPage({ viewport: DESKTOP, locale: "en-US" });
	page.on("pageerror", (error) => pageErrors.push(error.message));
	await useSession(page, stack.worker.url, token);
	await page.goto(`${stack.worker.url}/issues/shop/${hash}`);
	await page.locator(".chart canvas").first().waitFor();
});

afterAll(() => page?.close());

const legend = () => page.locator(".chart .u-legend .u-series");

describe("a bar chart", () => {
	it("draws the hour under way, its last bar, whole and inside the plot", async () => {
		// The last of the 24 bars, as wide as a bar is (70% of an hour's room), ending inside the plot.
		await page.goto(page.url().replace(/\?.*/, ""));
		await page.locator(".chart canvas").first().waitFor();
		const { left, right, start, end } = await lastBar(page);
		expect(end, "a bar in the last hour").toBeGreaterThan(left);
		expect(end, "the last bar ends inside the plot").toBeLessThan(right - 2);
		expect(end - start + 1, "the last bar is whole").toBeGreaterThanOrEqual(0.6 * ((right - left) / 24));

		// By day over 30 days: today's bar too.
		await page.getByRole("button", { name: "30 days" }).click();
		await expect.poll(() => new URL(page.url()).searchParams.get("period")).toBe("30d");
		await page.getByRole("img", { name: /^Events per UTC day/ }).waitFor();
		await page.waitForTimeout(100);
		const daily = await lastBar(page);
		expect(daily.end, "a bar today").toBeGreaterThan(daily.left);
		expect(daily.end, "today's bar ends inside the plot").toBeLessThan(daily.right - 2);
		expect(pageErrors).toEqual([]);
	});
});

describe("a chart's legend", () => {
	it("gives the period's figures while no bucket is pointed at, a bucket's when one is", async () => {
		await page.goto(page.url().replace(/\?.*/, ""));
		await legend().nth(1).waitFor();
		expect(await legend().allTextContents()).toEqual(["Time (UTC)whole period", "Events1"]);
		const plot = page.locator(".chart .u-over").first();
		const box = await plot.boundingBox();
		await plot.hover({ position: { x: (box?.width ?? 2) / 2, y: (box?.height ?? 2) / 2 } });
		await expect.poll(() => legend().nth(1).textContent()).toBe("Events0");
		expect(await legend().nth(0).textContent()).toMatch(/^Time \(UTC\)\d{4}-\d{2}-\d{2} \d{1,2}:00[ap]m$/);
		// The pointer gone, the period's figures again.
		await page.mouse.move(0, 0);
		await expect.poll(() => legend().nth(1).textContent()).toBe("Events1");
		await page.getByRole("button", { name: "30 days" }).click();
		await expect.poll(() => legend().allTextContents()).toEqual(["Time (UTC)whole period", "Events1"]);
		expect(await axeViolations(page)).toEqual([]);
		expect(pageErrors).toEqual([]);
	});
});
