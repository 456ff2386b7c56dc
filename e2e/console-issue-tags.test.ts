/**
 * An issue's tags on its page, as a Sentry user reads them to tell "only Safari" or "only the
 * last release" at a glance: each tag's most common values with their share of the events.
 */
import { describe, expect, it } from "vitest";
import { axeViolations } from "./axe";
import { join } from "node:path";
import { ARTIFACTS, DESKTOP, useSession } from "./consolePage";
import { api, signUpOwner, workerAndBrowser } from "./stack";

const stack = workerAndBrowser();

const browsers = [
	{ name: "Chrome", version: "131.0.0" },
	{ name: "Chrome", version: "131.0.0" },
	{ name: "Safari", version: "18.1" },
	{ name: "Firefox", version: "133.0" },
];

describe("an issue's tags", () => {
	it("show each tag's values with their share of the events, the first three and the rest behind a toggle", async () => {
		const { token } = await signUpOwner(stack.worker.url, "tags", "10.97.0.1");
		const { raw_api_key: key } = await api<{ raw_api_key: string }>(stack.worker.url, "/api/feedback-key", { token, json: { project_name: "shop" } });
		// Another issue, seen in Chrome only.
		const send = (event: unknown) =>
			fetch(`${stack.worker.url}/api/app-logs-ingest`, { method: "POST", headers: { "x-svc-key": key, "content-type": "application/json" }, body: JSON.stringify(event) });
		expect((await send({ message: "Login failed", environment: "staging", contexts: { browser: browsers[0] } })).status).toBe(200);
		let groupHash = "";
		for (const [i, browser] of browsers.entries()) {
			const event = { message: "Checkout failed", level: "error", environment: i < 3 ? "production" : "staging", release: i < 3 ? "1.2.1" : "1.2.0", tags: { shard: `shard-${i}` }, contexts: { browser } };
			const res = await send(event);
			expect(res.status).toBe(200);
			groupHash = (await res.json()).group_hash;
		}
		const context = await stack.browser.newContext({ viewport: DESKTOP, locale: "en-US" });
		const page = await context.newPage();
		await useSession(page, stack.worker.url, token);
		await page.goto(`${stack.worker.url}/issues/shop/${groupHash}`);

		const tags = page.getByRole("region", { name: "Tags" });
		await tags.getByText("Of 4 events.").waitFor();
		const rowsOf = async (key: string) =>
			(await page.getByRole("region", { name: `Tag ${key}`, exact: true }).locator("tbody tr").allInnerTexts()).map((row) => row.replace(/\s+/g, " ").trim());
		expect(await rowsOf("release")).toEqual(["1.2.1 75%", "1.2.0 25%"]);
		expect(await rowsOf("browser")).toEqual(["Chrome 131.0.0 50%", "Firefox 133.0 25%", "Safari 18.1 25%"]);
		// Four values: three shown, the fourth behind "1 more value".
		const shard = page.getByRole("region", { name: "Tag shard" });
		expect(await shard.getByText("4 values").isVisible()).toBe(true);
		expect(await shard.getByText("shard-3").isVisible()).toBe(false);
		await shard.getByText("1 more value").click();
		expect(await shard.getByText("shard-3").isVisible()).toBe(true);
		await page.screenshot({ path: join(ARTIFACTS, "issue-tags.png"), fullPage: true });
		expect(await axeViolations(page)).toEqual([]);

		// An environment's value opens the issue as it reads there, tags and all.
		await page.getByRole("region", { name: "Tag environment" }).getByRole("link", { name: "staging" }).click();
		await tags.getByText("Of 1 event in staging.").waitFor();
		expect(new URL(page.url()).searchParams.get("environment")).toBe("staging");
		expect(await rowsOf("browser")).toEqual(["Firefox 133.0 100%"]);

		await page.setViewportSize({ width: 390, height: 844 });
		await page.waitForTimeout(150);
		expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
		await page.screenshot({ path: join(ARTIFACTS, "issue-tags-390.png"), fullPage: true });
		expect(await axeViolations(page)).toEqual([]);

		// Any other value shows this events with it, in the environment read, as Sentry's
		// does; the search offers the project's issues with it: Login failed has a staging event
		// too, but not in Firefox.
		await page.getByRole("region", { name: "Tag browser", exact: true }).getByRole("link", { name: "Firefox 133.0" }).click();
		await page.getByTestId("event-search-result").getByText('1 of its 1 event matches browser:"Firefox 133.0".').waitFor();
		expect(await page.getByRole("combobox", { name: /^Search this issue's events/ }).inputValue()).toBe('browser:"Firefox 133.0"');
		await page.getByRole("link", { name: "Search all issues for it" }).click();
		const titles = () => page.locator(".issue-row a.title").allTextContents();
		await expect.poll(titles).toEqual(["Checkout failed"]);
		expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ status: "any", q: 'browser:"Firefox 133.0"', environment: "staging" });
		expect(await page.getByRole("combobox", { name: /^Search title/ }).inputValue()).toBe('browser:"Firefox 133.0"');
		// Typed as a Sentry user would: a tag stays in the box, a key the filters stand for moves to them.
		await page.getByRole("combobox", { name: /^Search title/ }).fill("browser.name:Chrome is:unresolved");
		await page.getByRole("button", { name: "Search" }).click();
		await expect.poll(titles).toEqual(["Login failed"]);
		expect(await page.getByRole("combobox", { name: /^Search title/ }).inputValue()).toBe("browser.name:Chrome");
		// The syntax, one click away.
		const syntax = page.getByRole("group").filter({ hasText: "Search syntax" });
		expect(await syntax.getByText("has:user tags[level]:error").isVisible()).toBe(false);
		await syntax.getByText("Search syntax").click();
		expect(await syntax.getByText("has:user tags[level]:error").isVisible()).toBe(true);
		await page.screenshot({ path: join(ARTIFACTS, "issues-tag-search-390.png"), fullPage: true });
		expect(await axeViolations(page)).toEqual([]);
		await context.close();
	});

	it("a search of the issue's events: the events shown and stepped through are the matches", async () => {
		const { token } = await signUpOwner(stack.worker.url, "event-search", "10.97.0.2");
		const { raw_api_key: key } = await api<{ raw_api_key: string }>(stack.worker.url, "/api/feedback-key", { token, json: { project_name: "shop" } });
		let groupHash = "";
		for (const [i, browser] of browsers.entries()) {
			const event = { message: "Checkout failed", tags: { shard: `shard-${i}` }, contexts: { browser }, timestamp: new Date(Date.now() - (10 - i) * 60_000).toISOString() };
			const res = await fetch(`${stack.worker.url}/api/app-logs-ingest`, { method: "POST", headers: { "x-svc-key": key, "content-type": "application/json" }, body: JSON.stringify(event) });
			expect(res.status).toBe(200);
			groupHash = (await res.json()).group_hash;
		}
		const context = await stack.browser.newContext({ viewport: DESKTOP, locale: "en-US" });
		const page = await context.newPage();
		await useSession(page, stack.worker.url, token);
		await page.goto(`${stack.worker.url}/issues/shop/${groupHash}`);
		const rows = page.getByRole("region", { name: /^Newest events/ }).locator("tbody tr");
		await expect.poll(() => rows.count()).toBe(4);

		// Chrome's value: its two events, the newest first, the steps among them alone.
		await page.getByRole("region", { name: "Tag browser", exact: true }).getByRole("link", { name: "Chrome 131.0.0" }).click();
		const result = page.getByTestId("event-search-result");
		await result.getByText('2 of its 4 events match browser:"Chrome 131.0.0".').waitFor();
		await expect.poll(() => rows.count()).toBe(2);
		const steps = page.getByRole("navigation", { name: "Events of this issue" });
		await expect.poll(() => steps.textContent()).toContain("1 of the 2 newest that match");
		await steps.getByRole("button", { name: "Older ›" }).click();
		await expect.poll(() => steps.textContent()).toContain("2 of the 2 newest that match");
		expect(await steps.getByRole("button", { name: "Older ›" }).isDisabled()).toBe(true);

		// Typed: a tag of the event's own, then one no event carries.
		// Typed with the box's suggestions: the issue's own tag, then its value.
		const box = page.getByRole("combobox", { name: /^Search this issue's events/ });
		await box.fill("sha");
		const options = page.getByRole("listbox", { name: "Search suggestions" }).getByRole("option");
		await options.filter({ hasText: "shard:" }).first().click();
		await expect.poll(() => options.allTextContents()).toContain("shard-31 event");
		await box.fill("shard:shard-3");
		await page.getByRole("button", { name: "Search events" }).click();
		await result.getByText("1 of its 4 events matches shard:shard-3.").waitFor();
		await expect.poll(() => rows.count()).toBe(1);
		// The event as stored, Sentry's JSON view: the match's own document.
		await page.getByText("The event as stored (JSON)").click();
		const stored = JSON.parse((await page.locator("details pre.snippet").textContent()) ?? "{}");
		expect(stored).toMatchObject({ message: "Checkout failed", tags: { shard: "shard-3" }, contexts: { browser: { name: "Firefox" } } });
		await box.fill("!has:shard");
		await page.getByRole("button", { name: "Search events" }).click();
		await result.getByText("None of its 4 events matches !has:shard.").waitFor();
		expect(await page.getByRole("heading", { name: /^Event / }).count()).toBe(0);
		await page.setViewportSize({ width: 390, height: 844 });
		await page.waitForTimeout(150);
		expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
		await page.screenshot({ path: join(ARTIFACTS, "issue-event-search-390.png"), fullPage: true });
		expect(await axeViolations(page)).toEqual([]);

		// A key about the issue as a whole is refused, in words, the issue still shown.
		await box.fill("is:resolved");
		await page.getByRole("button", { name: "Search events" }).click();
		await page.getByRole("alert").getByText(/search the issue list/).waitFor();
		expect(await page.getByRole("alert").textContent()).toBe(
			"This box searches this issue's events; is:unresolved, is:resolved, is:ignored, is:archived, is:regressed, is:escalating, firstRelease:, lastSeen:, firstSeen:, age: and timesSeen: ask about an issue as a whole: search the issue list with them.",
		);
		expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Checkout failed");
		// A key without its value is not searched: the box says what it needs (an event's is: is unhandled).
		const searched = page.url();
		for (const [typed, said] of [
			["is:", "The search is not finished: is: needs a value, e.g. is:unhandled."],
			["level: shard:shard-3", "The search is not finished: level: needs a value, e.g. level:error."],
			["is:resolved2", "is:resolved2 is not one the search knows: is: takes unhandled."],
		]) {
			await box.fill(typed);
			// Sent as the Search button sends it (the suggestions' list may cover the button).
			await box.evaluate((input: HTMLInputElement) => input.form?.requestSubmit());
			const hint = page.getByRole("alert").filter({ hasText: /not finished|not one the search knows/ });
			await hint.waitFor();
			expect(await hint.textContent()).toBe(said);
			expect(await box.getAttribute("aria-invalid")).toBe("true");
			expect(page.url()).toBe(searched);
		}
		// Clear: every event again.
		await page.getByRole("button", { name: "Clear" }).click();
		await expect.poll(() => rows.count()).toBe(4);
		expect(await result.count()).toBe(0);
		expect(new URL(page.url()).searchParams.has("q")).toBe(false);
		await context.close();
	});
});
