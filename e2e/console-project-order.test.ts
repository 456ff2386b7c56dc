/**
 * The console lists projects as people read names, in the projects page and the project picker
 * alike: letter case aside, and numbers by their value (`app 2` before `app 10`).
 */
import { expect, it } from "vitest";
import { DESKTOP, useSession } from "./consolePage";
import { api, signUpOwner, workerAndBrowser } from "./stack";

const stack = workerAndBrowser();

it("orders the projects by name whatever their case, numbers by value", async () => {
	const { token } = await signUpOwner(stack.worker.url, "project-order", "10.95.1.1");
	for (const project_name of ["Zeta", "alpha", "app 10", "Beta", "app 2"]) await api(stack.worker.url, "/api/feedback-key", { token, json: { project_name } });
	const page = await stack.browser.newPage({ viewport: DESKTOP, locale: "en-US" });
	await useSession(page, stack.worker.url, token);
	await page.goto(`${stack.worker.url}/projects`);
	const names = page.locator("li.project h2");
	await expect.poll(() => names.allTextContents()).toEqual(["alpha", "app 2", "app 10", "Beta", "Zeta"]);

	await page.goto(`${stack.worker.url}/feedback/alpha`);
	const picker = page.getByRole("combobox", { name: /^Project/ });
	// The picker holds the project of the address until the list of them has come.
	await expect.poll(() => picker.locator("option").allTextContents()).toEqual(["alpha", "app 2", "app 10", "Beta", "Zeta"]);
	await page.close();
});
