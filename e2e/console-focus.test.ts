/**
 * Keyboard focus through the console, driven from the keyboard: after a navigation it is on the
 * new page's heading (not the body, where a screen reader starts again from the top), except on the
 * first page loaded and on the picker that navigated; after a delete it is on the item now in the
 * deleted one's place, or on the list's heading once none is left; a dashboard filter picked from
 * a row is focused as its chip, and a chip removed hands focus to the chip in its place.
 */
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { useSession } from "./consolePage";
import { api, type Database, DESKTOP_CHROME, signUpOwner, workerAndBrowser } from "./stack";

const stack = workerAndBrowser();

/** The focused element, as "tag: text" (its label for a checkbox). */
const focused = (page: Page) =>
	page.evaluate(() => {
		const element = document.activeElement;
		if (!element || element === document.body) return "body";
		// A select's own text is its options': it is named by its label's first words.
		const label = element instanceof HTMLSelectElement ? element.labels?.[0]?.firstChild?.textContent : null;
		const name = element.getAttribute("aria-label") ?? label ?? element.textContent;
		return `${element.tagName.toLowerCase()}: ${name?.trim()}`;
	});

/** Opens the confirm dialog of the focused button and confirms it, from the keyboard. */
async function confirmFromKeyboard(page: Page, confirmLabel: string) {
	await page.keyboard.press("Enter");
	await page.getByRole("dialog", { name: confirmLabel }).waitFor();
	await page.keyboard.press("Tab");
	expect(await focused(page)).toBe(`button: ${confirmLabel}`);
	await page.keyboard.press("Enter");
}

it("puts focus on the new page's heading after a navigation, and on the next item after a delete", async () => {
	const { token } = await signUpOwner(stack.worker.url, "focus", "10.94.0.1");
	for (const name of ["Shop", "Blog"]) await api(stack.worker.url, "/api/feedback-key", { token, json: { project_name: name } });
	for (const domain of ["first.example", "second.example"]) await api(stack.worker.url, "/api/sites", { token, json: { domain, name: domain } });
	const { user } = await api<{ user: { id: string } }>(stack.worker.url, "/api/auth/me", { token });
	const env = await stack.worker.server.getWorker<{ DB: Database }>().getEnv();
	for (const [i, title] of ["Report A", "Report B", "Report C"].entries()) {
		await env.DB.prepare("INSERT INTO feedback (id, user_id, project_name, type, status, data, created_at) VALUES (?, ?, 'Shop', 'issue', 'open', ?, ?)")
			.bind(`focus-${i}`, user.id, JSON.stringify({ title }), Date.now() - i * 60_000)
			.run();
	}

	const page = await stack.browser.newPage({ viewport: { width: 1280, height: 900 }, locale: "en-US" });
	await useSession(page, stack.worker.url, token);
	await page.goto(`${stack.worker.url}/projects`);
	await page.getByRole("heading", { name: "Projects", level: 1 }).waitFor();
	// The first page loaded: the browser's own start, at the top.
	expect(await focused(page)).toBe("body");

	// A project's link, then a link in the navigation, from the keyboard: focus on each page's heading.
	await page.getByRole("main").getByRole("link", { name: "Shop", exact: true }).focus();
	await page.keyboard.press("Enter");
	await expect.poll(() => focused(page)).toBe("h1: Shop");
	await page.getByRole("navigation", { name: "Areas" }).getByRole("link", { name: "Feedback" }).focus();
	await page.keyboard.press("Enter");
	await page.getByRole("link", { name: "Report A" }).waitFor();
	await expect.poll(() => focused(page)).toBe("h1: Feedback");
	// Tab goes on from the heading into the page, not back to the top.
	await page.keyboard.press("Tab");
	expect(await focused(page)).toBe("select: Project");

	// The picker navigates to another project, and focus stays on it.
	await page.getByRole("combobox", { name: "Project", exact: true }).selectOption("Blog");
	await page.waitForURL(/\/feedback\/Blog$/);
	await page.getByText("No feedback yet for this project.").waitFor();
	expect(await focused(page)).toBe("select: Project");
	await page.goBack();
	await page.getByRole("link", { name: "Report A" }).waitFor();

	// Report B, ticked and deleted from the keyboard: the selection's Delete button is disabled
	// once nothing is selected, and focus goes to the list's heading.
	await page.getByRole("checkbox", { name: "Select Report B" }).focus();
	await page.keyboard.press("Space");
	await page.getByRole("group", { name: "Selected feedback" }).getByRole("button", { name: "Delete…" }).focus();
	await confirmFromKeyboard(page, "Delete selected");
	await page.getByRole("link", { name: "Report B" }).waitFor({ state: "detached" });
	await expect.poll(() => focused(page)).toBe("h1: Feedback");

	// An item's own page: following its link puts focus on the page's heading; deleting it goes
	// back to the list, focus on the list's heading.
	await page.getByRole("link", { name: "Report A" }).focus();
	await page.keyboard.press("Enter");
	await page.getByText(/^Received/).waitFor();
	await expect.poll(() => focused(page)).toBe("h1: Feedback");
	await page.getByRole("button", { name: "Delete…" }).focus();
	await confirmFromKeyboard(page, "Delete feedback");
	await page.getByRole("link", { name: "Report A" }).waitFor({ state: "detached" });
	await page.getByRole("link", { name: "Report C" }).waitFor();
	await expect.poll(() => focused(page)).toBe("h1: Feedback");

	// Sites: the first deleted, focus on the next site's first control; the last, on the heading.
	await page.getByRole("navigation", { name: "Areas" }).getByRole("link", { name: "Analytics" }).focus();
	await page.keyboard.press("Enter");
	await page.getByRole("link", { name: "second.example" }).waitFor();
	await expect.poll(() => focused(page)).toBe("h1: Analytics");
	const siteCard = (name: string) => page.getByRole("listitem").filter({ has: page.getByRole("heading", { name }) });
	await siteCard("first.example").getByRole("button", { name: "Delete…" }).focus();
	await confirmFromKeyboard(page, "Delete site");
	await page.getByRole("link", { name: "first.example" }).waitFor({ state: "detached" });
	await expect.poll(() => focused(page)).toBe("a: second.example");
	await siteCard("second.example").getByRole("button", { name: "Delete…" }).focus();
	await confirmFromKeyboard(page, "Delete site");
	await page.getByText("No sites yet: add one to see its visitors.").waitFor();
	await expect.poll(() => focused(page)).toBe("h1: Analytics");
});

