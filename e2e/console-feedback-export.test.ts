/**
 * The feedback list's CSV: what the page's filters keep, saved under the name the service gives it,
 * and a failure said beside the button. Each starts from a new owner signed in on a page of their own.
 */
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { axeViolations } from "./axe";
import { ownerPages } from "./consolePage";
import { api, workerAndBrowser } from "./stack";

const stack = workerAndBrowser();
const { signedIn, addShopKey } = ownerPages(stack);

describe("the feedback list's Download CSV", () => {
	it("saves the feedback the filters keep, whole, and says why when the service refuses", async () => {
		const description = `Pressing save, "twice", crashes: ${"and then it hangs ".repeat(40)}`;
		const { context, page, pageErrors } = await signedIn("exports-feedback", "10.98.0.22", {
			before: async (token) => {
				const key = await addShopKey(token);
				for (const json of [{ title: "Crash on save", description }, { type: "feature_request", title: "Dark mode" }]) {
					await api(stack.worker.url, "/functions/v1/submit-feedback", { token: key, json });
				}
			},
		});
		await page.goto(`${stack.worker.url}/feedback/shop?type=issue`);
		await page.getByRole("link", { name: "Crash on save" }).waitFor();
		const button = page.getByRole("button", { name: "Download CSV of the feedback these filters keep (the newest 1,000)" });
		const [download] = await Promise.all([page.waitForEvent("download"), button.click()]);
		expect(download.suggestedFilename()).toBe(`shop-feedback-${new Date().toISOString().slice(0, 10)}.csv`);
		const text = await readFile(await download.path(), "utf8");
		const [header, row, end] = text.split("\r\n");
		expect(header).toBe("id,created_at,type,status,title,description,email,screenshots");
		// The list cuts the description at 500 characters; the file holds it whole.
		expect(row).toMatch(/^[\w-]+,[\dT:.Z-]+,issue,open,Crash on save,"/);
		expect(row).toContain(`"${description.replaceAll('"', '""')}"`);
		expect(end).toBe("");
		expect(await axeViolations(page)).toEqual([]);

		await page.route("**/api/feedback.csv?*", (route) =>
			route.fulfill({ status: 503, contentType: "application/json", body: JSON.stringify({ error: "The service is busy: try again in a minute" }) }),
		);
		await button.click();
		await page.getByRole("alert").filter({ hasText: "The service is busy: try again in a minute" }).waitFor();
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});
