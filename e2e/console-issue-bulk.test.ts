/**
 * The issue list's bulk actions, as a Sentry user triages: tick issues (or all shown), Resolve,
 * Ignore or Reopen them at once; the list and the server agree after, and the selection is the
 * list's own (another filter empties it). And Sentry's ignore options, there and on an issue's
 * page: ignored for a while, or until it occurs so many more times.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { axeViolations } from "./axe";
import { DESKTOP, useSession } from "./consolePage";
import { api, signUpOwner, workerAndBrowser } from "./stack";

const stack = workerAndBrowser();

const titles = (page: Page) => page.locator(".issue-row a.title").allTextContents();

/** A new owner whose project "shop" has one issue per message, signed in on a page of its own. */
async function ownerWithIssues(name: string, ip: string, messages: string[]) {
	const { token } = await signUpOwner(stack.worker.url, name, ip);
	const { raw_api_key: key } = await api<{ raw_api_key: string }>(stack.worker.url, "/api/feedback-key", { token, json: { project_name: "shop" } });
	const send = async (message: string) => {
		const res = await fetch(`${stack.worker.url}/api/app-logs-ingest`, { method: "POST", headers: { "x-svc-key": key, "content-type": "application/json" }, body: JSON.stringify({ message }) });
		expect(res.status).toBe(200);
	};
	for (const message of messages) {
		await send(message);
		// Received one after the other: the list puts the last sent first.
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
	const issues = async () => (await api<{ issues: Record<string, any>[] }>(stack.worker.url, "/api/issues?project_name=shop&status=ignored", { token })).issues;
	const context = await stack.browser.newContext({ viewport: DESKTOP, locale: "en-US" });
	const page = await context.newPage();
	await useSession(page, stack.worker.url, token);
	return { token, page, context, issues, send };
}

describe("the issue list's bulk actions", () => {
	it("resolve the ticked issues, ignore all shown, reopen them from the Any status list", async () => {
		const { token, page, context } = await ownerWithIssues("bulk", "10.96.0.1", ["alpha failed", "beta failed", "gamma failed", "delta failed"]);
		const statuses = async () =>
			Object.fromEntries(
				(await api<{ issues: { title: string; status: string }[] }>(stack.worker.url, "/api/issues?project_name=shop", { token })).issues.map((i) => [i.title, i.status]),
			);
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

	it("ignore an issue until it occurs 10 more times, until it escalates, until it affects 10 more users, from its page, and two from the list for 2 hours", async () => {
		const { page, context, issues, send } = await ownerWithIssues("ignore", "10.96.0.2", ["north failed", "south failed", "east failed"]);
		await page.goto(`${stack.worker.url}/issues/shop`);
		await page.locator(".issue-row").nth(2).waitFor();
		await page.getByRole("link", { name: "east failed" }).click();
		await page.getByRole("heading", { name: "east failed" }).waitFor();
		// The menu closes on Escape, and when focus leaves it.
		const menu = page.locator("details.menu", { hasText: "Ignore for…" });
		await page.locator("summary", { hasText: "Ignore for…" }).click();
		await page.keyboard.press("Escape");
		expect(await menu.evaluate((details: HTMLDetailsElement) => details.open)).toBe(false);
		await page.locator("summary", { hasText: "Ignore for…" }).click();
		await page.keyboard.press("Tab");
		expect(await menu.evaluate((details: HTMLDetailsElement) => details.open)).toBe(true);
		await page.getByRole("heading", { name: "east failed" }).click();
		expect(await menu.evaluate((details: HTMLDetailsElement) => details.open)).toBe(false);
		await page.locator("summary", { hasText: "Ignore for…" }).click();
		await page.getByRole("button", { name: "Until it occurs 10 more times" }).click();
		await expect.poll(() => page.getByTestId("ignored-until").textContent()).toBe("until seen 11 times");
		expect((await issues()).map((i) => [i.title, i.ignored_until_count])).toEqual([["east failed", 11]]);
		expect(await axeViolations(page)).toEqual([]);
		// Ignoring again replaces the condition: now until it affects 10 more people than none.
		await page.locator("summary", { hasText: "Ignore for…" }).click();
		await page.getByRole("button", { name: "Until it affects 10 more users" }).click();
		await expect.poll(() => page.getByTestId("ignored-until").textContent()).toBe("until it affects 10 users");
		expect((await issues()).map((i) => [i.title, i.ignored_until_count, i.ignored_until_users])).toEqual([["east failed", undefined, 10]]);
		// Until it escalates (Sentry's default archive): a young issue of one event, past 10 in an hour.
		await page.locator("summary", { hasText: "Ignore for…" }).click();
		await page.getByRole("button", { name: "Until it escalates" }).click();
		await expect.poll(() => page.getByTestId("ignored-until").textContent()).toBe("until it escalates: over 10 events in an hour");
		expect((await issues()).map((i) => [i.title, i.ignored_until_users, i.ignored_until_escalating])).toEqual([["east failed", undefined, { events_per_hour: 10 }]]);
		// Ten more in the hour (eleven): it escalates, open again and tagged so.
		for (let i = 0; i < 10; i++) await send("east failed");
		await page.reload();
		await page.getByText("Escalating: reopened just now").waitFor();
		expect(await page.getByTestId("issue-status").textContent()).toBe("Open");
		await page.locator("summary", { hasText: "Ignore for…" }).click();
		await page.getByRole("button", { name: "Until it affects 10 more users" }).click();
		await expect.poll(() => page.getByTestId("ignored-until").textContent()).toBe("until it affects 10 users");
		// The issue's activity: each ignore, newest first, after when it was first seen.
		const activity = () => page.getByTestId("issue-activity").locator("li > span").allTextContents();
		await expect
			.poll(activity)
			.toEqual([
				"Ignored until it affects 10 users",
				"Escalating: over 10 events in an hour",
				"Ignored until it escalates: over 10 events in an hour",
				"Ignored until it affects 10 users",
				"Ignored until seen 11 times",
				"First seen",
			]);

		await page.getByRole("link", { name: /Issues of shop/ }).click();
		await page.locator(".issue-row").nth(1).waitFor();
		await page.getByRole("checkbox", { name: "Select north failed" }).check();
		await page.getByRole("checkbox", { name: "Select south failed" }).check();
		const bar = page.getByRole("group", { name: "Selected issues" });
		const before = Date.now();
		await bar.locator("summary", { hasText: "Ignore for…" }).click();
		await bar.getByRole("button", { name: "For 2 hours" }).click();
		await expect.poll(async () => (await issues()).length).toBe(3);
		for (const issue of (await issues()).filter((i) => i.title !== "east failed")) {
			expect(Date.parse(issue.ignored_until)).toBeGreaterThanOrEqual(before + 2 * 3_600_000 - 1_000);
			expect(Date.parse(issue.ignored_until)).toBeLessThanOrEqual(Date.now() + 2 * 3_600_000);
		}
		await page.getByLabel("Status").selectOption("ignored");
		await expect.poll(() => page.locator(".issue-row .facts", { hasText: "ignored until" }).count()).toBe(3);
		expect(await page.locator(".issue-row", { hasText: "east failed" }).locator(".facts").textContent()).toContain("ignored until it affects 10 users");
		await context.close();
	});
});
