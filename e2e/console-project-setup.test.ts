/**
 * A project page's set-up for browser analytics: sites belong to the account, not to a project, so
 * it offers the tracker tag of one site, the owner's pick, starting from the site named as the
 * project, else the first; with no site, the way to add one. Each starts from a new owner signed in
 * on a page of their own.
 */
import { expect, it } from "vitest";
import { axeViolations } from "./axe";
import { ownerPages } from "./consolePage";
import { workerAndBrowser } from "./stack";

const stack = workerAndBrowser();
const { signedIn, addShopKey, addSite } = ownerPages(stack);

it("offers the tag of one site, the one named as the project first, and of another once picked", async () => {
	const ids: Record<string, string> = {};
	const { context, page, pageErrors } = await signedIn("setup-sites", "10.93.1.1", {
		before: async (token) => {
			await addShopKey(token);
			for (const domain of ["blog.example", "shop.example", "docs.example"]) ids[domain] = await addSite(token, domain);
		},
	});
	await page.goto(`${stack.worker.url}/projects/shop`);
	const setup = page.getByRole("region", { name: "Set-up" });
	const tags = setup.locator("pre", { hasText: "data-id=" });
	const site = setup.getByRole("combobox", { name: "Site" });
	await expect.poll(() => tags.allTextContents()).toEqual([expect.stringContaining(`data-id="${ids["shop.example"]}"`)]);
	expect(await site.inputValue()).toBe(ids["shop.example"]);
	expect(await site.locator("option").count()).toBe(3);

	await site.selectOption({ label: "docs.example" });
	await expect.poll(() => tags.allTextContents()).toEqual([expect.stringContaining(`data-id="${ids["docs.example"]}"`)]);
	expect(await setup.getByRole("button", { name: /docs\.example/ }).count()).toBe(1);
	expect(await axeViolations(page)).toEqual([]);
	expect(pageErrors).toEqual([]);
	await context.close();
});

it("offers the first site's tag when none is named as the project, and the way to add a site when there is none", async () => {
	const { context, page, pageErrors } = await signedIn("setup-no-match", "10.93.1.2", {
		before: async (token) => {
			await addShopKey(token);
			await addSite(token, "blog.example");
		},
	});
	await page.goto(`${stack.worker.url}/projects/shop`);
	const setup = page.getByRole("region", { name: "Set-up" });
	await expect.poll(() => setup.getByRole("combobox", { name: "Site" }).locator("option:checked").textContent()).toBe("blog.example");
	expect(await setup.locator("pre", { hasText: "data-id=" }).count()).toBe(1);
	await context.close();

	const { context: other, page: none } = await signedIn("setup-no-site", "10.93.1.3", { before: addShopKey });
	await none.goto(`${stack.worker.url}/projects/shop`);
	const empty = none.getByRole("region", { name: "Set-up" });
	await empty.getByRole("link", { name: "add a site" }).waitFor();
	expect(await empty.getByRole("link", { name: "add a site" }).getAttribute("href")).toBe("/analytics");
	expect(await empty.locator("pre", { hasText: "data-id=" }).count()).toBe(0);
	expect(pageErrors).toEqual([]);
	await other.close();
});
