/**
 * The dashboard's Filter dialog and its "contains" filters, as Plausible's Filter menu: a filter,
 * an operator and a value typed with suggestions, Apply, then the chip's operator changed and the
 * chip removed, the address keeping each step.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { type ConsoleUnderTest, openConsole, useSession } from "./consolePage";
import { api, DESKTOP_CHROME, signUpOwner } from "./stack";

let ui: ConsoleUnderTest;
let page: Page;
let worker: ConsoleUnderTest["worker"];
let checkPage: ConsoleUnderTest["checkPage"];
let shop = "";

const collect = (body: Record<string, unknown>) =>
	fetch(`${worker.url}/api/collect`, {
		method: "POST",
		headers: { "content-type": "text/plain", "user-agent": DESKTOP_CHROME },
		body: JSON.stringify({ tracking_id: shop, v: "2", url_host: "shop.example", ...body }),
	}).then((res) => expect(res.status).toBe(204));

const figure = (label: string) => page.getByTestId(`figure-${label}`).locator(".value");
const address = () => new URL(page.url()).searchParams;

// Four visitors, five page views: A views / and /Blog/hello, B /pricing, C /blog, D /blog/x.
// "blog", letter case aside, is in three of the paths: A's second page view, C's and D's.
beforeAll(async () => {
	ui = await openConsole();
	({ page, worker, checkPage } = ui);
	const { token } = await signUpOwner(worker.url, "filter-dialog", "10.97.2.1");
	shop = (await api<{ tracking_id: string }>(worker.url, "/api/sites", { token, json: { domain: "shop.example", name: "Shop" } })).tracking_id;
	for (const [visitor, path] of [["a", "/"], ["a", "/Blog/hello"], ["b", "/pricing"], ["c", "/blog"], ["d", "/blog/x"]]) {
		await collect({ visitor_id: `visitor-${visitor}`, url_path: path });
	}
	await useSession(page, worker.url, token);
});

afterAll(async () => {
	await ui?.close();
});

describe("the Filter dialog", () => {
	it("adds Page contains blog by typing, keeps it in the address, changes its operator on the chip and removes it", async () => {
		await page.goto(`${worker.url}/analytics/${shop}?period=30d`);
		await expect.poll(() => figure("Visitors").textContent()).toBe("4");
		const opener = page.getByRole("button", { name: "Filter", exact: true });
		const dialog = page.getByRole("dialog", { name: "Add a filter" });

		// Escape closes it, and focus is back on the button.
		await opener.click();
		await dialog.waitFor();
		await page.keyboard.press("Escape");
		await dialog.waitFor({ state: "hidden" });
		expect(await opener.evaluate((button) => button === document.activeElement)).toBe(true);

		await opener.click();
		await dialog.waitFor();
		// Focus stays within the dialog: Tab never reaches the page behind it.
		for (let i = 0; i < 8; i++) {
			await page.keyboard.press("Tab");
			const outside = await page.evaluate(() => {
				const focused = document.activeElement;
				return focused !== null && focused !== document.body && !focused.closest("dialog[open]") ? focused.outerHTML.slice(0, 80) : null;
			});
			expect(outside).toBeNull();
		}
		// A country only is or is not; a page also contains.
		const filter = dialog.getByRole("combobox", { name: "Filter" });
		const operator = dialog.getByRole("combobox", { name: "Operator" });
		await filter.selectOption({ label: "Country" });
		expect(await operator.locator("option").allTextContents()).toEqual(["is", "is not"]);
		await filter.selectOption({ label: "Page" });
		expect(await operator.locator("option").allTextContents()).toEqual(["is", "is not", "contains", "does not contain"]);
		await operator.selectOption({ label: "contains" });
		// The value is suggested from the period's pages.
		await expect
			.poll(async () => (await dialog.locator("datalist option").evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value))).sort())
			.toEqual(["/", "/Blog/hello", "/blog", "/blog/x", "/pricing"]);
		await dialog.getByRole("combobox", { name: "Value" }).fill("blog");
		// axe, in both colour schemes, and no sideways scrolling at 390 px, the dialog open.
		await checkPage("dashboard-filter-dialog");
		await dialog.getByRole("button", { name: "Apply" }).click();
		await dialog.waitFor({ state: "hidden" });

		const chip = page.getByRole("button", { name: "Page contains blog, remove filter" });
		await chip.waitFor();
		await expect.poll(() => chip.evaluate((button) => button === document.activeElement)).toBe(true);
		await expect.poll(() => figure("Visitors").textContent()).toBe("3");
		expect(await figure("Page views").textContent()).toBe("3");
		expect(address().get("page_contains")).toBe("blog");
		await page.reload();
		await chip.waitFor();
		await expect.poll(() => figure("Visitors").textContent()).toBe("3");

		// The chip's operator: "does not contain" keeps A's / and B's /pricing.
		await page.getByRole("combobox", { name: "Page: is, is not, contains or does not contain blog" }).selectOption({ label: "does not contain" });
		await page.getByRole("button", { name: "Page does not contain blog, remove filter" }).waitFor();
		await expect.poll(() => figure("Page views").textContent()).toBe("2");
		expect([address().get("page_contains"), address().get("page_contains_not")]).toEqual([null, "blog"]);
		// Back shows the filter as it was.
		await page.goBack();
		await chip.waitFor();
		await expect.poll(() => figure("Page views").textContent()).toBe("3");

		await chip.click();
		await expect.poll(() => figure("Visitors").textContent()).toBe("4");
		expect(address().has("page_contains")).toBe(false);
		expect(await page.getByRole("button", { name: /remove filter$/ }).count()).toBe(0);
	});

	it("applies in place of the chip of the same filter and operator, and asks a property for its colon", async () => {
		await page.goto(`${worker.url}/analytics/${shop}?period=30d&page_contains=blog`);
		await page.getByRole("button", { name: "Page contains blog, remove filter" }).waitFor();
		await page.getByRole("button", { name: "Filter", exact: true }).click();
		const dialog = page.getByRole("dialog", { name: "Add a filter" });
		await dialog.getByRole("combobox", { name: "Operator" }).selectOption({ label: "contains" });
		await dialog.getByRole("combobox", { name: "Value" }).fill("PRIC");
		await dialog.getByRole("button", { name: "Apply" }).click();
		await page.getByRole("button", { name: "Page contains PRIC, remove filter" }).waitFor();
		await expect.poll(() => figure("Page views").textContent()).toBe("1");
		expect(await page.getByRole("button", { name: /remove filter$/ }).count()).toBe(1);

		await page.getByRole("button", { name: "Filter", exact: true }).click();
		await dialog.getByRole("combobox", { name: "Filter" }).selectOption({ label: "Property" });
		await dialog.getByRole("combobox", { name: "Value" }).fill("plan");
		await dialog.getByRole("button", { name: "Apply" }).click();
		await dialog.getByRole("alert").getByText("A property filter is its name, a colon and its value, as plan:pro.").waitFor();
		expect(await dialog.isVisible()).toBe(true);
		await dialog.getByRole("button", { name: "Cancel" }).click();
		await dialog.waitFor({ state: "hidden" });
		expect(address().has("property")).toBe(false);
	});
});
