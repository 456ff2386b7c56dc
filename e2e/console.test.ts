/**
 * The owner console in a real browser against the real Worker serving the built console, a new
 * owner's walk through projects, feedback, issues and the account (analytics in
 * console-analytics.test.ts, source maps in console-sourcemaps.test.ts). Every page is checked with axe-core (no serious or critical
 * violation), at 390 px width (no sideways scrolling), and saved as a screenshot under
 * e2e/artifacts/.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleUnderTest, checkoutCrash, clickThenSelect, openConsole } from "./consolePage";
import { api, type Database } from "./stack";

const PNG_1PX =
	"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

let ui: ConsoleUnderTest;
let page: Page;
let browser: ConsoleUnderTest["browser"];
let worker: ConsoleUnderTest["worker"];
let checkPage: ConsoleUnderTest["checkPage"];
let waitShown: ConsoleUnderTest["waitShown"];

beforeAll(async () => {
	ui = await openConsole();
	({ page, browser, worker, checkPage, waitShown } = ui);
});

afterAll(async () => {
	await ui?.close();
});

const sessionTokenOf = (target: Page) => target.evaluate(() => localStorage.getItem("svc.session") ?? "");

describe("owner console", () => {
	const email = `console-${Date.now()}@example.com`;
	const project = "web-app";
	let rawKey = "";
	let dsnId = "";
	let token = "";

	it("signs up and lands on an empty projects page", async () => {
		await page.goto(`${worker.url}/`);
		await checkPage("sign-in");
		await page.getByRole("button", { name: /No account yet/ }).click();
		await page.getByLabel("Email").fill(email);
		await page.getByLabel("Password").fill("correct horse battery");
		await page.getByRole("button", { name: "Create account" }).click();
		await page.getByRole("heading", { name: "Projects" }).waitFor();
		await page.getByText("No projects yet").waitFor();
		expect(await page.getByText(/trial until/).isVisible()).toBe(true);
		token = await sessionTokenOf(page);
		// Every area is one click away.
		for (const area of ["Projects", "Feedback", "Issues", "Analytics", "Crawlers", "Account"]) {
			expect(await page.getByRole("navigation", { name: "Areas" }).getByRole("link", { name: area }).isVisible()).toBe(true);
		}
	});

	it("refuses a wrong password with the server's message", async () => {
		const other = await browser.newPage();
		await other.goto(`${worker.url}/`);
		await other.getByLabel("Email").fill(email);
		await other.getByLabel("Password").fill("wrong password!");
		await other.getByRole("button", { name: "Sign in" }).click();
		expect(await other.getByRole("alert").textContent()).toBe("Wrong email or password");
		await other.close();
	});

	it("creates a project key and shows the raw key and its Sentry DSN once", async () => {
		await page.getByPlaceholder("Project name").fill(project);
		await page.getByRole("button", { name: "Create project key" }).click();
		rawKey = (await page.getByTestId("raw-key").textContent()) ?? "";
		expect(rawKey).toMatch(/^svc_[A-Za-z0-9]{43}$/);
		const dsn = (await page.getByTestId("dsn").textContent()) ?? "";
		dsnId = dsn.split("/").pop() ?? "";
		expect(dsn).toBe(`${worker.url.replace("//", `//${rawKey}@`)}/${dsnId}`);
		await page.getByText(`…${rawKey.slice(-4)}`).waitFor();
		await checkPage("projects");
		await page.getByRole("button", { name: "Done" }).click();
		expect(await page.getByTestId("raw-key").count()).toBe(0);
		// A reload shows the hint, and the DSN with the key left out.
		await page.reload();
		await page.getByRole("link", { name: project, exact: true }).waitFor();
		expect(await page.content()).not.toContain(rawKey);
		await page.getByText(`${worker.url.replace("//", "//{PROJECT_KEY}@")}/${dsnId}`).waitFor();
	});

	it("edits the issue form: the server's errors show on their field, and submissions follow the saved form", async () => {
		await page.getByRole("link", { name: project, exact: true }).click();
		await page.getByRole("heading", { name: project }).waitFor();
		const form = page.getByRole("form", { name: "Issue form" });

		// A key the server refuses: its message shows on that field.
		await form.getByRole("button", { name: "Add field" }).click();
		const added = form.getByRole("group", { name: "Field 5" });
		await added.getByLabel("Key").fill("1st");
		await added.getByLabel("Label").fill("App version");
		await form.getByRole("button", { name: "Save issue form" }).click();
		await added.getByText("must start with a letter").waitFor();
		expect(await added.getByLabel("Key").getAttribute("aria-invalid")).toBe("true");

		await added.getByLabel("Key").fill("app_version");
		await added.getByLabel("Required").check();
		await form.getByRole("button", { name: "Move app_version up" }).click();
		await form.getByRole("button", { name: "Save issue form" }).click();
		await form.getByText("Saved.").waitFor();
		const saved = (await api(worker.url, `/api/feedback-key?project_name=${project}`, { token })).issue_field_config;
		expect(saved.map((f: { key: string }) => f.key)).toEqual(["title", "description", "email", "app_version", "screenshots"]);
		expect(saved[3]).toEqual({ key: "app_version", label: "App version", type: "text", required: true });
		// The set-up names this service and the project's DSN, and shows the logger SDK's.
		const setup = page.getByRole("region", { name: "Set-up" });
		expect(await setup.getByTestId("dsn-template").textContent()).toBe(`${worker.url.replace("//", "//{PROJECT_KEY}@")}/${dsnId}`);
		expect(await setup.getByRole("heading", { name: "@svcapp/logger in Node" }).isVisible()).toBe(true);
		expect(await setup.getByText(`endpoint: "${worker.url}"`).first().isVisible()).toBe(true);
		await checkPage("project");

		const submit = (body: Record<string, unknown>) =>
			fetch(`${worker.url}/functions/v1/submit-feedback`, {
				method: "POST",
				headers: { authorization: `Bearer ${rawKey}`, "content-type": "application/json" },
				body: JSON.stringify({ type: "issue", title: "t", description: "d", ...body }),
			});
		const refused = await submit({});
		expect(refused.status).toBe(400);
		expect((await refused.json()).fields).toEqual(["app_version"]);

		// Regenerating asks first, then shows the new key once; the old one stops working.
		await page.getByRole("button", { name: "Regenerate key…" }).click();
		await page.getByRole("button", { name: "Regenerate key", exact: true }).click();
		const fresh = (await page.getByTestId("raw-key").textContent()) ?? "";
		expect(fresh).not.toBe(rawKey);
		// The same DSN number, with the new key in it.
		expect(await page.getByTestId("dsn").textContent()).toBe(`${worker.url.replace("//", `//${fresh}@`)}/${dsnId}`);
		expect((await submit({ app_version: "1.0" })).status).toBe(401);
		rawKey = fresh;
		expect((await submit({ app_version: "1.0" })).status).toBe(200);
		await page.getByRole("button", { name: "Done" }).click();
		await api(worker.url, `/api/feedback?project_name=${project}`, { token }).then(({ feedback }) =>
			api(worker.url, "/api/feedback", { token, method: "DELETE", json: { ids: feedback.map((f: { id: string }) => f.id) } }),
		);
	});

	it("shows submitted feedback with its screenshot, filters it and triages it", async () => {
		for (const [title, type] of [
			["Crash on save", "issue"],
			["Dark mode", "feature_request"],
		]) {
			const res = await fetch(`${worker.url}/functions/v1/submit-feedback`, {
				method: "POST",
				headers: { authorization: `Bearer ${rawKey}`, "content-type": "application/json" },
				body: JSON.stringify({ type, title, description: "details", email: "ana@example.com", screenshots: [PNG_1PX], app_version: "1.2.3", build: "b-77" }),
			});
			expect(res.status).toBe(200);
		}

		await page.getByRole("navigation", { name: "Areas" }).getByRole("link", { name: "Feedback" }).click();
		await page.getByRole("link", { name: "Crash on save" }).waitFor();
		expect(await page.getByRole("link", { name: "Dark mode" }).isVisible()).toBe(true);
		await checkPage("feedback");

		await page.getByLabel("Type").selectOption("feature_request");
		await page.getByRole("link", { name: "Crash on save" }).waitFor({ state: "detached" });
		expect(page.url()).toContain("type=feature_request");
		await page.getByLabel("Type").selectOption("");

		// The status change shows at once and reaches the server.
		await page.getByLabel("Status of Crash on save").selectOption("in_progress");
		await expect
			.poll(async () => (await api(worker.url, `/api/feedback?project_name=${project}&status=in_progress`, { token })).feedback.length)
			.toBe(1);

		// The detail: every field and the image at full size.
		await page.getByRole("link", { name: "Crash on save" }).click();
		await page.getByRole("heading", { name: /Crash on save/ }).waitFor();
		expect(await page.getByText("1.2.3").isVisible()).toBe(true);
		// Fields read as the form labels them; a field beyond the form by its key.
		const terms = await page.getByRole("term").allTextContents();
		expect(terms).toEqual(expect.arrayContaining(["Title", "Description", "Email", "App version", "build"]));
		const image = page.getByRole("img", { name: "Screenshots of Crash on save" });
		await image.waitFor();
		expect(await image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);
		await checkPage("feedback-detail");
		await page.getByRole("link", { name: "← All feedback" }).click();

		// A bulk status change, then a bulk delete that asks first.
		await page.getByLabel("Select all shown").check();
		await page.getByLabel("New status for selected").selectOption("human_review");
		await page.getByRole("button", { name: "Set status" }).click();
		await expect
			.poll(async () => (await api(worker.url, `/api/feedback?project_name=${project}&status=human_review`, { token })).feedback.length)
			.toBe(2);
		await page.getByText("0 selected").waitFor();
		await page.getByLabel("Select Dark mode").check();
		await page.getByRole("button", { name: "Delete…" }).click();
		await page.getByRole("button", { name: "Delete selected" }).click();
		await page.getByRole("link", { name: "Dark mode" }).waitFor({ state: "detached" });
		const left = (await api(worker.url, `/api/feedback?project_name=${project}`, { token })).feedback;
		expect(left.map((f: { data: { title: string } }) => f.data.title)).toEqual(["Crash on save"]);
	});

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
		await checkPage("issues");

		await page.getByRole("searchbox").fill("slow");
		await page.getByRole("button", { name: "Search" }).click();
		await row.waitFor({ state: "detached" });
		expect(await page.getByRole("link", { name: "Slow checkout render" }).isVisible()).toBe(true);

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
		expect(await overTime.getByRole("img").getAttribute("aria-label")).toBe("Events per hour over the last 24 hours: 3 events in all");
		await overTime.getByRole("button", { name: "30 days" }).click();
		await page.getByRole("heading", { name: "Events, last 30 days" }).waitFor();
		expect(await overTime.getByRole("button", { name: "30 days" }).getAttribute("aria-pressed")).toBe("true");
		expect(await overTime.getByRole("img").getAttribute("aria-label")).toBe("Events per day over the last 30 days: 3 events in all");
		// A bar's count shows on hover: today's, the last, holds all three.
		const plot = await overTime.locator(".u-over").boundingBox();
		await page.mouse.move((plot?.x ?? 0) + (plot?.width ?? 0) - 2, (plot?.y ?? 0) + (plot?.height ?? 0) / 2);
		await expect.poll(() => overTime.locator(".u-legend .u-series").nth(1).textContent()).toMatch(/Events\s*3/);
		expect(new URL(page.url()).searchParams.get("period")).toBe("30d");
		await checkPage("issue-30-days");

		await page.getByRole("button", { name: "Resolve" }).click();
		await page.getByRole("button", { name: "Reopen" }).waitFor();
		expect(await page.getByTestId("issue-status").textContent()).toBe("Resolved");
		await expect
			.poll(async () => (await api(worker.url, `/api/issues?project_name=${project}&status=resolved`, { token })).issues.length)
			.toBe(1);
		await page.getByText("Resolved in release 1.4.2").waitFor();

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

	it("reads a long inbox a page at a time, and a long item whole", async () => {
		// 60 older items, straight into D1 (more than the ingestion rate would take in a test).
		const { user } = await api<{ user: { id: string } }>(worker.url, "/api/auth/me", { token });
		const env = await worker.server.getWorker<{ DB: Database }>().getEnv();
		const longText = `${"A long report. ".repeat(80)}The end.`;
		const day = Date.now() - 86_400_000;
		for (let i = 0; i < 60; i++) {
			const data = { title: `Older report ${i}`, description: i === 0 ? longText : "short" };
			await env.DB.prepare("INSERT INTO feedback (id, user_id, project_name, type, status, data, created_at) VALUES (?, ?, ?, 'issue', 'open', ?, ?)")
				.bind(`older-${i}`, user.id, project, JSON.stringify(data), day - i)
				.run();
		}
		await page.getByRole("navigation", { name: "Areas" }).getByRole("link", { name: "Feedback" }).click();
		await page.getByRole("link", { name: "Older report 0", exact: true }).waitFor();
		// The first page: "Crash on save" and the 49 newest older reports.
		expect(await page.locator("li.feedback").count()).toBe(50);
		expect(await page.getByRole("link", { name: "Older report 49", exact: true }).count()).toBe(0);
		await page.getByRole("button", { name: "Show older feedback" }).click();
		await page.getByRole("link", { name: "Older report 59", exact: true }).waitFor();
		expect(await page.locator("li.feedback").count()).toBe(61);
		expect(await page.getByRole("button", { name: "Show older feedback" }).count()).toBe(0);

		// The list cuts the long description; the item shows it whole.
		const long = page.locator("li.feedback", { hasText: "Older report 0" });
		expect(await long.getByText("Long text is cut here").isVisible()).toBe(true);
		await long.getByRole("link", { name: "Older report 0" }).click();
		await page.getByRole("heading", { name: /Older report 0/ }).waitFor();
		expect(await page.getByText(longText, { exact: true }).isVisible()).toBe(true);
		await page.getByRole("link", { name: "← All feedback" }).click();
	});

	it("shows the account, and keeps the session across reloads until sign-out", async () => {
		await page.goto(`${worker.url}/account`);
		await page.getByTestId("access").waitFor();
		expect(await page.getByTestId("access").textContent()).toMatch(/^Active/);
		await checkPage("account");
		await page.reload();
		await page.getByRole("heading", { name: "Account" }).waitFor();
		await page.getByRole("button", { name: "Sign out" }).first().click();
		await page.getByRole("heading", { name: "Sign in to svc" }).waitFor();
		expect(await page.evaluate(() => localStorage.getItem("svc.session"))).toBeNull();
	});
});
