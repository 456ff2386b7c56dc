/** The issue list within a period, as Sentry's issue stream's time range: by when the issues were last seen, kept in the address. */
import { describe, expect, it } from "vitest";
import { axeViolations } from "./axe";
import { DESKTOP, useSession } from "./consolePage";
import { api, signUpOwner, workerAndBrowser } from "./stack";

const stack = workerAndBrowser();

describe("the issue list's period", () => {
	it("keeps the issues last seen within it, by when their events happened, and survives a reload", async () => {
		const { token } = await signUpOwner(stack.worker.url, "period", "10.98.1.1");
		const { raw_api_key: key } = await api<{ raw_api_key: string }>(stack.worker.url, "/api/feedback-key", { token, json: { project_name: "shop" } });
		const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
		for (const [message, timestamp] of [
			["today's bug", daysAgo(0.1)],
			["last week's bug", daysAgo(3)],
		]) {
			const res = await fetch(`${stack.worker.url}/api/app-logs-ingest`, {
				method: "POST",
				headers: { "x-svc-key": key, "content-type": "application/json" },
				body: JSON.stringify({ message, timestamp }),
			});
			expect(res.status).toBe(200);
		}
		const context = await stack.browser.newContext({ viewport: DESKTOP, locale: "en-US" });
		const page = await context.newPage();
		await useSession(page, stack.worker.url, token);
		await page.goto(`${stack.worker.url}/issues/shop`);
		const titles = () => page.locator(".issue-row a.title").allTextContents();
		await expect.poll(titles).toEqual(["today's bug", "last week's bug"]);

		await page.getByLabel("Seen in").selectOption({ label: "Last 24 hours" });
		await expect.poll(titles).toEqual(["today's bug"]);
		expect(new URL(page.url()).searchParams.get("period")).toBe("24h");
		expect(await axeViolations(page)).toEqual([]);
		await page.reload();
		await expect.poll(titles).toEqual(["today's bug"]);
		expect(await page.getByLabel("Seen in").inputValue()).toBe("24h");

		await page.getByLabel("Seen in").selectOption({ label: "Last 7 days" });
		await expect.poll(titles).toEqual(["today's bug", "last week's bug"]);
		await page.getByRole("button", { name: "Clear" }).click();
		await expect.poll(() => new URL(page.url()).searchParams.has("period")).toBe(false);

		// Sentry's lastSeen: typed in the search sets the filter, which then shows it.
		await page.getByRole("combobox", { name: /^Search title/ }).fill("lastSeen:-24h");
		await page.getByRole("button", { name: "Search" }).click();
		await expect.poll(titles).toEqual(["today's bug"]);
		expect(await page.getByLabel("Seen in").inputValue()).toBe("24h");
		expect(await page.getByRole("combobox", { name: /^Search title/ }).inputValue()).toBe("");
		await context.close();
	});
});
