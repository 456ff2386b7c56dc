/**
 * The console's issue list filtered by environment, in a real browser against the real Worker:
 * each row's events, users and 24-hour chart are the in that environment, the order by
 * events follows them, and the page says so; an issue opened from it reads as it did there. A new
 * owner with one project, signed in through the API.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type ConsoleUnderTest, checkoutCrash, openConsole, useSession } from "./consolePage";
import { api, signUpOwner } from "./stack";

const project = "web-app";
let ui: ConsoleUnderTest;
let page: Page;
let worker: ConsoleUnderTest["worker"];
let rawKey = "";

beforeAll(async () => {
	ui = await openConsole();
	({ page, worker } = ui);
	const { token } = await signUpOwner(worker.url, "environments", "10.95.0.1");
	rawKey = (await api<{ raw_api_key: string }>(worker.url, "/api/feedback-key", { token, json: { project_name: project } })).raw_api_key;
	await useSession(page, worker.url, token);
});

afterAll(async () => {
	await ui?.close();
});

async function log(event: Record<string, unknown>) {
	const res = await fetch(`${worker.url}/api/app-logs-ingest`, { method: "POST", headers: { "x-svc-key": rawKey, "content-type": "application/json" }, body: JSON.stringify(event) });
	expect(res.status).toBe(200);
}

it("filtered by environment, each issue shows and is sorted by its events, users and last 24 hours there", async () => {
	// The checkout crash: three events in production (two people), one in staging. The slow render: two in staging.
	for (const user of ["ana@example.com", "bo@example.com", "ana@example.com"]) await log(checkoutCrash(user));
	await log({ ...checkoutCrash("cy@example.com"), environment: "staging" });
	for (const user of ["ana", "bo"]) await log({ level: "warning", message: "Slow checkout render", environment: "staging", user: { id: user } });

	await page.goto(`${worker.url}/issues/${project}?sort=count`);
	const crash = page.locator("li", { hasText: "TypeError: Cannot read properties" });
	const slow = page.locator("li", { hasText: "Slow checkout render" });
	await ui.waitShown(crash);
	const figures = async (row: typeof crash) => (await row.locator(".stats > span").allTextContents()).join(" ");
	expect(await figures(crash)).toBe("4 events 3 users");
	expect(await crash.getByRole("img").getAttribute("aria-label")).toBe("4 events in the last 24 hours");
	expect(await page.getByTestId("environment-scope").count()).toBe(0);
	const titles = () => page.locator("li .title").allTextContents();
	expect(await titles()).toEqual(["TypeError: Cannot read properties of undefined (reading 'id')", "Slow checkout render"]);

	const environment = page.getByRole("combobox", { name: /^Environment/ });
	await environment.selectOption("production");
	await slow.waitFor({ state: "detached" });
	await expect.poll(() => figures(crash)).toBe("3 events 2 users");
	expect(await crash.getByRole("img").getAttribute("aria-label")).toBe("3 events in production in the last 24 hours");
	expect(await crash.textContent()).toContain("first seen in production");
	expect(await page.getByTestId("environment-scope").textContent()).toContain("count only what happened in production");

	// In staging the slow render has more events, so it comes first.
	await environment.selectOption("staging");
	await expect.poll(() => figures(crash)).toBe("1 event 1 user");
	expect(await figures(slow)).toBe("2 events 2 users");
	expect(await slow.getByTitle("users in staging").textContent()).toBe("2 users");
	expect(await titles()).toEqual(["Slow checkout render", "TypeError: Cannot read properties of undefined (reading 'id')"]);
	expect(new URL(page.url()).searchParams.get("environment")).toBe("staging");
	// Sentry's Users sort, by the people affected there: two against one.
	await page.getByRole("combobox", { name: /^Sort by/ }).selectOption("users");
	await expect.poll(() => new URL(page.url()).searchParams.get("sort")).toBe("users");
	await expect.poll(titles).toEqual(["Slow checkout render", "TypeError: Cannot read properties of undefined (reading 'id')"]);
	await ui.checkPage("issues-environment");
});

it("an issue opened from the list filtered by environment reads as the list showed it there, and shows all environments on request", async () => {
	// The list is still filtered by staging (the test before): the checkout crash has one event there.
	await page.goto(`${worker.url}/issues/${project}?sort=count&environment=staging`);
	await page.getByRole("link", { name: /^TypeError: Cannot read properties/ }).click();
	await page.getByTestId("environment-scope").waitFor();
	expect(new URL(page.url()).searchParams.get("environment")).toBe("staging");
	const events = page.getByRole("region", { name: "Newest events table" }).locator("tbody tr");
	expect(await page.locator(".figures").textContent()).toMatch(/Events\s*1\s*Users\s*1/);
	expect(await events.count()).toBe(1);
	expect(await events.first().textContent()).toContain("staging");

	await page.getByRole("link", { name: "Show all environments" }).click();
	await page.getByTestId("environment-scope").waitFor({ state: "detached" });
	await expect.poll(() => page.locator(".figures").textContent()).toMatch(/Events\s*4\s*Users\s*3/);
	expect(await events.count()).toBe(4);
	// Back to the list as it was left, staging and all.
	await page.getByRole("link", { name: `← Issues of ${project}` }).click();
	await page.getByTestId("environment-scope").waitFor();
	expect(new URL(page.url()).searchParams.get("environment")).toBe("staging");
});

it("an issue linked with an environment it has no events in says so and offers all environments", async () => {
	// The slow render was only ever seen in staging (the first test).
	await page.goto(`${worker.url}/issues/${project}?environment=staging`);
	await page.getByRole("link", { name: "Slow checkout render" }).click();
	await page.getByTestId("environment-scope").waitFor();
	const hash = new URL(page.url()).pathname.split("/").pop();
	await page.goto(`${worker.url}/issues/${project}/${hash}?environment=production`);
	await page.getByText("No such issue in this project with events in production").waitFor();
	await page.getByRole("link", { name: "Show all environments" }).click();
	await page.getByRole("heading", { name: "Slow checkout render" }).waitFor();
	expect(new URL(page.url()).searchParams.get("environment")).toBeNull();
	expect(await page.locator(".figures").textContent()).toMatch(/Events\s*2\s*Users\s*2/);
});
