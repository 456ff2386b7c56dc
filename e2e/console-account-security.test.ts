/**
 * The Account page's password change and "Sign out other sessions" in a real browser against the
 * real Worker: what the owner types, what the page says, and which sessions still work afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleUnderTest, openConsole, useSession } from "./consolePage";
import { api, signUpOwner } from "./stack";

const OLD_PASSWORD = "correct horse battery";
const NEW_PASSWORD = "a brand new passphrase";

let ui: ConsoleUnderTest;
let email: string;
let token: string;

/** Another session of the owner, as another browser would open it. */
const signInElsewhere = (password: string, ip = "10.88.0.2") =>
	api<{ token: string }>(ui.worker.url, "/api/auth/login", { json: { email, password }, ip }).then((r) => r.token);

/** Whether a session token is still accepted. */
const stillSignedIn = (session: string) =>
	fetch(`${ui.worker.url}/api/auth/me`, { headers: { authorization: `Bearer ${session}` } }).then((r) => r.status === 200);

beforeAll(async () => {
	ui = await openConsole();
	({ email, token } = await signUpOwner(ui.worker.url, "account-security", "10.88.0.1"));
	await useSession(ui.page, ui.worker.url, token);
	await ui.page.goto(`${ui.worker.url}/account`);
	await ui.waitShown(ui.page.getByRole("heading", { name: "Change password" }));
});

afterAll(async () => {
	await ui?.close();
});

describe("Account page", () => {
	const form = () => ui.page.getByRole("form", { name: "Change password" });
	const fill = async (current: string, next: string, confirm = next) => {
		await form().getByLabel("Current password").fill(current);
		await form().getByLabel("New password", { exact: true }).fill(next);
		await form().getByLabel("Confirm new password").fill(confirm);
		await form().getByRole("button", { name: "Change password" }).click();
	};

	it("tells password managers which field is which, for which account", async () => {
		expect(await form().getByLabel("Current password").getAttribute("autocomplete")).toBe("current-password");
		expect(await form().getByLabel("New password", { exact: true }).getAttribute("autocomplete")).toBe("new-password");
		expect(await form().getByLabel("Confirm new password").getAttribute("autocomplete")).toBe("new-password");
		const username = form().locator('input[autocomplete="username"]');
		expect(await username.inputValue()).toBe(email);
		await ui.checkPage("account-security");
	});

	it("says so when the confirmation differs, and asks the server nothing", async () => {
		let asked = false;
		ui.page.on("request", (request) => {
			if (request.url().endsWith("/api/auth/password")) asked = true;
		});
		await fill(OLD_PASSWORD, NEW_PASSWORD, `${NEW_PASSWORD}!`);
		expect(await form().getByRole("alert").textContent()).toBe("The new password and its confirmation differ.");
		expect(asked).toBe(false);
	});

	it("says the new password must differ from the current one, in the form's words", async () => {
		await fill(OLD_PASSWORD, OLD_PASSWORD);
		await form().getByRole("alert").waitFor();
		expect(await form().getByRole("alert").textContent()).toBe("The new password must differ from the current one.");
		expect(await stillSignedIn(token)).toBe(true);
	});

	it("says a wrong current password is wrong and stays signed in", async () => {
		await fill("not my password", NEW_PASSWORD);
		await form().getByRole("alert").filter({ hasText: "The current password is wrong" }).waitFor();
		expect(await stillSignedIn(token)).toBe(true);
		expect(await ui.page.getByRole("heading", { name: "Account" }).isVisible()).toBe(true);
	});

	it("changes the password: other sessions end, this one stays, only the new password signs in", async () => {
		const elsewhere = await signInElsewhere(OLD_PASSWORD);
		await fill(OLD_PASSWORD, NEW_PASSWORD);
		expect(await form().getByRole("status").filter({ hasText: "Password changed." }).textContent()).toBe("Password changed. 1 other session signed out.");
		expect(await form().getByRole("alert").count()).toBe(0);
		// The form is empty again: nothing typed stays on the page.
		expect(await form().getByLabel("Current password").inputValue()).toBe("");
		expect(await form().getByLabel("New password", { exact: true }).inputValue()).toBe("");

		expect(await stillSignedIn(elsewhere)).toBe(false);
		expect(await stillSignedIn(token)).toBe(true);
		await expect(signInElsewhere(OLD_PASSWORD, "10.88.0.3")).rejects.toThrow(/401/);
		const withNewPassword = await signInElsewhere(NEW_PASSWORD, "10.88.0.3");
		await api(ui.worker.url, "/api/auth/logout", { method: "POST", token: withNewPassword });
		await ui.page.reload();
		await ui.waitShown(ui.page.getByRole("heading", { name: "Change password" }));
	});

	it("signs out other sessions and says how many", async () => {
		const others = [await signInElsewhere(NEW_PASSWORD), await signInElsewhere(NEW_PASSWORD)];
		const button = ui.page.getByRole("button", { name: "Sign out other sessions" });
		await button.click();
		await ui.page.getByRole("status").filter({ hasText: "2 other sessions signed out." }).waitFor();
		expect(await Promise.all(others.map(stillSignedIn))).toEqual([false, false]);
		expect(await stillSignedIn(token)).toBe(true);

		await button.click();
		await ui.page.getByRole("status").filter({ hasText: "No other session was signed in." }).waitFor();
		expect(ui.pageErrors).toEqual([]);
	});
});
