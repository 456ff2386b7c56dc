/**
 * The owner's session and access as they change while the console is open: access that lapses
 * (a trial that ends), a session that expires, and signing out then in as someone else. Each starts
 * from a new owner signed in on a page of their own.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { axeViolations } from "./axe";
import { ARTIFACTS, ownerPages } from "./consolePage";
import { api, type Database, workerAndBrowser } from "./stack";

const stack = workerAndBrowser();
const { signedIn, addShopKey, addSite } = ownerPages(stack);

describe("when access has lapsed", () => {
	it("every page says so plainly instead of breaking, including a trial that ends while the console is open", async () => {
		let site = { tracking_id: "" };
		const { email, context, page: lapsed, pageErrors } = await signedIn("lapsed", "10.98.0.1", {
			before: async (token) => {
				await api(stack.worker.url, "/api/feedback-key", { token, json: { project_name: "old-app" } });
				site = { tracking_id: await addSite(token, "lapsed.example") };
			},
		});
		await lapsed.goto(`${stack.worker.url}/projects`);
		await lapsed.getByRole("link", { name: "old-app", exact: true }).waitFor();

		// The trial ends while the page is open: the next request is refused with 402.
		const env = await stack.worker.server.getWorker<{ DB: Database }>().getEnv();
		await env.DB.prepare("UPDATE users SET trial_ends_at = ? WHERE email = ?").bind(Date.now() - 1000, email).run();
		await lapsed.getByRole("navigation", { name: "Areas" }).getByRole("link", { name: "Issues" }).click();
		await lapsed.getByRole("alert").filter({ hasText: "Your access has ended" }).first().waitFor();
		await lapsed.getByText("trial ended").waitFor();

		const pages = [
			"/projects",
			"/projects/old-app",
			"/feedback/old-app",
			"/issues/old-app",
			`/issues/old-app/${"0".repeat(32)}`,
			"/analytics",
			`/analytics/${site.tracking_id}`,
			`/crawlers/${site.tracking_id}`,
			"/account",
		];
		for (const path of pages) {
			await lapsed.goto(`${stack.worker.url}${path}`);
			await lapsed.getByRole("alert").filter({ hasText: "Your access has ended" }).first().waitFor();
			expect(await lapsed.getByText("This page could not be shown").count(), path).toBe(0);
		}
		expect(await lapsed.getByTestId("access").textContent()).toMatch(/^Ended/);
		await lapsed.screenshot({ path: join(ARTIFACTS, "lapsed.png"), fullPage: true });
		expect(await axeViolations(lapsed)).toEqual([]);
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});

describe("a session that expires while the console is open", () => {
	it("gives way to the sign-in form, which says the session ended (expired, or signed out elsewhere); signed in again, the owner is back on the page", async () => {
		const { email, context, page, pageErrors } = await signedIn("expires", "10.98.0.15", { before: addShopKey });
		await page.goto(`${stack.worker.url}/feedback/shop`);
		await page.getByText("No feedback yet for this project.").waitFor();
		const env = await stack.worker.server.getWorker<{ DB: Database }>().getEnv();
		await env.DB.prepare("UPDATE sessions SET expires_at = ? WHERE user_id = (SELECT id FROM users WHERE email = ?)").bind(Date.now() - 1000, email).run();
		// The next request is refused with 401.
		await page.getByRole("navigation", { name: "Areas" }).getByRole("link", { name: "Issues" }).click();
		await page.getByRole("status").filter({ hasText: "Your session has ended: it expired, or it was signed out from another device. Sign in again." }).waitFor();
		expect(new URL(page.url()).pathname).toBe("/issues/shop");
		expect(await axeViolations(page)).toEqual([]);
		await page.screenshot({ path: join(ARTIFACTS, "session-expired.png"), fullPage: true });

		await page.getByLabel("Email").fill(email);
		await page.getByLabel("Password").fill("correct horse battery");
		await page.getByRole("button", { name: "Sign in", exact: true }).click();
		await page.getByText("No open issues.").waitFor();
		expect(await page.getByText("Your session has ended").count()).toBe(0);
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});

describe("signing out, then in as someone else", () => {
	it("starts the next owner at their own projects, and the sign-in form forgets the other form's error", async () => {
		const { context, page, pageErrors } = await signedIn("signs-out", "10.98.0.7");
		await page.goto(`${stack.worker.url}/feedback/gone-app`);
		await page.getByRole("button", { name: "Sign out" }).first().click();
		await page.getByRole("heading", { name: "Sign in to svc" }).waitFor();
		// The root, which opens the next owner's projects once they sign in; signed out, not expired.
		expect(new URL(page.url()).pathname).toBe("/");
		expect(await page.getByText("Your session has ended").count()).toBe(0);

		await page.getByLabel("Email").fill("nobody@example.com");
		await page.getByLabel("Password").fill("not the password");
		await page.getByRole("button", { name: "Sign in", exact: true }).click();
		await page.getByRole("alert").waitFor();
		await page.getByRole("button", { name: /Create one/ }).click();
		await page.getByRole("heading", { name: "Create your svc account" }).waitFor();
		expect(await page.getByRole("alert").count()).toBe(0);
		await page.getByText("At least 8 characters.").waitFor();
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});
