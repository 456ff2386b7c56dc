/**
 * Resolving an issue in a release other than the current one, as Sentry's Resolve menu offers:
 * the next release, for a fix not shipped yet, and another the project has sent. Each starts
 * from a new owner on a page of its own.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { axeViolations } from "./axe";
import { ARTIFACTS } from "./consolePage";
import { crash, issuePageOf } from "./issuePage";
import { workerAndBrowser } from "./stack";

const stack = workerAndBrowser();
const issuePage = issuePageOf(stack);

beforeAll(() => mkdir(ARTIFACTS, { recursive: true }));

describe("resolving in the next release", () => {
	it("keeps the issue resolved through its release's events, says so on the page and in its activity; its release's new issues a click away", async () => {
		const event = crash({ type: "generic", handled: true }, { release: "1.2.0", environment: "production" });
		const { page, context, pageErrors, key, issue } = await issuePage("next-release", "10.97.0.5", [event]);
		await page.locator("summary", { hasText: "Resolve in…" }).click();
		await page.getByRole("button", { name: "The next release" }).click();
		await page.getByText("Resolved in the release after 1.2.0").first().waitFor();
		const activity = page.getByRole("region", { name: "Activity" });
		expect(await activity.getByText("Resolved in the release after 1.2.0").count()).toBe(1);

		// The release's own event does not reopen it.
		const res = await fetch(`${stack.worker.url}/api/app-logs-ingest`, { method: "POST", headers: { "x-svc-key": key, "content-type": "application/json" }, body: JSON.stringify(event) });
		expect(res.status).toBe(200);
		await page.reload();
		await page.getByText("Resolved in the release after 1.2.0").first().waitFor();
		expect(await page.getByRole("button", { name: "Reopen" }).count()).toBe(1);
		expect(await axeViolations(page)).toEqual([]);

		await page.getByRole("link", { name: "Issues new in 1.2.0" }).click();
		await page.waitForURL(/\/issues\/shop\?/);
		expect(new URL(page.url()).searchParams.get("q")).toBe("firstRelease:1.2.0");
		await expect.poll(() => page.locator(".issue-row a.title").allTextContents()).toEqual(["TypeError: x is undefined"]);
		expect(await page.locator(".issue-row").first().textContent()).toContain("resolved in the release after 1.2.0");
		expect(issue.events).toHaveLength(1);
		expect(pageErrors).toEqual([]);
		await page.screenshot({ path: join(ARTIFACTS, "issue-resolved-next-release.png"), fullPage: true });
		await context.close();
	});
});

describe("resolving in another release", () => {
	it("offers the project's releases, newest seen first, in a dialog; the one chosen is the release the fix is in", async () => {
		const event = crash({ type: "generic", handled: true }, { release: "1.2.0" });
		const { page, context, pageErrors, key } = await issuePage("another-release", "10.97.0.6", [event]);
		// Another issue's events name the releases since: the project sent them, this issue never saw them.
		for (const release of ["1.3.0", "1.4.0"]) {
			const res = await fetch(`${stack.worker.url}/api/app-logs-ingest`, { method: "POST", headers: { "x-svc-key": key, "content-type": "application/json" }, body: JSON.stringify({ message: "elsewhere", release }) });
			expect(res.status).toBe(200);
		}
		const dialog = page.getByRole("dialog", { name: "Resolve in another release" });
		const open = async () => {
			await page.locator("summary", { hasText: "Resolve in…" }).click();
			await page.getByRole("button", { name: "Another release…" }).click();
			await dialog.getByRole("combobox", { name: "The fix is in release" }).waitFor();
		};
		await open();
		const choice = dialog.getByRole("combobox", { name: "The fix is in release" });
		expect(await choice.locator("option").allTextContents()).toEqual(["1.4.0", "1.3.0", "1.2.0"]);
		expect(await axeViolations(page)).toEqual([]);
		// Cancel changes nothing.
		await dialog.getByRole("button", { name: "Cancel" }).click();
		expect(await dialog.isVisible()).toBe(false);
		expect(await page.getByRole("button", { name: "Reopen" }).count()).toBe(0);

		await open();
		await choice.selectOption("1.3.0");
		await dialog.getByRole("button", { name: "Resolve" }).click();
		await page.getByText("Resolved in release 1.3.0").first().waitFor();
		expect(await page.getByRole("region", { name: "Activity" }).getByText("Resolved in release 1.3.0").count()).toBe(1);
		// A client still on 1.2.0 does not reopen it.
		const res = await fetch(`${stack.worker.url}/api/app-logs-ingest`, { method: "POST", headers: { "x-svc-key": key, "content-type": "application/json" }, body: JSON.stringify(event) });
		expect(res.status).toBe(200);
		await page.reload();
		await page.getByText("Resolved in release 1.3.0").first().waitFor();
		expect(await page.getByRole("button", { name: "Reopen" }).count()).toBe(1);
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});
