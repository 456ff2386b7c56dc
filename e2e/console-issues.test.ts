/**
 * The owner console's issues in a real browser against the real Worker serving the built console:
 * the list with its search and filters, an issue with its stack trace, events over time and
 * resolving it, an exception chain, and the issues a feedback sender ran into. A new owner with
 * one project and one feedback item, signed in through the API; the steps run in order on one
 * page. Every page is checked as in console.test.ts.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleUnderTest, checkoutCrash, clickThenSelect, openConsole, useSession } from "./consolePage";
import { api, signUpOwner } from "./stack";

const project = "web-app";
let ui: ConsoleUnderTest;
let page: Page;
let worker: ConsoleUnderTest["worker"];
let checkPage: ConsoleUnderTest["checkPage"];
let waitShown: ConsoleUnderTest["waitShown"];
let rawKey = "";
let token = "";

beforeAll(async () => {
	ui = await openConsole();
	({ page, worker, checkPage, waitShown } = ui);
	({ token } = await signUpOwner(worker.url, "issues", "10.97.2.1"));
	rawKey = (await api<{ raw_api_key: string }>(worker.url, "/api/feedback-key", { token, json: { project_name: project } })).raw_api_key;
	// The feedback of a user whose events make up the walk's first issue.
	const res = await fetch(`${worker.url}/functions/v1/submit-feedback`, {
		method: "POST",
		headers: { authorization: `Bearer ${rawKey}`, "content-type": "application/json" },
		body: JSON.stringify({ type: "issue", title: "Crash on save", description: "details", email: "ana@example.com" }),
	});
	expect(res.status).toBe(200);
	await useSession(page, worker.url, token);
	await page.goto(`${worker.url}/`);
	await page.getByRole("link", { name: project, exact: true }).waitFor();
});

afterAll(async () => {
	await ui?.close();
});

describe("owner console: issues", () => {
	it("lists logged issues with their counts, shows one with its stack trace, and resolves it", async () => {
		for (const [i, user] of ["ana@example.com", "bo@example.com", "ana@example.com"].entries()) {
			// Each with the id its SDK gave it: the newest, the third, is 2222… and comes from a clock a day ahead.
			const ahead = i === 2 ? { timestamp: new Date(Date.now() + 86_400_000).toISOString() } : {};
			const res = await fetch(`${worker.url}/api/app-logs-ingest`, {
				method: "POST",
				headers: { "x-svc-key": rawKey, "content-type": "application/json" },
				body: JSON.stringify({ ...checkoutCrash(user), event_id: String(i).repeat(32), ...ahead }),
			});
			expect(res.status).toBe(200);
		}
		await fetch(`${worker.url}/api/app-logs-ingest`, {
			method: "POST",
			headers: { "x-svc-key": rawKey, "content-type": "application/json" },
			body: JSON.stringify({ level: "warning", message: "Slow checkout render", environment: "staging" }),
		});

		await page.getByRole("navigation", { name: "Areas" }).getByRole("link", { name: "Issues" }).click();
		const row = page.locator("li", { hasText: "TypeError: Cannot read properties" });
		await waitShown(row);
		expect(await row.textContent()).toMatch(/3\s*events/);
		expect(await row.textContent()).toMatch(/2\s*users/);
		expect(await row.getByText("submitOrder (src/checkout.ts)").isVisible()).toBe(true);
		// Sentry's short id: the project's name and the issue's number in it.
		expect(await row.locator(".short-id").textContent()).toBe("WEB-APP-1");
		await checkPage("issues");

		// Pasted into the search, a short id finds its issue.
		await page.getByRole("combobox", { name: /^Search title/ }).fill("web-app-2");
		await page.getByRole("button", { name: "Search" }).click();
		await row.waitFor({ state: "detached" });
		expect(await page.locator("li.issue-row .short-id").allTextContents()).toEqual(["WEB-APP-2"]);
		expect(await page.getByRole("link", { name: "Slow checkout render" }).isVisible()).toBe(true);
		await page.getByRole("combobox", { name: /^Search title/ }).fill("slow");
		await page.getByRole("button", { name: "Search" }).click();
		await row.waitFor({ state: "detached" });
		expect(await page.getByRole("link", { name: "Slow checkout render" }).isVisible()).toBe(true);
		// A search as typed in Sentry: is: and environment: set the filters above, the rest stays the search.
		await page.getByRole("combobox", { name: /^Search title/ }).fill("is:unresolved environment:staging level:warning");
		await page.getByRole("button", { name: "Search" }).click();
		await expect.poll(() => new URL(page.url()).search).toBe("?q=level%3Awarning&environment=staging");
		await expect.poll(() => page.getByRole("combobox", { name: /^Environment/ }).inputValue()).toBe("staging");
		expect(await page.getByRole("combobox", { name: /^Search title/ }).inputValue()).toBe("level:warning");
		await page.getByRole("link", { name: "Slow checkout render" }).waitFor();
		expect(await page.locator("li.issue-row").count()).toBe(1);

		// Environment and release offer every name the project holds, apply at once and stay in the URL.
		const environment = page.getByRole("combobox", { name: /^Environment/ });
		const release = page.getByRole("combobox", { name: /^Release/ });
		await expect.poll(() => environment.locator("option").allTextContents()).toEqual(["All environments", "production", "staging"]);
		// A filter chosen the moment after Clear, before the page has rendered again, starts from the
		// cleared address: the search stays cleared.
		await clickThenSelect(page, { button: "Clear", select: "Environment", value: "staging" });
		await expect.poll(() => new URL(page.url()).search).toBe("?environment=staging");
		await row.waitFor({ state: "detached" });
		expect(await page.getByRole("link", { name: "Slow checkout render" }).isVisible()).toBe(true);
		// The shown issue has no release: the other filter still offers the project's.
		expect(await release.locator("option").allTextContents()).toEqual(["All releases", "1.4.2"]);
		await release.selectOption("1.4.2");
		await page.getByText("No issues match these filters.").waitFor();
		await checkPage("issues-filtered");
		await environment.selectOption("");
		await waitShown(row);
		expect(await page.getByRole("link", { name: "Slow checkout render" }).count()).toBe(0);
		expect(new URL(page.url()).searchParams.get("release")).toBe("1.4.2");
		// An issue opened from the filtered list leads back to the list as it was left.
		await page.getByRole("link", { name: /TypeError: Cannot read properties/ }).click();
		await page.getByRole("link", { name: "← Issues of web-app" }).click();
		await waitShown(row);
		expect(new URL(page.url()).searchParams.get("release")).toBe("1.4.2");
		await page.getByRole("button", { name: "Clear" }).click();

		await page.getByRole("link", { name: /TypeError: Cannot read properties/ }).click();
		await page.getByRole("heading", { name: "TypeError", exact: true }).waitFor();
		expect(await page.getByTestId("short-id").locator("code").textContent()).toBe("WEB-APP-1");
		expect(await page.getByTestId("short-id").getByRole("button", { name: "Copy the short id WEB-APP-1" }).isVisible()).toBe(true);
		expect(await page.locator("#event-heading").textContent()).toContain(`ID ${"2".repeat(32)}`);
		expect(await page.locator("#event-heading").textContent()).toContain("by a clock that runs ahead");
		// The in-app frame is shown with the lines around its own, numbered; the library frame is folded away.
		const source = page.locator(".context.numbered");
		expect(await source.getByRole("listitem").allTextContents()).toEqual(["export function submitOrder(cart) {", "const id = cart.owner.id;", "return api.post(\"/orders\", id);"]);
		expect(await source.getAttribute("start")).toBe("41");
		expect(await source.locator("[aria-current]").textContent()).toBe("const id = cart.owner.id;");
		expect(await page.getByText("commitRoot (node_modules/react-dom/client.js:10)").isVisible()).toBe(false);
		expect(await page.getByText("1 library frame").isVisible()).toBe(true);
		expect(await page.getByRole("cell", { name: "Pay button" }).isVisible()).toBe(true);
		expect(await page.getByRole("cell", { name: "POST /api/order → 500" }).isVisible()).toBe(true);
		// The frame's local variables, folded until asked for.
		await page.getByText("Local variables").click();
		expect(await page.locator(".vars dd").textContent()).toBe('{"items":2,"owner":null}');
		// A context of the app's own, and additional data.
		expect(await page.getByRole("region", { name: "Contexts and SDK" }).getByText("items: 3 · currency: EUR").isVisible()).toBe(true);
		expect(await page.getByRole("region", { name: "Additional data" }).getByRole("definition").textContent()).toBe("7");
		await checkPage("issue");

		// Events over time: per hour over the last 24 hours, or per day over the last 30.
		const overTime = page.getByRole("region", { name: /^Events, last/ });
		expect(await overTime.getByRole("img").getAttribute("aria-label")).toBe("Events per UTC hour over the last 24 hours: 3 events in all");
		await overTime.getByRole("button", { name: "30 days" }).click();
		await page.getByRole("heading", { name: "Events, last 30 days" }).waitFor();
		expect(await overTime.getByRole("button", { name: "30 days" }).getAttribute("aria-pressed")).toBe("true");
		expect(await overTime.getByRole("img").getAttribute("aria-label")).toBe("Events per UTC day over the last 30 days: 3 events in all");
		// A bar's count shows on hover: today's, the last, holds all three.
		const plot = await overTime.locator(".u-over").boundingBox();
		await page.mouse.move((plot?.x ?? 0) + (plot?.width ?? 0) - 2, (plot?.y ?? 0) + (plot?.height ?? 0) / 2);
		await expect.poll(() => overTime.locator(".u-legend .u-series").nth(1).textContent()).toMatch(/Events\s*3/);
		// The hovered day's figure, not the period's total (which the legend shows unhovered).
		expect(await overTime.locator(".u-legend .u-series").nth(0).textContent()).not.toContain("whole period");
		expect(new URL(page.url()).searchParams.get("period")).toBe("30d");
		await checkPage("issue-30-days");

		await page.getByRole("button", { name: "Resolve" }).click();
		await page.getByRole("button", { name: "Reopen" }).waitFor();
		expect(await page.getByTestId("issue-status").textContent()).toBe("Resolved");
		await expect
			.poll(async () => (await api(worker.url, `/api/issues?project_name=${project}&status=resolved`, { token })).issues.length)
			.toBe(1);
		await page.getByText("Resolved in release 1.4.2").first().waitFor();
		expect(await page.getByTestId("issue-activity").locator("li > span").first().textContent()).toBe("Resolved in release 1.4.2");

		// A search by the id an SDK showed someone (the second event's, as a UUID): the list says the
		// Open filter hides its now resolved issue, and the issue opens on that event.
		const uuid = "11111111-1111-1111-1111-111111111111";
		await page.goto(`${worker.url}/issues/${project}?q=${uuid}`);
		await page.getByText("No open issue holds this event").waitFor();
		await page.goto(`${worker.url}/issues/${project}?q=${uuid}&status=any`);
		await page.getByRole("link", { name: /TypeError: Cannot read properties/ }).click();
		await expect.poll(() => page.locator("#event-heading").textContent()).toContain(`ID ${"1".repeat(32)}`);
		expect(await page.locator("#event-heading").textContent()).not.toContain("(newest)");
		// The issue's own address, opened afresh, leads back to the plain list (the next test starts here).
		await page.goto(page.url().split("?")[0]);
		await page.getByRole("heading", { name: "TypeError", exact: true }).waitFor();
	});

	it("shows an exception chain: the reported exception, then what caused it", async () => {
		const res = await fetch(`${worker.url}/api/app-logs-ingest`, {
			method: "POST",
			headers: { "x-svc-key": rawKey, "content-type": "application/json" },
			body: JSON.stringify({
				exception: {
					values: [
						{ type: "ConnectionError", value: "socket hang up", mechanism: { type: "chained", source: "cause", exception_id: 1, parent_id: 0 } },
						{
							type: "PaymentError",
							value: "Charge failed",
							mechanism: { type: "generic", exception_id: 0 },
							stacktrace: { frames: [{ filename: "src/pay.ts", function: "charge", lineno: 12, in_app: true }] },
						},
					],
				},
			}),
		});
		expect(res.status).toBe(200);
		await page.getByRole("link", { name: "← Issues of web-app" }).click();
		await page.getByRole("link", { name: "PaymentError: Charge failed" }).click();
		await page.getByRole("heading", { name: "PaymentError", exact: true }).waitFor();
		const cause = page.locator(".chained");
		expect(await cause.getByRole("heading").textContent()).toBe("ConnectionError caused it");
		expect(await cause.getByText("socket hang up").isVisible()).toBe(true);
		await checkPage("issue-chain");
	});

	it("shows beside a feedback item the issues its sender ran into, one click from each", async () => {
		// "Crash on save" came from ana@example.com, whose events make up the TypeError issue.
		await page.getByRole("navigation", { name: "Areas" }).getByRole("link", { name: "Feedback" }).click();
		await page.getByRole("link", { name: "Crash on save" }).click();
		const related = page.getByRole("region", { name: "Issues this person ran into" });
		await related.getByRole("link", { name: /TypeError: Cannot read properties/ }).waitFor();
		expect(await related.getByText("Slow checkout render").count()).toBe(0);
		await checkPage("feedback-linked-issues");
		// The issue comes back in a later release: a regression, shown plainly.
		const again = await fetch(`${worker.url}/api/app-logs-ingest`, {
			method: "POST",
			headers: { "x-svc-key": rawKey, "content-type": "application/json" },
			body: JSON.stringify(checkoutCrash("ana@example.com", "1.4.3")),
		});
		expect(((await again.json()) as { is_new: boolean }).is_new).toBe(false);
		await related.getByRole("link", { name: /TypeError: Cannot read properties/ }).click();
		await page.getByRole("heading", { name: "TypeError", exact: true }).waitFor();
		await page.getByText("Regression: resolved in 1.4.2, seen again").waitFor();
	});
});