it("keeps focus on a control disabled while its action runs: a switch, Save, the next page of a list", async () => {
	const { token } = await signUpOwner(stack.worker.url, "focus-pending", "10.94.0.2");
	await api(stack.worker.url, "/api/feedback-key", { token, json: { project_name: "Shop" } });
	const { user } = await api<{ user: { id: string } }>(stack.worker.url, "/api/auth/me", { token });
	const env = await stack.worker.server.getWorker<{ DB: Database }>().getEnv();
	// Three of the list's pages (50 items each) in part: Show older feedback stays after the second.
	for (let i = 0; i < 101; i++) {
		await env.DB.prepare("INSERT INTO feedback (id, user_id, project_name, type, status, data, created_at) VALUES (?, ?, 'Shop', 'issue', 'open', ?, ?)")
			.bind(`pending-${i}`, user.id, JSON.stringify({ title: `Report ${i}` }), Date.now() - i * 60_000)
			.run();
	}
	const page = await stack.browser.newPage({ viewport: { width: 1280, height: 900 }, locale: "en-US" });
	await useSession(page, stack.worker.url, token);
	/** Presses `key` on `control`, waits for its action to end (`done`, the control enabled again, the page drawn), and answers whether focus is on it. */
	const keepsFocus = async (control: ReturnType<Page["getByRole"]>, key: string, done: () => Promise<unknown>) => {
		await control.focus();
		const ended = done();
		await page.keyboard.press(key);
		await ended;
		await expect.poll(() => control.isEnabled()).toBe(true);
		await page.evaluate(() => new Promise(requestAnimationFrame));
		return control.evaluate((element) => element === document.activeElement);
	};

	await page.goto(`${stack.worker.url}/projects/Shop`);
	const logs = page.getByRole("checkbox", { name: /^App Logs accepted/ });
	const saved = () => page.waitForResponse((response) => response.url().endsWith("/api/feedback-key") && response.request().method() === "PATCH");
	expect(await keepsFocus(logs, "Space", saved), "the App Logs switch").toBe(true);
	expect(await logs.isChecked()).toBe(false);
	expect(await keepsFocus(page.getByRole("button", { name: "Save limits" }), "Enter", saved), "Save limits").toBe(true);

	await page.goto(`${stack.worker.url}/feedback/Shop`);
	await page.getByRole("link", { name: "Report 0", exact: true }).waitFor();
	const older = page.getByRole("button", { name: "Show older feedback" });
	expect(await keepsFocus(older, "Enter", () => page.getByRole("link", { name: "Report 50" }).waitFor()), "Show older feedback").toBe(true);
});

