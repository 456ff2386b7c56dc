/**
 * What the service refuses in a form (a project key's name, a feedback form's fields, a site's
 * domain or name, an email address at sign-up) said in the form's words, as what to do about it,
 * not as the API names its members ("Invalid request: project_name: is required"). Each starts
 * from a new owner signed in on a page of its own.
 */
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { axeViolations } from "./axe";
import { DESKTOP, useSession } from "./consolePage";
import { api, signUpOwner, workerAndBrowser } from "./stack";

const stack = workerAndBrowser();

/** A new owner (`before` runs with their token first) signed in on a page of a context of its own; `pageErrors` collects its uncaught errors. */
async function signedIn(name: string, ip: string, before?: (token: string) => Promise<unknown>) {
	const { token } = await signUpOwner(stack.worker.url, name, ip);
	await before?.(token);
	const context = await stack.browser.newContext({ viewport: DESKTOP, locale: "en-US" });
	const page = await context.newPage();
	const pageErrors: string[] = [];
	page.on("pageerror", (error) => pageErrors.push(error.message));
	await useSession(page, stack.worker.url, token);
	return { context, page, pageErrors };
}

/** The text of the alert in `scope` once it shows. */
async function alertText(scope: Page | Locator): Promise<string | null> {
	const alert = scope.getByRole("alert");
	await alert.waitFor();
	return alert.textContent();
}

describe("a new project key's name", () => {
	it("left blank, or holding an invisible character, says what to do", async () => {
		const { context, page, pageErrors } = await signedIn("refused-project", "10.94.0.1");
		await page.goto(`${stack.worker.url}/projects`);
		const form = page.getByRole("form", { name: "New project" });
		const name = form.getByPlaceholder("Project name");
		// Spaces pass the browser's check of a required field; the service takes the name trimmed.
		await name.fill("   ");
		await form.getByRole("button", { name: "Create project key" }).click();
		expect(await alertText(form)).toBe("Give the project a name.");
		await name.fill("shop\u200bapp");
		await form.getByRole("button", { name: "Create project key" }).click();
		await form.getByRole("alert").filter({ hasText: "invisible" }).waitFor();
		expect(await alertText(form)).toBe("The project name cannot hold control characters, or characters that are invisible or change the direction of the text.");
		expect(await axeViolations(page)).toEqual([]);
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});

describe("a feedback form's fields", () => {
	it("say on each field what is wrong with it", async () => {
		const { context, page, pageErrors } = await signedIn("refused-fields", "10.94.0.2", (token) =>
			api(stack.worker.url, "/api/feedback-key", { token, json: { project_name: "shop" } }),
		);
		await page.goto(`${stack.worker.url}/projects/shop`);
		const form = page.getByRole("form", { name: "Issue form" });
		await form.getByRole("button", { name: "Add field" }).click();
		const added = form.getByRole("group", { name: "Field 5" });
		const save = form.getByRole("button", { name: "Save issue form" });
		/** The words shown on the added field's input labelled `label`, by its aria-describedby. */
		const errorOf = async (label: string) => {
			const id = await added.getByLabel(label).getAttribute("aria-describedby");
			return id ? page.locator(`[id="${id}"]`).textContent() : null;
		};

		// Added and left empty.
		await save.click();
		await form.getByText("Not saved: see the fields marked above.").waitFor();
		expect(await errorOf("Key")).toBe("Give the field a key.");
		expect(await errorOf("Label")).toBe("Give the field a label.");

		await added.getByLabel("Key").fill("type");
		await added.getByLabel("Label").fill("  ");
		await save.click();
		await expect.poll(() => errorOf("Key")).toBe("This key is reserved: choose another.");
		expect(await errorOf("Label")).toBe("Give the field a label.");

		await added.getByLabel("Key").fill("title");
		await added.getByLabel("Label").fill("Plan");
		await save.click();
		await expect.poll(() => errorOf("Key")).toBe("Another field has this key: give each its own.");
		expect(await errorOf("Label")).toBe(null);

		await added.getByLabel("Key").fill("plan");
		await added.getByLabel("Type").selectOption("select");
		await save.click();
		await expect.poll(() => errorOf("Options, one per line")).toBe("A choice needs options, one per line.");
		expect(await errorOf("Key")).toBe(null);

		await added.getByLabel("Options, one per line").fill("free\npro");
		await save.click();
		await form.getByText("Saved.").waitFor();
		expect(await axeViolations(page)).toEqual([]);
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});

describe("a site's domain and name", () => {
	it("a public suffix for a new site, and a blank name for a saved one, say what to do", async () => {
		const { context, page, pageErrors } = await signedIn("refused-site", "10.94.0.3", (token) =>
			api(stack.worker.url, "/api/sites", { token, json: { domain: "shop.example", name: "Shop" } }),
		);
		await page.goto(`${stack.worker.url}/analytics`);
		const create = page.getByRole("form", { name: "New site" });
		await create.getByLabel("Domain").fill("co.uk");
		await create.getByRole("button", { name: "Add site" }).click();
		expect(await alertText(create)).toBe(
			"The domain co.uk is a public suffix, under which unrelated sites register their own names: use the site's own domain, such as example.co.uk.",
		);

		await page.getByText("Rename or change the domain").click();
		const settings = page.getByRole("form", { name: "Settings of Shop" });
		await settings.getByLabel("Name").fill("   ");
		await settings.getByRole("button", { name: "Save" }).click();
		await page.getByRole("alert").filter({ hasText: "Give the site a name." }).waitFor();
		expect(await page.getByText("Invalid request").count()).toBe(0);
		expect(await axeViolations(page)).toEqual([]);
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});

describe("signing up with an address the browser takes and the service does not", () => {
	it("asks for a whole email address", async () => {
		const context = await stack.browser.newContext({ viewport: DESKTOP, locale: "en-US" });
		const page = await context.newPage();
		await page.goto(`${stack.worker.url}/`);
		await page.getByRole("button", { name: /^No account yet/ }).click();
		const form = page.getByRole("form", { name: "Create account" });
		await form.getByLabel("Email").fill("ana@example");
		await form.getByLabel("Password").fill("correct horse battery");
		await form.getByRole("button", { name: "Create account" }).click();
		expect(await alertText(form)).toBe("Enter a whole email address, such as ana@example.com.");
		await context.close();
	});

	it("says an address over 254 characters is too long, not that it is not whole", async () => {
		// Whole to the browser: each of the domain's labels within 63 characters.
		const long = `${"a".repeat(64)}@${["b", "c", "d"].map((letter) => letter.repeat(63)).join(".")}.com`;
		expect(long).toHaveLength(260);
		const context = await stack.browser.newContext({ viewport: DESKTOP, locale: "en-US" });
		const page = await context.newPage();
		await page.goto(`${stack.worker.url}/`);
		await page.getByRole("button", { name: /^No account yet/ }).click();
		const form = page.getByRole("form", { name: "Create account" });
		await form.getByLabel("Email").fill(long);
		await form.getByLabel("Password").fill("correct horse battery");
		await form.getByRole("button", { name: "Create account" }).click();
		expect(await alertText(form)).toBe("An email address has at most 254 characters.");
		await context.close();
	});
});
