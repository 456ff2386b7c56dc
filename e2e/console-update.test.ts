/**
 * A console tab open across an update of the service: the pages it has not loaded yet are files of
 * the old build, which the update removed. It loads the new build instead of showing nothing.
 */
import { describe, expect, it } from "vitest";
import { ownerPages } from "./consolePage";
import { workerAndBrowser } from "./stack";

const stack = workerAndBrowser();
const { signedIn, addShopKey } = ownerPages(stack);

/** What the asset server answers for a file it does not hold: the console's page, as HTML. */
const gone = { status: 200, contentType: "text/html", body: "<!doctype html><title>svc</title>" };

describe("a page's file removed by an update since the tab opened", () => {
	it("loads the page again from the new build, and shows the page asked for", async () => {
		const { context, page, pageErrors } = await signedIn("updated-once", "10.98.0.20", { before: addShopKey });
		await page.goto(`${stack.worker.url}/projects`);
		await page.getByRole("heading", { name: "Projects", exact: true }).waitFor();
		// The account page's file is gone once, as after a deploy; the reload finds the new one.
		let refused = 0;
		await page.route(/\/assets\/AccountPage-[\w-]+\.js$/, (route) => (refused++ === 0 ? route.fulfill(gone) : route.continue()));
		const reloaded = page.waitForEvent("load");
		await page.getByRole("navigation", { name: "Areas" }).getByRole("link", { name: "Account" }).click();
		await reloaded;
		await page.getByRole("heading", { name: "Account", exact: true }).waitFor();
		expect(new URL(page.url()).pathname).toBe("/account");
		expect(refused).toBe(2);
		expect(pageErrors).toEqual([]);
		await context.close();
	});

	it("says the page could not be shown, once reloading did not bring it, rather than reload for ever", async () => {
		const { context, page } = await signedIn("updated-never", "10.98.0.21", { before: addShopKey });
		await page.goto(`${stack.worker.url}/projects`);
		await page.getByRole("heading", { name: "Projects", exact: true }).waitFor();
		let loads = 0;
		page.on("load", () => loads++);
		await page.route(/\/assets\/AccountPage-[\w-]+\.js$/, (route) => route.fulfill(gone));
		await page.getByRole("navigation", { name: "Areas" }).getByRole("link", { name: "Account" }).click();
		const failed = page.getByRole("alert").filter({ hasText: "This page could not be shown" });
		await failed.waitFor();
		expect(await failed.getByRole("button", { name: "Reload" }).isVisible()).toBe(true);
		// Reloaded once, then left to the owner: the navigation stays usable.
		await page.waitForTimeout(500);
		expect(loads).toBe(1);
		await page.getByRole("navigation", { name: "Areas" }).getByRole("link", { name: "Projects" }).click();
		await page.getByRole("heading", { name: "Projects", exact: true }).waitFor();
		await context.close();
	});
});
