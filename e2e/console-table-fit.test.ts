/**
 * Tables whose columns are narrower than some of their words: each header fits its column
 * instead of running into the next one or past the card, on a desktop screen and at 390 px.
 */
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { ownerPages } from "./consolePage";
import { api, DESKTOP_CHROME, workerAndBrowser } from "./stack";

const stack = workerAndBrowser();
const { signedIn, addSite } = ownerPages(stack);

/** The headers of the page's tables whose text is wider than their cell, with both widths. */
const overflowingHeaders = (page: Page) =>
	page.evaluate(() =>
		Array.from(document.querySelectorAll("th"))
			// A first column may cut its title with an ellipsis, as the breakdowns' does.
			.filter((th) => th.scrollWidth > th.clientWidth && getComputedStyle(th).textOverflow !== "ellipsis")
			.map((th) => `"${th.textContent}" ${th.scrollWidth} px in ${th.clientWidth}`),
	);

it("fits the Engagement list's headers (time on page, scroll depth) in their columns", async () => {
	let site = "";
	const { page, pageErrors } = await signedIn("table-fit-engagement", "10.94.0.1", {
		before: async (token) => {
			site = await addSite(token, "fit.example");
			for (const event of [{ event_name: "" }, { event_name: "_leave", engaged_ms: 42_000, scroll_depth: 80 }]) {
				const res = await fetch(`${stack.worker.url}/api/collect`, {
					method: "POST",
					headers: { "content-type": "text/plain", "user-agent": DESKTOP_CHROME },
					body: JSON.stringify({ tracking_id: site, v: "2", url_host: "fit.example", visitor_id: "v", url_path: "/pricing", ...event }),
				});
				expect(res.status).toBe(204);
			}
		},
	});
	for (const width of [1280, 390]) {
		await page.setViewportSize({ width, height: 844 });
		await page.goto(`${stack.worker.url}/analytics/${site}?pages_tab=engagement`);
		await page.getByRole("columnheader", { name: "Scroll depth" }).waitFor();
		expect(await overflowingHeaders(page), `at ${width} px`).toEqual([]);
	}
	expect(pageErrors).toEqual([]);
});

it("keeps an uploaded file's long URL and debug id readable at 390 px, the table scrolling instead", async () => {
	const url = "~/assets/chunks/vendor/checkout/payment-form/address-autocomplete.3f9a8b7c6d5e4f3a2b1c.js";
	const debugId = "c2f9a1d4-5b6e-4f70-8a9b-0c1d2e3f4a5b";
	const { page, pageErrors } = await signedIn("table-fit-artifacts", "10.94.0.2", {
		before: async (token) => {
			await api(stack.worker.url, "/api/feedback-key", { token, json: { project_name: "web" } });
			const body = new FormData();
			body.append("file", new Blob([`console.log(1);\n//# debugId=${debugId}\n`]), url);
			const res = await fetch(`${stack.worker.url}/api/releases/web%401.0.0/artifacts?project_name=web`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body });
			expect(res.status).toBe(201);
		},
	});
	await page.setViewportSize({ width: 390, height: 844 });
	await page.goto(`${stack.worker.url}/projects/web/sourcemaps`);
	for (const text of [url, debugId]) {
		const cell = page.getByRole("cell", { name: text });
		await cell.waitFor();
		// 12rem: a few words a line, not two or three letters (the URL came out 40 lines of three).
		expect((await cell.boundingBox())?.width, text).toBeGreaterThanOrEqual(192);
	}
	expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
	expect(pageErrors).toEqual([]);
});
