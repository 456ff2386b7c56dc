import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, it } from "vitest";
import { api, launchChromium, startWorker } from "./stack";

const PNG_1PX =
	"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

let worker: Awaited<ReturnType<typeof startWorker>>;
let browser: Browser;
let page: Page;

beforeAll(async () => {
	[worker, browser] = await Promise.all([startWorker(), launchChromium()]);
	page = await browser.newPage();
});

afterAll(async () => {
	await browser?.close();
	await worker?.close();
});

describe("owner console", () => {
	const email = `console-${Date.now()}@example.com`;
	let rawKey = "";

	it("signs up and lands on an empty projects page", async ({ expect }) => {
		await page.goto(`${worker.url}/`);
		await page.getByRole("button", { name: /No account yet/ }).click();
		await page.getByLabel("Email").fill(email);
		await page.getByLabel("Password").fill("correct horse battery");
		await page.getByRole("button", { name: "Create account" }).click();
		await page.getByRole("heading", { name: "Projects" }).waitFor();
		await page.getByText("No projects yet").waitFor();
		expect(await page.getByText(/trial until/).isVisible()).toBe(true);
	});

	it("refuses a wrong password with the server's message", async ({ expect }) => {
		const other = await browser.newPage();
		await other.goto(`${worker.url}/`);
		await other.getByLabel("Email").fill(email);
		await other.getByLabel("Password").fill("wrong password!");
		await other.getByRole("button", { name: "Sign in" }).click();
		expect(await other.getByRole("alert").textContent()).toBe("Wrong email or password");
		await other.close();
	});

	it("creates a project key and shows the raw key and its Sentry DSN once", async ({ expect }) => {
		await page.getByPlaceholder("Project name").fill("web-app");
		await page.getByRole("button", { name: "Create project key" }).click();
		rawKey = (await page.getByTestId("raw-key").textContent()) ?? "";
		expect(rawKey).toMatch(/^svc_[A-Za-z0-9]{43}$/);
		const dsn = (await page.getByTestId("dsn").textContent()) ?? "";
		const dsnId = dsn.split("/").pop();
		expect(dsn).toBe(`${worker.url.replace("//", `//${rawKey}@`)}/${dsnId}`);
		await page.getByRole("cell", { name: `…${rawKey.slice(-4)}` }).waitFor();
		await page.getByRole("button", { name: "Done" }).click();
		expect(await page.getByTestId("raw-key").count()).toBe(0);
		// A reload shows the hint, and the DSN with the key left out.
		await page.reload();
		await page.getByRole("link", { name: "web-app" }).waitFor();
		expect(await page.content()).not.toContain(rawKey);
		await page.getByRole("cell", { name: `${worker.url.replace("//", "//{PROJECT_KEY}@")}/${dsnId}` }).waitFor();
	});

	it("shows submitted feedback with its screenshot, and triages it", async ({ expect }) => {
		for (const [title, type] of [["Crash on save", "issue"], ["Dark mode", "feature_request"]]) {
			const res = await fetch(`${worker.url}/functions/v1/submit-feedback`, {
				method: "POST",
				headers: { authorization: `Bearer ${rawKey}`, "content-type": "application/json" },
				body: JSON.stringify({ type, title, description: "details", screenshots: [PNG_1PX], app_version: "1.2.3" }),
			});
			expect(res.status).toBe(200);
		}

		await page.getByRole("link", { name: "web-app" }).click();
		await page.getByText("Crash on save").waitFor();
		expect(await page.getByText("Dark mode").isVisible()).toBe(true);
		expect(await page.getByText("1.2.3").first().isVisible()).toBe(true);
		const image = page.getByRole("img", { name: "screenshots of Crash on save" });
		await image.waitFor();
		expect(await image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);

		await page.getByLabel("Type").selectOption("feature_request");
		await page.getByText("Crash on save").waitFor({ state: "detached" });
		expect(await page.getByText("Dark mode").isVisible()).toBe(true);
		await page.getByLabel("Type").selectOption("");

		const crash = page.locator("li", { hasText: "Crash on save" });
		await crash.getByLabel("Status").selectOption("in_progress");
		const token = await page.evaluate(() => localStorage.getItem("svc.session"));
		await expect
			.poll(async () => (await api(worker.url, "/api/feedback?project_name=web-app&status=in_progress", { token: token! })).feedback.length)
			.toBe(1);

		page.once("dialog", (dialog) => dialog.accept());
		await page.getByLabel("Select Dark mode").check();
		await page.getByRole("button", { name: "Delete" }).click();
		await page.getByText("Dark mode").waitFor({ state: "detached" });
		const left = (await api(worker.url, "/api/feedback?project_name=web-app", { token: token! })).feedback;
		expect(left.map((f: { data: { title: string } }) => f.data.title)).toEqual(["Crash on save"]);
	});

	it("sets up source maps: the upload instructions with the DSN id, an upload token shown once, the uploaded files, deletion", async ({ expect }) => {
		await page.goto(`${worker.url}/`);
		await page.getByRole("link", { name: "source maps" }).click();
		await page.getByRole("heading", { name: "Source maps · web-app" }).waitFor();
		// The DSN id comes with the project's key, a moment after the page.
		await page.getByTestId("sentry-cli-setup").filter({ hasText: /SENTRY_PROJECT=\d+/ }).waitFor();
		const setUp = (await page.getByTestId("sentry-cli-setup").textContent()) ?? "";
		expect(setUp).toContain(`export SENTRY_URL=${worker.url}`);
		expect(setUp).toMatch(/export SENTRY_PROJECT=\d+\n/);
		await page.getByText("No upload tokens yet.").waitFor();
		await page.getByText("Nothing uploaded yet.").waitFor();

		await page.getByRole("button", { name: "Create upload token" }).click();
		const token = (await page.getByTestId("upload-token").textContent()) ?? "";
		expect(token).toMatch(/^svcu_[A-Za-z0-9]{43}$/);
		await page.getByText(`…${token.slice(-4)}`).waitFor();
		await page.getByRole("button", { name: "Done" }).click();
		expect(await page.getByTestId("upload-token").count()).toBe(0);

		const form = new FormData();
		form.append("file", new Blob([JSON.stringify({ version: 3, sources: ["app.ts"], names: [], mappings: "AAAA" })]), "~/assets/app.js.map");
		const uploaded = await fetch(`${worker.url}/api/releases/web%401.0.0/artifacts`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form });
		expect(uploaded.status).toBe(201);
		await page.reload();
		await page.getByRole("cell", { name: "~/assets/app.js.map" }).waitFor();
		await page.getByRole("cell", { name: "web@1.0.0" }).waitFor();

		page.once("dialog", (dialog) => dialog.accept());
		await page.getByRole("button", { name: "Delete release web@1.0.0" }).click();
		await page.getByText("Nothing uploaded yet.").waitFor();
		page.once("dialog", (dialog) => dialog.accept());
		await page.getByRole("button", { name: "Revoke" }).click();
		await page.getByText("No upload tokens yet.").waitFor();
		const refused = await fetch(`${worker.url}/api/releases/web%401.0.0/artifacts`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form });
		expect(refused.status).toBe(401);
		await page.goto(`${worker.url}/projects/web-app/feedback`);
	});

	it("keeps the session across reloads and signs out", async ({ expect }) => {
		await page.reload();
		await page.getByText("Crash on save").waitFor();
		await page.getByRole("button", { name: "Sign out" }).click();
		await page.getByRole("heading", { name: "Sign in to svc" }).waitFor();
		expect(await page.evaluate(() => localStorage.getItem("svc.session"))).toBeNull();
	});
});
