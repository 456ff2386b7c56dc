/**
 * The feedback list's bulk actions on more items than one request may name (500): an owner who
 * reads the whole inbox, ticks "Select all shown" and sets a status or deletes gets it done for
 * every item, not the API's refusal of the request.
 */
import { expect, it } from "vitest";
import { OWNER_LIMITS } from "../domain/limits";
import { ownerPages } from "./consolePage";
import { api, workerAndBrowser } from "./stack";

const stack = workerAndBrowser();
const { signedIn, addShopKey } = ownerPages(stack);

const ITEMS = OWNER_LIMITS.feedbackMutationIds + 1;

it("sets a status for, and deletes, more selected items than one request may name", { timeout: 180_000 }, async () => {
	let token = "";
	const { page, pageErrors } = await signedIn("feedback-bulk", "10.95.0.1", {
		before: async (owner) => {
			token = owner;
			const key = await addShopKey(owner);
			await api(stack.worker.url, "/api/feedback-key", { token: owner, method: "PATCH", json: { project_name: "shop", rate_limit_per_minute: 600 } });
			// Each from an address of its own: one address may send 20 a minute to a key.
			for (let start = 0; start < ITEMS; start += 25) {
				await Promise.all(
					Array.from({ length: Math.min(25, ITEMS - start) }, async (_, i) => {
						const n = start + i;
						const res = await fetch(`${stack.worker.url}/functions/v1/submit-feedback`, {
							method: "POST",
							headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "cf-connecting-ip": `10.95.${1 + Math.floor(n / 250)}.${n % 250}` },
							body: JSON.stringify({ type: "issue", title: `Item ${n}`, description: "d" }),
						});
						expect(res.status).toBe(200);
					}),
				);
			}
		},
	});
	const statuses = async () => {
		const { feedback } = await api<{ feedback: { status: string }[] }>(stack.worker.url, "/api/feedback?project_name=shop&limit=1000", { token });
		return feedback.map((item) => item.status);
	};

	await page.goto(`${stack.worker.url}/feedback/shop`);
	const items = page.locator("li.card.feedback");
	const older = page.getByRole("button", { name: "Show older feedback" });
	while ((await items.count()) < ITEMS) {
		const shown = await items.count();
		await older.click();
		await expect.poll(() => items.count()).toBeGreaterThan(shown);
	}
	await page.getByLabel("Select all shown").check();
	await expect.poll(() => page.getByText(`${ITEMS} selected`).count()).toBe(1);

	await page.getByLabel("New status for selected").selectOption("closed");
	await page.getByRole("button", { name: "Set status" }).click();
	await expect.poll(statuses, { timeout: 15_000 }).toEqual(Array(ITEMS).fill("closed"));
	expect(await page.getByRole("alert").count()).toBe(0);

	await page.getByLabel("Select all shown").check();
	await page.getByRole("button", { name: "Delete…" }).click();
	await page.getByRole("button", { name: "Delete selected" }).click();
	await expect.poll(statuses, { timeout: 15_000 }).toEqual([]);
	await page.getByText("No feedback yet for this project.").waitFor();
	expect(await page.getByRole("alert").count()).toBe(0);
	expect(pageErrors).toEqual([]);
});
