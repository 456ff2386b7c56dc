/**
 * The project page's log events card, in a real browser against the real Worker: what became of
 * the key's log events over the last 30 days (accepted, filtered, rate limited, invalid), as an
 * owner wondering where an error went reads it. A new owner with one project, signed in through
 * the API, its events sent as an app sends them.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type ConsoleUnderTest, checkoutCrash, openConsole, useSession } from "./consolePage";
import { api, signUpOwner } from "./stack";

const project = "checkout";
let ui: ConsoleUnderTest;
let page: Page;
let worker: ConsoleUnderTest["worker"];
let token = "";
let rawKey = "";

beforeAll(async () => {
	ui = await openConsole();
	({ page, worker } = ui);
	({ token } = await signUpOwner(worker.url, "outcomes", "10.96.0.1"));
	rawKey = (await api<{ raw_api_key: string }>(worker.url, "/api/feedback-key", { token, json: { project_name: project } })).raw_api_key;
	await useSession(page, worker.url, token);
});

afterAll(async () => {
	await ui?.close();
});

const log = (event: unknown) =>
	fetch(`${worker.url}/api/app-logs-ingest`, { method: "POST", headers: { "x-svc-key": rawKey, "content-type": "application/json" }, body: JSON.stringify(event) });

it("says no events arrived, then counts each by what became of it, with the way out of a rate limit", async () => {
	await page.goto(`${worker.url}/projects/${project}`);
	const card = page.locator("section.card", { has: page.getByRole("heading", { name: "Log events, last 30 days" }) });
	await ui.waitShown(card.getByText("No log events arrived in the last 30 days."));
	expect(await card.getByTestId("outcome-accepted").count()).toBe(0);

	await api(worker.url, "/api/feedback-key", { token, method: "PATCH", json: { project_name: project, logs_rate_limit_per_minute: 3 } });
	for (const user of ["ana@example.com", "bo@example.com", "cy@example.com"]) expect((await log(checkoutCrash(user))).status).toBe(200);
	expect((await log(checkoutCrash("dee@example.com"))).status).toBe(429);
	const fromExtension = { level: "error", exception: { type: "Error", value: "Extension context invalidated." } };
	expect((await log(fromExtension)).status).toBe(200);
	expect((await log({ level: "error" })).status).toBe(400);

	await page.reload();
	const figure = (outcome: string) => card.getByTestId(`outcome-${outcome}`).locator(".value").textContent();
	await ui.waitShown(card.getByTestId("outcome-accepted"));
	expect(await figure("accepted")).toBe("3");
	expect(await figure("filtered")).toBe("1");
	expect(await figure("rate_limited")).toBe("1");
	expect(await figure("invalid")).toBe("1");
	expect(await figure("over_issue_cap")).toBe("0");
	expect(await figure("client_discard")).toBe("0");
	expect(await card.getByRole("img").getAttribute("aria-label")).toBe("Log events per day over the last 30 days: 3 accepted, 1 filtered, 2 dropped");
	expect(await card.textContent()).toContain("raise “Log events per minute” above to accept more");
	await ui.checkPage("project-log-outcomes");
});
