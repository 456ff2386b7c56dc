/** Deleting an issue from its page, or the list's selection, as in Sentry: asked first, then gone from the list and the server. */
import { describe, expect, it } from "vitest";
import { axeViolations } from "./axe";
import { DESKTOP, useSession } from "./consolePage";
import { api, signUpOwner, workerAndBrowser } from "./stack";

const stack = workerAndBrowser();

describe("deleting an issue", () => {
	it("asks first, then takes the owner back to the list without it", async () => {
		const { token } = await signUpOwner(stack.worker.url, "delete", "10.98.0.1");
		const { raw_api_key: key } = await api<{ raw_api_key: string }>(stack.worker.url, "/api/feedback-key", { token, json: { project_name: "shop" } });
		const hashes: Record<string, string> = {};
		for (const message of ["Leaked a password in this message", "Checkout failed"]) {
			const res = await fetch(`${stack.worker.url}/api/app-logs-ingest`, { method: "POST", headers: { "x-svc-key": key, "content-type": "application/json" }, body: JSON.stringify({ message }) });
			hashes[message] = (await res.json()).group_hash;
		}
		const context = await stack.browser.newContext({ viewport: DESKTOP, locale: "en-US" });
		const page = await context.newPage();
		await useSession(page, stack.worker.url, token);
		await page.goto(`${stack.worker.url}/issues/shop`);
		await page.getByRole("link", { name: "Leaked a password in this message" }).click();
		await page.getByRole("heading", { level: 1, name: "Leaked a password in this message" }).waitFor();

		// Cancel keeps it.
		await page.getByRole("button", { name: "Delete…" }).click();
		const dialog = page.getByRole("dialog", { name: "Delete issue" });
		expect(await dialog.getByText("Delete this issue and every event of it?").isVisible()).toBe(true);
		expect(await axeViolations(page)).toEqual([]);
		await dialog.getByRole("button", { name: "Cancel" }).click();
		expect(await dialog.isVisible()).toBe(false);

		await page.getByRole("button", { name: "Delete…" }).click();
		await dialog.getByRole("button", { name: "Delete issue" }).click();
		await page.waitForURL(`${stack.worker.url}/issues/shop`);
		await expect.poll(() => page.locator(".issue-row a.title").allTextContents()).toEqual(["Checkout failed"]);
		const gone = await fetch(`${stack.worker.url}/api/issues/${hashes["Leaked a password in this message"]}?project_name=shop`, { headers: { authorization: `Bearer ${token}` } });
		expect(gone.status).toBe(404);
		await context.close();
	});

	it("deletes the issues ticked in the list, asked first; the rest stay", async () => {
		const { token } = await signUpOwner(stack.worker.url, "bulk-delete", "10.98.0.2");
		const { raw_api_key: key } = await api<{ raw_api_key: string }>(stack.worker.url, "/api/feedback-key", { token, json: { project_name: "shop" } });
		for (const message of ["alpha failed", "beta failed", "gamma failed"]) {
			const res = await fetch(`${stack.worker.url}/api/app-logs-ingest`, { method: "POST", headers: { "x-svc-key": key, "content-type": "application/json" }, body: JSON.stringify({ message }) });
			expect(res.status).toBe(200);
		}
		const context = await stack.browser.newContext({ viewport: DESKTOP, locale: "en-US" });
		const page = await context.newPage();
		await useSession(page, stack.worker.url, token);
		await page.goto(`${stack.worker.url}/issues/shop`);
		await page.locator(".issue-row").nth(2).waitFor();
		const bar = page.getByRole("group", { name: "Selected issues" });
		expect(await bar.getByRole("button", { name: "Delete…" }).isDisabled()).toBe(true);

		await page.getByRole("checkbox", { name: "Select alpha failed" }).check();
		await page.getByRole("checkbox", { name: "Select gamma failed" }).check();
		await bar.getByRole("button", { name: "Delete…" }).click();
		const dialog = page.getByRole("dialog", { name: "Delete selected" });
		expect(await dialog.getByText("Delete 2 issues and every event of them?").isVisible()).toBe(true);
		expect(await axeViolations(page)).toEqual([]);
		await dialog.getByRole("button", { name: "Delete selected" }).click();
		await expect.poll(() => page.locator(".issue-row a.title").allTextContents()).toEqual(["beta failed"]);
		await expect.poll(() => bar.getByText("0 selected").isVisible()).toBe(true);
		const listed = await api<{ issues: { title: string }[] }>(stack.worker.url, "/api/issues?project_name=shop", { token });
		expect(listed.issues.map((issue) => issue.title)).toEqual(["beta failed"]);
		await context.close();
	});
});
