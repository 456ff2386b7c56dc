/**
 * The console's page titles: every page names itself in the browser's tab and history (what it
 * shows, then where, then "svc"), on a deep link opened directly and after navigating inside the
 * console, back and forward included, so several tabs and Back's list tell pages apart.
 */
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { checkoutCrash, DESKTOP, useSession } from "./consolePage";
import { api, issuesOnceThereAre, signUpOwner, workerAndBrowser } from "./stack";

const stack = workerAndBrowser();

/** Waits until the page's title is `title` (titles follow the data they name, which loads after the page). */
async function titled(page: Page, title: string) {
	await expect.poll(() => page.title(), { timeout: 10_000 }).toBe(title);
}

it("names each page by what it shows, on a deep link and after navigating, back and forward included", async () => {
	const { token } = await signUpOwner(stack.worker.url, "titles", "10.97.0.1");
	const { raw_api_key: key } = await api<{ raw_api_key: string }>(stack.worker.url, "/api/feedback-key", { token, json: { project_name: "shop" } });
	const { id: feedbackId } = await api<{ id: string }>(stack.worker.url, "/functions/v1/submit-feedback", {
		token: key,
		json: { type: "issue", title: "Crash on save", description: "Pressing save crashes" },
	});
	await api(stack.worker.url, "/api/app-logs-ingest", { token: key, json: checkoutCrash("u_1") });
	const [issue] = await issuesOnceThereAre(expect, stack.worker.url, token, "shop", 1);
	const site = await api<{ tracking_id: string }>(stack.worker.url, "/api/sites", { token, json: { domain: "titles.example", name: "Titles blog" } });

	const page = await stack.browser.newPage({ viewport: DESKTOP, locale: "en-US" });
	await page.goto(`${stack.worker.url}/`);
	await titled(page, "Sign in · svc");
	await useSession(page, stack.worker.url, token);

	const deepLinks: Array<[string, string]> = [
		["/projects", "Projects · svc"],
		["/projects/shop", "shop · Projects · svc"],
		["/projects/shop/sourcemaps", "Source maps · shop · svc"],
		["/feedback/shop", "Feedback · shop · svc"],
		[`/feedback/shop/${feedbackId}`, "Crash on save · Feedback · shop · svc"],
		["/issues/shop", "Issues · shop · svc"],
		[`/issues/shop/${issue.group_hash}`, `${issue.title} · Issues · shop · svc`],
		["/analytics", "Analytics · svc"],
		[`/analytics/${site.tracking_id}`, "Titles blog · Analytics · svc"],
		[`/crawlers/${site.tracking_id}`, "Titles blog · AI crawlers · svc"],
		["/account", "Account · svc"],
	];
	for (const [path, title] of deepLinks) {
		await page.goto(`${stack.worker.url}${path}`);
		await titled(page, title);
	}

	// Inside the console: a list's item, then Back and Forward, each entry named as it was.
	await page.goto(`${stack.worker.url}/feedback/shop`);
	await titled(page, "Feedback · shop · svc");
	await page.getByRole("link", { name: "Crash on save" }).click();
	await titled(page, "Crash on save · Feedback · shop · svc");
	await page.getByRole("navigation", { name: "Areas" }).getByRole("link", { name: "Issues" }).click();
	await titled(page, "Issues · shop · svc");
	await page.goBack();
	await titled(page, "Crash on save · Feedback · shop · svc");
	await page.goBack();
	await titled(page, "Feedback · shop · svc");
	await page.goForward();
	await titled(page, "Crash on save · Feedback · shop · svc");

	// Signing out names the sign-in page again.
	await page.getByRole("button", { name: "Sign out" }).click();
	await titled(page, "Sign in · svc");
});
