/**
 * Notes on an issue, left from its page: kept in its activity with the lines they were written in,
 * and an empty one refused in the form's words. Starts from a new owner signed in on a page of their own.
 */
import { describe, expect, it } from "vitest";
import { axeViolations } from "./axe";
import { ownerPages } from "./consolePage";
import { api, issuesOnceThereAre, workerAndBrowser } from "./stack";

const stack = workerAndBrowser();
const { signedIn, addShopKey } = ownerPages(stack);

describe("a note left on an issue's page", () => {
	it("shows in its activity as written, and an empty one is refused in words", async () => {
		let hash = "";
		const { context, page, pageErrors } = await signedIn("issue-notes", "10.98.0.23", {
			before: async (token) => {
				await api(stack.worker.url, "/api/app-logs-ingest", { token: await addShopKey(token), json: { message: "Checkout failed" } });
				[{ group_hash: hash }] = await issuesOnceThereAre(expect, stack.worker.url, token, "shop", 1);
			},
		});
		await page.goto(`${stack.worker.url}/issues/shop/${hash}`);
		const activity = page.getByRole("region", { name: "Activity" });
		const box = activity.getByRole("textbox", { name: "Leave a note" });
		await box.fill("Caused by the card form's new validation.\nFix in #482.");
		await activity.getByRole("button", { name: "Add note" }).click();
		const note = activity.getByTestId("issue-activity").locator("li").filter({ hasText: "Fix in #482." });
		await note.waitFor();
		// biome-ignore lint/performance/useDomNodeTextContent: the text as drawn, to see that the note keeps its line break on screen.
		expect(await note.locator(".note-text").innerText()).toBe("Caused by the card form's new validation.\nFix in #482.");
		expect(await box.inputValue()).toBe("");
		expect(await activity.getByTestId("issue-activity").locator("li").count()).toBe(2);
		expect(await axeViolations(page)).toEqual([]);

		await activity.getByRole("button", { name: "Add note" }).click();
		await activity.getByRole("alert").filter({ hasText: "Write the note first." }).waitFor();
		expect(await box.getAttribute("maxlength")).toBe("2000");
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});
