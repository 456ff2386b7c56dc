/**
 * The areas' links after the project or site last opened is gone: a deleted site or a revoked
 * project key is no longer where Crawlers, Analytics, Issues or Feedback lead, so they open one the
 * owner still has instead of a page that answers "not found".
 */
import { expect, it } from "vitest";
import { DESKTOP, useSession } from "./consolePage";
import { api, signUpOwner, workerAndBrowser } from "./stack";

const stack = workerAndBrowser();

/** A new owner signed in on a page of their own; `setUp` runs first with their token. */
async function signedIn(name: string, ip: string, setUp: (token: string) => Promise<unknown>) {
	const { token } = await signUpOwner(stack.worker.url, name, ip);
	await setUp(token);
	const page = await stack.browser.newPage({ viewport: DESKTOP, locale: "en-US" });
	const pageErrors: string[] = [];
	page.on("pageerror", (error) => pageErrors.push(error.message));
	await useSession(page, stack.worker.url, token);
	return { page, pageErrors };
}

const areaLink = (page: Awaited<ReturnType<typeof signedIn>>["page"], area: string) => page.getByRole("navigation", { name: "Areas" }).getByRole("link", { name: area });

it("leads Crawlers and Analytics to a site the owner still has once the last one opened is deleted", async () => {
	const sites: Record<string, string> = {};
	const { page, pageErrors } = await signedIn("gone-site", "10.94.0.1", async (token) => {
		for (const [domain, name] of [["blog.example", "Blog"], ["shop.example", "Shop"]]) {
			sites[name] = (await api<{ tracking_id: string }>(stack.worker.url, "/api/sites", { token, json: { domain, name } })).tracking_id;
		}
	});
	await page.goto(`${stack.worker.url}/analytics/${sites.Shop}`);
	await page.getByRole("heading", { name: "Dashboard" }).waitFor();
	await page.goto(`${stack.worker.url}/analytics`);
	const shop = page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: "Shop" }) });
	await shop.getByRole("button", { name: "Delete…" }).click();
	await page.getByRole("button", { name: "Delete site" }).click();
	await shop.waitFor({ state: "detached" });

	expect(await areaLink(page, "Crawlers").getAttribute("href")).not.toContain(sites.Shop);
	await areaLink(page, "Crawlers").click();
	await expect.poll(() => new URL(page.url()).pathname).toBe(`/crawlers/${sites.Blog}`);
	await page.getByRole("heading", { name: "AI crawlers" }).waitFor();
	expect(await page.getByRole("alert").count()).toBe(0);
	expect(pageErrors).toEqual([]);
	await page.close();
});

it("leads Issues and Feedback to a project the owner still has once the last one opened is revoked, and says the old one is gone", async () => {
	const { page, pageErrors } = await signedIn("gone-project", "10.94.0.2", async (token) => {
		for (const project_name of ["app", "shop"]) await api(stack.worker.url, "/api/feedback-key", { token, json: { project_name } });
	});
	await page.goto(`${stack.worker.url}/issues/shop`);
	await page.getByRole("heading", { name: "Issues" }).waitFor();
	await page.goto(`${stack.worker.url}/projects/shop`);
	await page.getByRole("button", { name: "Revoke key…" }).click();
	await page.getByRole("button", { name: "Revoke key", exact: true }).click();
	await expect.poll(() => new URL(page.url()).pathname).toBe("/projects");
	// The list as read after the revoke: app in it (not the list still loading), shop gone.
	await page.getByRole("link", { name: "app", exact: true }).waitFor();
	await page.getByRole("link", { name: "shop", exact: true }).waitFor({ state: "detached" });

	await areaLink(page, "Issues").click();
	await expect.poll(() => new URL(page.url()).pathname).toBe("/issues/app");
	await areaLink(page, "Feedback").click();
	await expect.poll(() => new URL(page.url()).pathname).toBe("/feedback/app");

	// A link kept from before (a bookmark, the history) says, once and in words, that the project is gone, as Feedback does.
	const gone = 'You have no project named "shop" (its key may have been revoked). Pick another above.';
	for (const area of ["issues", "feedback"]) {
		await page.goto(`${stack.worker.url}/${area}/shop`);
		await page.getByText(gone).waitFor();
		await page.waitForLoadState("networkidle");
		expect(await page.getByRole("alert").count(), area).toBe(0);
		expect(await page.locator("main").textContent(), area).not.toContain("No project key for project");
	}
	expect(pageErrors).toEqual([]);
	await page.close();
});
