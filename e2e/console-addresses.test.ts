/**
 * What the console makes of an address it was not led to: a link to a project the owner does not
 * have, filter values the service, the feedback list or the issue list does not take, a project name holding a slash,
 * and the issue list's Clear of whatever the address chose. Each starts from a new owner signed in
 * on a page of their own.
 */
import { describe, expect, it } from "vitest";
import { axeViolations } from "./axe";
import { ownerPages } from "./consolePage";
import { api, issuesOnceThereAre, workerAndBrowser } from "./stack";

const stack = workerAndBrowser();
const { signedIn, addShopKey } = ownerPages(stack);

describe("a link to a project the owner does not have", () => {
	it("says there is no such project instead of an empty inbox", async () => {
		const { context, page, pageErrors } = await signedIn("unknown-project", "10.98.0.5");
		await page.goto(`${stack.worker.url}/feedback/gone-app`);
		await page.getByText('You have no project named "gone-app"').waitFor();
		expect(await axeViolations(page)).toEqual([]);
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});

describe("a feedback list's address with a type or status that does not exist", () => {
	it("lists every type and status instead, says so in words, and links to the address without the value", async () => {
		const { context, page, pageErrors } = await signedIn("bad-feedback-filter", "10.98.0.16", {
			before: async (token) => {
				await api(stack.worker.url, "/functions/v1/submit-feedback", { token: await addShopKey(token), json: { title: "Crash on save", description: "It crashes" } });
			},
		});
		const asked: string[] = [];
		page.on("request", (request) => {
			if (new URL(request.url()).pathname === "/api/feedback") asked.push(new URL(request.url()).search);
		});
		await page.goto(`${stack.worker.url}/feedback/shop?type=bogus&status=nope&q=crash`);
		await page.getByRole("link", { name: "Crash on save" }).waitFor();
		const said = page.getByRole("status").filter({ hasText: "This page's address asks for" });
		expect(await said.allTextContents()).toEqual([
			"This page's address asks for a type of feedback that does not exist (bogus): showing all types. Remove it from the address",
			"This page's address asks for a status that does not exist (nope): showing any status. Remove it from the address",
		]);
		// Neither value was sent; the search was.
		expect(asked.some((search) => /type=|status=/.test(search))).toBe(false);
		expect(asked.some((search) => search.includes("q=crash"))).toBe(true);
		expect(await page.getByRole("combobox", { name: "Type" }).inputValue()).toBe("");
		expect(await page.getByText(/Invalid option|address holds/).count()).toBe(0);
		expect(await axeViolations(page)).toEqual([]);

		await said.first().getByRole("link", { name: "Remove it from the address" }).click();
		await expect.poll(() => new URL(page.url()).search).toBe("?status=nope&q=crash");
		await expect.poll(() => said.allTextContents()).toEqual(["This page's address asks for a status that does not exist (nope): showing any status. Remove it from the address"]);
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});

describe("an address with a filter value the service does not take", () => {
	it("says which of its values is at fault, in the page's words where it has them, and links to the page without its choices", async () => {
		const { context, page, pageErrors } = await signedIn("bad-filter", "10.98.0.11", {
			before: addShopKey,
		});
		// Longer than the service searches for: the search box holds no more, a link can.
		await page.goto(`${stack.worker.url}/feedback/shop?q=${"x".repeat(201)}`);
		const alert = page.getByRole("alert").filter({ hasText: "The search in this page's address must be at most 200 characters." });
		await alert.waitFor();
		await alert.getByRole("link", { name: "Show this page without its choices" }).click();
		await page.getByText("No feedback yet for this project.").waitFor();
		expect(new URL(page.url()).search).toBe("");

		// Each problem said.
		await page.goto(`${stack.worker.url}/issues/shop?environment=${"e".repeat(501)}&release=${"r".repeat(501)}`);
		const refused = page.getByRole("alert").filter({ hasText: "in this page's address must be" });
		await refused.waitFor();
		expect(await refused.textContent()).toBe(
			"The environment in this page's address must be at most 500 characters. The release in this page's address must be at most 500 characters. Show this page without its choices",
		);
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});

describe("an issue list's address with a status, sort or period the list does not offer", () => {
	it("lists and selects the default instead, says so in words as the feedback list does, and links to the address without the value", async () => {
		let resolved = "";
		const { context, page, pageErrors } = await signedIn("bad-issue-filter", "10.98.0.15", {
			before: async (token) => {
				const key = await addShopKey(token);
				for (const message of ["Checkout failed", "Login failed"]) {
					await api(stack.worker.url, "/api/app-logs-ingest", { token: key, json: { message } });
				}
				const issues = await issuesOnceThereAre(expect, stack.worker.url, token, "shop", 2);
				resolved = issues.find((issue) => issue.title === "Login failed")?.group_hash ?? "";
				await api(stack.worker.url, `/api/issues/${resolved}`, { token, method: "PATCH", json: { project_name: "shop", status: "resolved" } });
			},
		});
		const asked: string[] = [];
		page.on("request", (request) => {
			if (new URL(request.url()).pathname === "/api/issues") asked.push(new URL(request.url()).search);
		});
		await page.goto(`${stack.worker.url}/issues/shop?status=bogus&sort=oldest&period=2y&environment=production`);
		const said = page.getByRole("status").filter({ hasText: "This page's address asks for" });
		await said.first().waitFor();
		expect(await said.allTextContents()).toEqual([
			"This page's address asks for a status that does not exist (bogus): showing open issues. Remove it from the address",
			"This page's address asks for an order that does not exist (oldest): showing the last seen first. Remove it from the address",
			"This page's address asks for a period that does not exist (2y): showing any time. Remove it from the address",
		]);
		// The selects show their defaults; none of the values was sent, the environment was.
		expect(await page.getByRole("combobox", { name: /^Status/ }).inputValue()).toBe("open");
		expect(await page.getByRole("combobox", { name: /^Sort by/ }).inputValue()).toBe("last_seen");
		expect(await page.getByRole("combobox", { name: /^Seen in/ }).inputValue()).toBe("");
		expect(asked.some((search) => /sort=|period=|status=(bogus|any)/.test(search))).toBe(false);
		expect(asked.some((search) => search.includes("environment=production"))).toBe(true);
		expect(await axeViolations(page)).toEqual([]);

		await said.first().getByRole("link", { name: "Remove it from the address" }).click();
		await expect.poll(() => new URL(page.url()).search).toBe("?sort=oldest&period=2y&environment=production");
		// The address changes before the page draws again: wait for the notice to go.
		await expect.poll(() => said.count()).toBe(2);

		// The open issues only, and no refusal of the value.
		await page.goto(`${stack.worker.url}/issues/shop?status=bogus`);
		await page.getByRole("link", { name: "Checkout failed" }).waitFor();
		expect(await page.getByRole("link", { name: "Login failed" }).count()).toBe(0);
		expect(await page.getByRole("alert").count()).toBe(0);
		expect(await said.count()).toBe(1);
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});

describe("a project whose name holds a slash", () => {
	it("opens from a link to any of its pages, as it does by clicking", async () => {
		const { context, page, pageErrors } = await signedIn("slash-project", "10.98.0.8", {
			before: (token) => api(stack.worker.url, "/api/feedback-key", { token, json: { project_name: "ios/beta #2" } }),
		});
		const encoded = encodeURIComponent("ios/beta #2");
		for (const [path, shown] of [
			[`/projects/${encoded}`, "Project key"],
			[`/feedback/${encoded}`, "No feedback yet for this project."],
			[`/issues/${encoded}`, "No open issues."],
		]) {
			// The asset server would redirect a %2F in the path to a "/", splitting the name.
			expect((await fetch(stack.worker.url + path, { redirect: "manual" })).status).toBe(200);
			await page.goto(stack.worker.url + path);
			await page.getByText(shown).first().waitFor();
			expect(new URL(page.url()).pathname).toBe(path);
		}
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});

describe("the issue list's Clear", () => {
	it("shows for any choice in the address, a status or a sort too, and puts them all back", async () => {
		const { context, page, pageErrors } = await signedIn("clears-issues", "10.98.0.12", {
			before: addShopKey,
		});
		await page.goto(`${stack.worker.url}/issues/shop`);
		await page.getByText("No open issues.").waitFor();
		expect(await page.getByRole("button", { name: "Clear" }).count()).toBe(0);
		await page.goto(`${stack.worker.url}/issues/shop?status=resolved&sort=count`);
		await page.getByText("No issues match these filters.").waitFor();
		await page.getByRole("button", { name: "Clear" }).click();
		await page.getByText("No open issues.").waitFor();
		expect(new URL(page.url()).search).toBe("");
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});
