/**
 * The owner console in a real browser against the real Worker serving the built console, a new
 * owner's walk through projects, feedback and the account (issues in console-issues.test.ts,
 * analytics in console-analytics.test.ts, source maps in console-sourcemaps.test.ts). Every page
 * is checked with axe-core (no serious or critical violation), at 390 px width (no sideways
 * scrolling), and saved as a screenshot under e2e/artifacts/.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleUnderTest, DESKTOP, openConsole } from "./consolePage";
import { api, type Database } from "./stack";

const PNG_1PX =
	"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

let ui: ConsoleUnderTest;
let page: Page;
let browser: ConsoleUnderTest["browser"];
let worker: ConsoleUnderTest["worker"];
let checkPage: ConsoleUnderTest["checkPage"];

beforeAll(async () => {
	ui = await openConsole();
	({ page, browser, worker, checkPage } = ui);
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
		// A Sentry user is told which of the SDK's data arrive: Sentry.logger's logs do not become issues.
		expect(await setup.getByText("Sentry.logger's logs").isVisible()).toBe(true);
		expect(await setup.getByText(`endpoint: "${worker.url}"`).first().isVisible()).toBe(true);
		await checkPage("project");
		// On a phone, each field's Type shows its whole choice ("Long text (10,000)" was cut off).
		await page.setViewportSize({ width: 390, height: 844 });
		const cut = await page.locator("fieldset select").evaluateAll((selects: HTMLSelectElement[]) =>
			selects.flatMap((select) => {
				const shown = select.getBoundingClientRect().width;
				select.style.minWidth = "max-content";
				const needed = select.getBoundingClientRect().width;
				select.style.minWidth = "";
				return needed > shown + 0.5 ? [`${select.value}: ${Math.round(shown)} of ${Math.round(needed)} px`] : [];
			}),
		);
		expect(cut).toEqual([]);
		await page.setViewportSize(DESKTOP);

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
				// The crash comes with two screenshots, told apart by their captions.
				body: JSON.stringify({ type, title, description: "details", email: "ana@example.com", screenshots: type === "issue" ? [PNG_1PX, PNG_1PX] : [PNG_1PX], app_version: "1.2.3", build: "b-77" }),
			});
			expect(res.status).toBe(200);
		}

		await page.getByRole("navigation", { name: "Areas" }).getByRole("link", { name: "Feedback" }).click();
		await page.getByRole("link", { name: "Crash on save" }).waitFor();
		expect(await page.getByRole("link", { name: "Dark mode" }).isVisible()).toBe(true);
		// Each item says who sent it and how many images it carries.
		const crash = page.getByRole("listitem").filter({ has: page.getByRole("link", { name: "Crash on save" }) });
		expect(await crash.getByText("from ana@example.com").isVisible()).toBe(true);
		expect(await crash.getByText("2 images", { exact: true }).isVisible()).toBe(true);
		await checkPage("feedback");

		await page.getByLabel("Type").selectOption("feature_request");
		await page.getByRole("link", { name: "Crash on save" }).waitFor({ state: "detached" });
		expect(page.url()).toContain("type=feature_request");
		await page.getByLabel("Type").selectOption("");

		// A search of the feedback's text, kept in the address and the box; Clear brings all back.
		await page.getByRole("searchbox").fill("SAVE");
		await page.getByRole("button", { name: "Search" }).click();
		await page.getByRole("link", { name: "Dark mode" }).waitFor({ state: "detached" });
		expect(await page.getByRole("link", { name: "Crash on save" }).isVisible()).toBe(true);
		expect(new URL(page.url()).searchParams.get("q")).toBe("SAVE");
		expect(await page.getByRole("searchbox").inputValue()).toBe("SAVE");
		await page.getByRole("button", { name: "Clear" }).click();
		await page.getByRole("link", { name: "Dark mode" }).waitFor();
		expect(await page.getByRole("searchbox").inputValue()).toBe("");

		// The status change shows at once and reaches the server.
		await page.getByLabel("Status of Crash on save").selectOption("in_progress");
		await expect
			.poll(async () => (await api(worker.url, `/api/feedback?project_name=${project}&status=in_progress`, { token })).feedback.length)
			.toBe(1);

		// The detail: every field, the images among them.
		await page.getByRole("link", { name: "Crash on save" }).click();
		await page.getByRole("heading", { name: /Crash on save/ }).waitFor();
		expect(await page.getByText("1.2.3").isVisible()).toBe(true);
		// Fields read as the form labels them; a field beyond the form by its key.
		const terms = await page.getByRole("term").allTextContents();
		expect(terms).toEqual(expect.arrayContaining(["Title", "Description", "Email", "App version", "build"]));
		// The sender's address, an email field, is one click from a reply.
		expect(await page.getByRole("link", { name: "ana@example.com" }).getAttribute("href")).toBe("mailto:ana@example.com");
		const image = page.getByRole("img", { name: "Screenshots, 2 of 2 of Crash on save" });
		await image.waitFor();
		expect(await image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);
		// In the fields, a row labelled as the form labels the field, as the item's other fields: each a
		// thumbnail to see (of a 1-pixel image, not a dot), a link to the whole image.
		const images = page.locator("dl.fields > div", { has: page.getByRole("term").filter({ hasText: /^Screenshots$/ }) }).getByRole("definition");
		expect(await images.getByRole("img").count()).toBe(2);
		const box = await image.boundingBox();
		expect(Math.min(box?.width ?? 0, box?.height ?? 0)).toBeGreaterThanOrEqual(64);
		expect(await images.getByRole("link", { name: "Screenshots, 1 of 2 of Crash on save" }).getAttribute("href")).toMatch(/^blob:/);
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
		// The walk stands on the feedback list: it reads the rows written behind its back when it is
		// opened again from another area.
		await page.getByRole("navigation", { name: "Areas" }).getByRole("link", { name: "Projects" }).click();
		await page.getByRole("heading", { name: "Projects" }).waitFor();
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
