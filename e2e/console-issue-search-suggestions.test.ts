/**
 * The issue list's search box suggesting as Sentry's does, on a phone-sized screen: keys for the
 * word typed, then the key's values from the project's stored events, by keyboard and by click;
 * and one of its keys searched with no value, which is not searched but said to need one.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { axeViolations } from "./axe";
import { ARTIFACTS, DESKTOP, useSession } from "./consolePage";
import { api, signUpOwner, workerAndBrowser } from "./stack";

const stack = workerAndBrowser();

/** The owner's issue list of "shop" on a phone, once it shows its two issues, with its search box and the box's suggestions. */
async function phoneIssueList(token: string) {
	const context = await stack.browser.newContext({ viewport: { width: 390, height: 844 }, locale: "en-US" });
	const page = await context.newPage();
	await useSession(page, stack.worker.url, token);
	await page.goto(`${stack.worker.url}/issues/shop`);
	const titles = () => page.locator(".issue-row a.title").allTextContents();
	await expect.poll(async () => (await titles()).sort()).toEqual(["Checkout failed", "Login failed"]);
	return { context, page, titles, box: page.getByRole("combobox", { name: /^Search title/ }), list: page.getByRole("listbox", { name: "Search suggestions" }) };
}

describe("the issue search's suggestions", () => {
	it("suggest keys, then a key's values from the stored events; arrows and Enter, or a click, complete the token; Escape closes", async () => {
		const { token } = await signUpOwner(stack.worker.url, "suggest", "10.96.0.1");
		const { raw_api_key: key } = await api<{ raw_api_key: string }>(stack.worker.url, "/api/feedback-key", { token, json: { project_name: "shop" } });
		const send = async (event: unknown) => {
			const res = await fetch(`${stack.worker.url}/api/app-logs-ingest`, { method: "POST", headers: { "x-svc-key": key, "content-type": "application/json" }, body: JSON.stringify(event) });
			expect(res.status).toBe(200);
		};
		// "pro team" on two events, the most; then free and pro on one each.
		await send({ message: "Checkout failed", tags: { plan: "pro team" }, contexts: { browser: { name: "Chrome" } } });
		await send({ message: "Checkout failed", tags: { plan: "pro team" }, contexts: { browser: { name: "Chrome" } } });
		await send({ message: "Checkout failed", tags: { plan: "pro" }, contexts: { browser: { name: "Chrome" } } });
		await send({ message: "Login failed", tags: { plan: "free" }, contexts: { browser: { name: "Safari" } } });

		const { context, page, titles, box, list } = await phoneIssueList(token);
		const options = () => list.getByRole("option").evaluateAll((all) => all.map((option) => option.querySelector(".suggestion-label")?.textContent));
		expect(await box.getAttribute("aria-expanded")).toBe("false");

		// A word: the keys that hold it, the project's tags among them.
		await box.click();
		await box.pressSequentially("pla");
		await expect.poll(options).toEqual(["plan:"]);
		expect(await box.getAttribute("aria-expanded")).toBe("true");
		await box.press("ArrowDown");
		const first = list.getByRole("option").first();
		expect(await first.getAttribute("aria-selected")).toBe("true");
		expect(await box.getAttribute("aria-activedescendant")).toBe(await first.getAttribute("id"));
		await box.press("Enter");
		expect(await box.inputValue()).toBe("plan:");
		// The key's values, most events first, as stored.
		await expect.poll(options).toEqual(["pro team", "free", "pro"]);
		expect(await list.getByRole("option").first().textContent()).toContain("2 events");
		await page.screenshot({ path: join(ARTIFACTS, "issue-search-suggestions-390.png"), fullPage: true });
		expect(await axeViolations(page)).toEqual([]);
		expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);

		// A prefix narrows them; the value with a space is quoted, and the box moves on past it.
		await box.pressSequentially("pro");
		await expect.poll(options).toEqual(["pro team", "pro"]);
		await box.press("ArrowDown");
		await box.press("Enter");
		expect(await box.inputValue()).toBe('plan:"pro team" ');
		expect(await box.getAttribute("aria-expanded")).toBe("false");
		// Enter with no suggestion chosen searches.
		await box.press("Enter");
		await expect.poll(titles).toEqual(["Checkout failed"]);
		expect(new URL(page.url()).searchParams.get("q")).toBe('plan:"pro team"');

		// The fixed values of is:, closed by Escape without clearing the box.
		await box.press("End");
		await box.pressSequentially(" is:");
		await expect.poll(options).toEqual(["unresolved", "resolved", "ignored", "archived", "regressed", "escalating", "unhandled"]);
		await box.press("Escape");
		expect(await box.getAttribute("aria-expanded")).toBe("false");
		expect(await list.isVisible()).toBe(false);
		expect(await box.inputValue()).toBe('plan:"pro team" is:');

		// By click: the token at the cursor replaced, in the middle of the box too.
		await box.fill("bro failed");
		await box.press("Home");
		for (let i = 0; i < 3; i++) await box.press("ArrowRight");
		await box.press("ArrowDown");
		await expect.poll(options).toEqual(["browser:", "browser.name:"]);
		await list.getByRole("option", { name: "browser.name:" }).click();
		expect(await box.inputValue()).toBe("browser.name: failed");
		await expect.poll(options).toEqual(["Chrome", "Safari"]);
		await list.getByRole("option", { name: /^Safari/ }).click();
		expect(await box.inputValue()).toBe("browser.name:Safari failed");
		await page.getByRole("button", { name: "Search" }).click();
		await expect.poll(titles).toEqual(["Login failed"]);
		expect(await axeViolations(page)).toEqual([]);
		await context.close();
	});
});

