/**
 * The issue list's bulk actions, as a Sentry user triages: tick issues (or all shown), Resolve,
 * Ignore or Reopen them at once; the list and the server agree after, and the selection is the
 * list's own (another filter empties it).
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { axeViolations } from "./axe";
import { DESKTOP, useSession } from "./consolePage";
import { api, signUpOwner, workerAndBrowser } from "./stack";

const stack = workerAndBrowser();

const titles = (page: Page) => page.locator(".issue-row a.title").allTextContents();

describe("the issue list's bulk actions", () => {
	it("resolve the ticked issues, ignore all shown, reopen them from the Any status list", async () => {
		const { token } = await signUpOwner(stack.worker.url, "bulk", "10.96.0.1");
		const { raw_api_key: key } = await api<{ raw_api_key: string }>(stack.worker.url, "/api/feedback-key", { token, json: { project_name: "shop" } });
		for (const message of ["alpha failed", "beta failed", "gamma failed", "delta failed"]) {
			const res = await fetch(`${stack.worker.url}/api/app-logs-ingest`, { method: "POST", headers: { "x-svc-key": key, "content-type": "application/json" }, body: JSON.stringify({ message }) });
			expect(res.status).toBe(200);
			await new Promise((resolve) => setTimeout(resolve, 5));
		}
		const statuses = async () =>
			Object.fromEntries(
				(await api<{ issues: { title: string; status: string }[] }>(stack.worker.url, "/api/issues?project_name=shop", { token })).issues.map((i) => [i.title, i.status]),
			);
		const context = await stack.browser.newContext({ viewport: DESKTOP, locale: "en-US" });
		const page = await context.newPage();
		await useSession(page, stack.worker.url, token);
		await page.goto(`${stack.worker.url}/issues/shop`);
		await page.locator(".issue-row").nth(3).waitFor();
		const bar = page.getByRole("group", { name: "Selected issues" });
		expect(await bar.getByRole("button", { name: "Resolve" }).isDisabled()).toBe(true);
		expect(await axeViolations(page)).toEqual([]);

		await page.getByRole("checkbox", { name: "Select beta failed" }).check();
		await page.getByRole("checkbox", { name: "Select delta failed" }).check();
		expect(await bar.getByText("2 selected").isVisible()).toBe(true);
		await bar.getByRole("button", { name: "Resolve" }).click();
		await expect.poll(() => titles(page)).toEqual(["gamma failed", "alpha failed"]);
		await expect.poll(() => bar.getByText("0 selected").isVisible()).toBe(true);
		expect(await statuses()).toEqual({ "alpha failed": "open", "beta failed": "resolved", "gamma failed": "open", "delta failed": "resolved" });

		// Another filter is another list: what was ticked in this one is not carried over.
		await bar.getByRole("checkbox", { name: "Select all shown" }).check();
		expect(await bar.getByText("2 selected").isVisible()).toBe(true);
		await page.getByLabel("Status").selectOption("any");
		await page.locator(".issue-row").nth(3).waitFor();
		expect(await bar.getByText("0 selected").isVisible()).toBe(true);

		await bar.getByRole("checkbox", { name: "Select all shown" }).check();
		await bar.getByRole("button", { name: "Ignore" }).click();
		await expect.poll(statuses).toEqual({ "alpha failed": "ignored", "beta failed": "ignored", "gamma failed": "ignored", "delta failed": "ignored" });
		await expect.poll(() => page.locator(".issue-row .tag.ignored").count()).toBe(4);
		await expect.poll(() => bar.getByText("0 selected").isVisible()).toBe(true);

		await page.getByRole("checkbox", { name: "Select gamma failed" }).check();
		await bar.getByRole("button", { name: "Reopen" }).click();
		await expect.poll(statuses).toEqual({ "alpha failed": "ignored", "beta failed": "ignored", "gamma failed": "open", "delta failed": "ignored" });
		await context.close();
	});
});