it("puts focus on a dashboard filter's chip once picked from a row, and on the next chip (its operator), the previous or the heading once one is removed", async () => {
	const { token } = await signUpOwner(stack.worker.url, "focus-filters", "10.94.0.3");
	const { tracking_id } = await api<{ tracking_id: string }>(stack.worker.url, "/api/sites", { token, json: { domain: "shop.example", name: "Shop" } });
	// A came from Google to /, B straight to /pricing; both in Chrome.
	for (const [visitor, body] of [["a", { url_path: "/", referrer: "https://www.google.com/" }], ["b", { url_path: "/pricing" }]] as const) {
		const res = await fetch(`${stack.worker.url}/api/collect`, {
			method: "POST",
			headers: { "content-type": "text/plain", "user-agent": DESKTOP_CHROME },
			body: JSON.stringify({ tracking_id, v: "2", url_host: "shop.example", visitor_id: `visitor-${visitor}`, ...body }),
		});
		expect(res.status).toBe(204);
	}
	const page = await stack.browser.newPage({ viewport: { width: 1280, height: 900 }, locale: "en-US" });
	await useSession(page, stack.worker.url, token);
	await page.goto(`${stack.worker.url}/analytics/${tracking_id}?period=30d`);
	const card = (name: string) => page.getByRole("region", { name, exact: true });
	/** Presses Enter on the row `row` of the card `region`. */
	const pickRow = async (region: string, row: string) => {
		await card(region).getByRole("button", { name: row, exact: true }).focus();
		await page.keyboard.press("Enter");
	};

	// Google picked: its row gives way to the referrer URLs behind it, and focus goes to its chip.
	await pickRow("Sources", "Google");
	await expect.poll(() => focused(page)).toBe("button: Source is Google, remove filter");
	await card("Sources").getByRole("button", { name: "Google", exact: true }).waitFor({ state: "detached" });
	expect(await focused(page)).toBe("button: Source is Google, remove filter");
	// A chip shown before Source's.
	await pickRow("Pages", "/");
	await expect.poll(() => focused(page)).toBe("button: Page is /, remove filter");

	// The first chip removed: focus on the next, at its first control (its operator); the last removed: on the one before.
	await page.keyboard.press("Enter");
	await page.getByRole("button", { name: "Page is /, remove filter" }).waitFor({ state: "detached" });
	await expect.poll(() => focused(page)).toBe("select: Source: is, is not, contains or does not contain Google");
	await pickRow("Devices", "Chrome");
	await expect.poll(() => focused(page)).toBe("button: Browser is Chrome, remove filter");
	await page.getByRole("button", { name: "Source is Google, remove filter" }).focus();
	await page.keyboard.press("Enter");
	await page.getByRole("button", { name: "Source is Google, remove filter" }).waitFor({ state: "detached" });
	await expect.poll(() => focused(page)).toBe("select: Browser: is, is not, contains or does not contain Chrome");
	// None left: the page's heading.
	await page.keyboard.press("Tab");
	expect(await focused(page)).toBe("button: Browser is Chrome, remove filter");
	await page.keyboard.press("Enter");
	await page.getByRole("button", { name: /remove filter$/ }).waitFor({ state: "detached" });
	await expect.poll(() => focused(page)).toBe("h1: Dashboard");
	expect(new URL(page.url()).search).toBe("?period=30d");
	await page.close();
});

it("puts focus back on what made a new project key or upload token once its notice is done with", async () => {
	const { token } = await signUpOwner(stack.worker.url, "focus-notices", "10.94.0.4");
	const page = await stack.browser.newPage({ viewport: { width: 1280, height: 900 }, locale: "en-US" });
	await useSession(page, stack.worker.url, token);
	/**
	 * Presses Enter on the notice's Done, once it shows, and waits for the notice to go. The control
	 * that made it may still be disabled then, until the list it changed is read again.
	 */
	const done = async () => {
		const button = page.getByRole("button", { name: "Done", exact: true });
		await button.focus();
		await page.keyboard.press("Enter");
		await button.waitFor({ state: "detached" });
	};

	await page.goto(`${stack.worker.url}/projects`);
	await page.getByPlaceholder("Project name").fill("Shop");
	await page.getByRole("button", { name: "Create project key" }).focus();
	await page.keyboard.press("Enter");
	await page.getByTestId("raw-key").waitFor();
	await done();
	await expect.poll(() => focused(page)).toBe("button: Create project key");

	await page.goto(`${stack.worker.url}/projects/Shop`);
	await page.getByRole("button", { name: "Regenerate key…" }).focus();
	await confirmFromKeyboard(page, "Regenerate key");
	await page.getByTestId("raw-key").waitFor();
	await done();
	await expect.poll(() => focused(page)).toBe("button: Regenerate key…");

	await page.goto(`${stack.worker.url}/projects/Shop/sourcemaps`);
	await page.getByRole("button", { name: "Create upload token" }).focus();
	await page.keyboard.press("Enter");
	await page.getByTestId("upload-token").waitFor();
	await done();
	await expect.poll(() => focused(page)).toBe("button: Create upload token");
	await page.close();
});