describe("release:latest in the search box", () => {
	it("is offered first for release: and firstRelease:, searches the newest release by version and stays in the box", async () => {
		const { token } = await signUpOwner(stack.worker.url, "latest", "10.96.0.3");
		const { raw_api_key: key } = await api<{ raw_api_key: string }>(stack.worker.url, "/api/feedback-key", { token, json: { project_name: "shop" } });
		// 1.10.0 is the newest by version, though 1.9.0 came after it and has more events.
		for (const [message, release] of [["Login failed", "1.10.0"], ["Checkout failed", "1.9.0"], ["Checkout failed", "1.9.0"]]) {
			const res = await fetch(`${stack.worker.url}/api/app-logs-ingest`, { method: "POST", headers: { "x-svc-key": key, "content-type": "application/json" }, body: JSON.stringify({ message, release }) });
			expect(res.status).toBe(200);
		}
		const { context, page, titles, box, list } = await phoneIssueList(token);
		const options = () => list.getByRole("option").evaluateAll((all) => all.map((option) => option.textContent));
		await box.click();
		await box.pressSequentially("firstRelease:");
		await expect.poll(options).toEqual(["latestthe newest release", "1.9.02 events", "1.10.01 event"]);
		await box.fill("");
		await box.pressSequentially("release:");
		await expect.poll(options).toEqual(["latestthe newest release", "1.9.02 events", "1.10.01 event"]);
		await box.press("ArrowDown");
		await box.press("Enter");
		expect(await box.inputValue()).toBe("release:latest ");
		await box.press("Enter");
		await expect.poll(titles).toEqual(["Login failed"]);
		// The release filter names a release: latest stays in the box, the filter on all releases.
		expect(new URL(page.url()).searchParams.get("q")).toBe("release:latest");
		expect(new URL(page.url()).searchParams.get("release")).toBe(null);
		expect(await box.inputValue()).toBe("release:latest");
		expect(await page.getByRole("combobox", { name: /^Release/ }).inputValue()).toBe("");
		// Under the box, the release latest stood for; gone with a search that does not name it.
		const latest = page.getByTestId("latest-release");
		expect(await latest.textContent()).toBe("release:latest is 1.10.0");
		await box.fill("firstRelease:latest");
		await box.press("Enter");
		await expect.poll(() => latest.textContent()).toBe("firstRelease:latest is 1.10.0");
		await box.fill("Checkout");
		await box.press("Enter");
		await expect.poll(titles).toEqual(["Checkout failed"]);
		expect(await latest.count()).toBe(0);
		await box.fill("release:latest");
		await box.press("Enter");
		await expect.poll(titles).toEqual(["Login failed"]);

		// The syntax says so.
		const syntax = page.getByRole("group").filter({ hasText: "Search syntax" });
		await syntax.getByText("Search syntax").click();
		expect(await syntax.getByText("release:latest firstRelease:latest").isVisible()).toBe(true);
		expect(await axeViolations(page)).toEqual([]);
		expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
		await context.close();
	});
});

async function ingestError(key: string, event: object) {
	const res = await fetch(`${stack.worker.url}/api/app-logs-ingest`, { method: "POST", headers: { "x-svc-key": key, "content-type": "application/json" }, body: JSON.stringify(event) });
	expect(res.status).toBe(200);
}

