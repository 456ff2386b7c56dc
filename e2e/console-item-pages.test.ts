/**
 * An item's own page and the list it opens from: feedback deleted from its page leads back to the
 * list without asking for the item again, its status is labelled and says when it changed, and an
 * issue's 1,000-character title takes two lines of the list and shows whole on its page. Each starts from a new owner signed in on a page of their
 * own.
 */
import { describe, expect, it } from "vitest";
import { axeViolations } from "./axe";
import { ownerPages } from "./consolePage";
import { api, workerAndBrowser } from "./stack";

const stack = workerAndBrowser();
const { signedIn, addShopKey } = ownerPages(stack);

describe("deleting feedback from its own page", () => {
	it("takes the owner back to the list without asking for the deleted item again", async () => {
		const { context, page, pageErrors } = await signedIn("deletes-feedback", "10.98.0.10", {
			before: async (token) => {
				await api(stack.worker.url, "/functions/v1/submit-feedback", { token: await addShopKey(token), json: { title: "Crash on save", description: "It crashes" } });
			},
		});
		const notFound: string[] = [];
		page.on("response", (response) => {
			if (response.status() === 404) notFound.push(response.url());
		});
		await page.goto(`${stack.worker.url}/feedback/shop`);
		await page.getByRole("link", { name: "Crash on save" }).click();
		await page.getByRole("button", { name: "Delete…" }).click();
		await page.getByRole("button", { name: "Delete feedback" }).click();
		await page.getByText("No feedback yet for this project.").waitFor();
		expect(notFound).toEqual([]);
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});

describe("a feedback item's status on its own page", () => {
	it("is labelled on screen, and says politely once it is changed, or why not", async () => {
		const { context, page, pageErrors } = await signedIn("item-status", "10.98.0.14", {
			before: async (token) => {
				await api(stack.worker.url, "/functions/v1/submit-feedback", { token: await addShopKey(token), json: { title: "Crash on save", description: "It crashes" } });
			},
		});
		await page.goto(`${stack.worker.url}/feedback/shop`);
		await page.getByRole("link", { name: "Crash on save" }).click();
		// The list's own Status filter has the same name: its page must be gone before the item's select is looked up.
		await page.locator("#feedback-title").waitFor();
		const select = page.getByRole("combobox", { name: "Status", exact: true });
		expect(await select.evaluate((element: HTMLSelectElement) => element.labels?.[0]?.firstChild?.textContent?.trim())).toBe("Status");
		expect(await page.locator("label", { has: select }).isVisible()).toBe(true);
		const said = page.getByRole("status").filter({ hasText: /^Status set to/ });
		expect(await said.count()).toBe(0);
		await select.selectOption("closed");
		await said.waitFor();
		expect(await said.textContent()).toBe("Status set to Closed");
		expect(await axeViolations(page)).toEqual([]);

		// Refused: said as the page says an action's failure, and not as done.
		await page.route("**/api/feedback", (route) =>
			route.fulfill({ status: 500, contentType: "application/json", body: JSON.stringify({ error: "Internal server error", request_id: "test" }) }),
		);
		await select.selectOption("in_progress");
		await page.getByRole("alert").filter({ hasText: "Internal server error" }).waitFor();
		expect(await said.count()).toBe(0);
		expect(await select.inputValue()).toBe("closed");
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});

describe("an issue with a 1,000-character title", () => {
	it("takes two lines of the list, and its page shows it whole", async () => {
		const title = `Error: ${"the cart could not be saved because ".repeat(30)}`.slice(0, 1_000);
		const { context, page, pageErrors } = await signedIn("long-title", "10.98.0.13", {
			before: async (token) => {
				await api(stack.worker.url, "/api/app-logs-ingest", { token: await addShopKey(token), json: { message: title } });
			},
		});
		await page.goto(`${stack.worker.url}/issues/shop`);
		const link = page.locator(".issue-row .title");
		await link.waitFor();
		const lineHeight = await link.evaluate((element) => Number.parseFloat(getComputedStyle(element).lineHeight));
		expect((await link.boundingBox())?.height).toBeLessThanOrEqual(2 * lineHeight + 1);
		await link.click();
		await page.getByRole("heading", { name: title.trim() }).waitFor();
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});