describe("a key searched with no value", () => {
	it("is not searched: the box keeps it and says what it needs, and a link holding one says the same", async () => {
		const { token } = await signUpOwner(stack.worker.url, "unfinished", "10.96.0.2");
		const { raw_api_key: key } = await api<{ raw_api_key: string }>(stack.worker.url, "/api/feedback-key", { token, json: { project_name: "shop" } });
		await ingestError(key, { message: "Checkout failed", level: "error" });
		const context = await stack.browser.newContext({ viewport: DESKTOP, locale: "en-US" });
		const page = await context.newPage();
		const pageErrors: string[] = [];
		page.on("pageerror", (error) => pageErrors.push(error.message));
		await useSession(page, stack.worker.url, token);
		await page.goto(`${stack.worker.url}/issues/shop`);
		const row = page.getByRole("link", { name: "Checkout failed" });
		await row.waitFor();
		const box = page.getByRole("combobox", { name: /^Search title/ });
		const hint = page.getByRole("alert");

		for (const [typed, said] of [
			["is:", "The search is not finished: is: needs a value, e.g. is:unresolved."],
			["checkout level: is:unresolved", "The search is not finished: level: needs a value, e.g. level:error."],
			["firstRelease:", "The search is not finished: firstRelease: needs a value, e.g. firstRelease:1.4.2."],
			["checkout is:bogus", "is:bogus is not one the search knows: is: takes unresolved, resolved, ignored, archived, regressed, escalating or unhandled."],
			// Sentry's keys svc has nothing for, and periods it has none for: searched, they would find nothing and not say why.
			["assigned:me is:unresolved", "The search names Sentry's assigned:, which svc cannot search: svc has no assignees."],
			["bookmarks:me", "The search names Sentry's bookmarks:, which svc cannot search: svc has no bookmarks."],
			["error.value:timeout", "The search names Sentry's error.value:, which svc cannot search: search the message as text, or error.type: for its type."],
			["timesSeen:lots", "timesSeen:lots is not one the search knows: timesSeen: takes a number of events, after >, >=, < or <= for more or fewer (>100)."],
			[
				"lastSeen:-3x",
				"lastSeen:-3x is not one the search knows: lastSeen: takes a time before now (-30m, -3d, -2w; +3d for longer ago) or a date (>=2026-11-01, <2026-11-01T12:00:00Z, or 2026-11-01 for that day).",
			],
			// Sentry's OR, which searched as text would find the wrong issues: refused as Sentry's issue search does.
			[
				"level:error OR level:fatal",
				"The search uses OR, which an issue search does not take (nor does Sentry's): every term must hold. For any of several values of one key, list them: level:[error, fatal].",
			],
		]) {
			await box.fill(typed);
			await page.getByRole("button", { name: "Search", exact: true }).click();
			await hint.waitFor();
			expect(await hint.textContent()).toBe(said);
			expect(await box.getAttribute("aria-invalid")).toBe("true");
			expect(await box.inputValue()).toBe(typed);
			// Nothing was searched: the list is as it was.
			expect(new URL(page.url()).search).toBe("");
			expect(await row.isVisible()).toBe(true);
		}
		expect(await axeViolations(page)).toEqual([]);
		// Finished, it is searched.
		await box.fill("level:error");
		await page.getByRole("button", { name: "Search", exact: true }).click();
		await expect.poll(() => new URL(page.url()).searchParams.get("q")).toBe("level:error");
		await row.waitFor();
		expect(await hint.count()).toBe(0);
		expect(await box.getAttribute("aria-invalid")).toBe(null);
		// Sentry's list of values: any of them.
		await box.fill("level:[warning, error]");
		await page.getByRole("button", { name: "Search", exact: true }).click();
		await expect.poll(() => new URL(page.url()).searchParams.get("q")).toBe("level:[warning, error]");
		await row.waitFor();
		expect(await hint.count()).toBe(0);
		// A time the list has no period for stays in the box, and is searched.
		await box.fill("lastSeen:-3d level:error");
		await page.getByRole("button", { name: "Search", exact: true }).click();
		await expect.poll(() => new URL(page.url()).searchParams.get("q")).toBe("lastSeen:-3d level:error");
		await row.waitFor();
		expect(await hint.count()).toBe(0);
		await box.fill("lastSeen:+3d");
		await page.getByRole("button", { name: "Search", exact: true }).click();
		await page.getByText("No issues match these filters.").waitFor();
		// Sentry's error.type: the exception's type, drawn from the event as a tag.
		await ingestError(key, { exception: { type: "TypeError", value: "x is undefined" } });
		await box.fill("error.type:TypeError");
		await page.getByRole("button", { name: "Search", exact: true }).click();
		await expect.poll(() => new URL(page.url()).searchParams.get("q")).toBe("error.type:TypeError");
		await page.getByRole("link", { name: "TypeError: x is undefined" }).waitFor();
		await expect.poll(() => row.count()).toBe(0);
		expect(await hint.count()).toBe(0);
		// Words followed by words stay text, as a title holds them.
		await box.fill("user: not found");
		await page.getByRole("button", { name: "Search", exact: true }).click();
		await page.getByText("No issues match these filters.").waitFor();
		expect(await hint.count()).toBe(0);

		// A link with one: the same words, not just "No issues match".
		await page.goto(`${stack.worker.url}/issues/shop?q=${encodeURIComponent("Level:")}`);
		await hint.waitFor();
		expect(await hint.textContent()).toBe("The search is not finished: Level: needs a value, e.g. Level:error.");
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});
