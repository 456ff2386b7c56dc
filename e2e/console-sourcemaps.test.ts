/**
 * The console's source-map set-up in a real browser against the real Worker: the upload
 * instructions with the project's DSN id, an upload token shown once, what was uploaded, deletion
 * and revocation. A new owner with one project, signed in through the API.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type ConsoleUnderTest, openConsole, useSession } from "./consolePage";
import { api, signUpOwner } from "./stack";

const project = "web-app";
let ui: ConsoleUnderTest;
let page: Page;
let worker: ConsoleUnderTest["worker"];
let checkPage: ConsoleUnderTest["checkPage"];
let dsnId = "";
let rawKey = "";

beforeAll(async () => {
	ui = await openConsole();
	({ page, worker, checkPage } = ui);
	const { token } = await signUpOwner(worker.url, "sourcemaps", "10.97.0.1");
	const key = await api<{ dsn: string; raw_api_key: string }>(worker.url, "/api/feedback-key", { token, json: { project_name: project } });
	dsnId = key.dsn.split("/").pop() ?? "";
	rawKey = key.raw_api_key;
	await useSession(page, worker.url, token);
});

afterAll(async () => {
	await ui?.close();
});

it("sets up source maps: the upload instructions with the DSN id, an upload token shown once, the uploaded files, deletion", async () => {
	await page.goto(`${worker.url}/projects/${project}`);
	await page.getByRole("link", { name: "Source maps" }).click();
	await page.getByRole("heading", { name: `Source maps · ${project}` }).waitFor();
	await page.getByTestId("sentry-cli-setup").filter({ hasText: `SENTRY_PROJECT=${dsnId}\n` }).waitFor();
	expect(await page.getByTestId("sentry-cli-setup").textContent()).toContain(`export SENTRY_URL=${worker.url}\n`);
	await page.getByText("No upload tokens yet.").waitFor();
	await page.getByText("Nothing uploaded yet.").waitFor();

	await page.getByRole("button", { name: "Create upload token" }).click();
	const uploadToken = (await page.getByTestId("upload-token").textContent()) ?? "";
	expect(uploadToken).toMatch(/^svcu_[A-Za-z0-9]{43}$/);
	await page.getByText(`…${uploadToken.slice(-4)}`).waitFor();
	await page.getByRole("button", { name: "Done" }).click();
	expect(await page.getByTestId("upload-token").count()).toBe(0);

	const form = new FormData();
	form.append("file", new Blob([JSON.stringify({ version: 3, sources: ["app.ts"], names: [], mappings: "AAAA" })]), "~/assets/app.js.map");
	const upload = () => fetch(`${worker.url}/api/releases/web%401.0.0/artifacts`, { method: "POST", headers: { authorization: `Bearer ${uploadToken}` }, body: form });
	expect((await upload()).status).toBe(201);
	await page.reload();
	await page.getByRole("cell", { name: "~/assets/app.js.map" }).waitFor();
	await page.getByRole("cell", { name: "web@1.0.0" }).waitFor();
	await checkPage("sourcemaps");

	// An error from that release: the frame in app.js is mapped and shows where it ran; the one in
	// vendor.js has no map, and the event says so.
	const frame = (file: string, fn: string) => ({ abs_path: `https://shop.example/assets/${file}`, filename: `https://shop.example/assets/${file}`, function: fn, lineno: 1, colno: 1, in_app: true });
	const logged = await fetch(`${worker.url}/api/app-logs-ingest`, {
		method: "POST",
		headers: { "x-svc-key": rawKey, "content-type": "application/json" },
		body: JSON.stringify({ platform: "javascript", release: "web@1.0.0", exception: { type: "TypeError", value: "x is undefined", stacktrace: { frames: [frame("vendor.js", "v"), frame("app.js", "a")] } } }),
	});
	expect(logged.status).toBe(200);
	await page.goto(`${worker.url}/issues/${project}`);
	await page.getByRole("link", { name: /TypeError: x is undefined/ }).click();
	await page.getByText("1 of 2 frames mapped to the original code.").waitFor();
	expect(await page.getByRole("note").textContent()).toContain("vendor.js");
	expect(await page.getByText("mapped from a (https://shop.example/assets/app.js:1:1)").isVisible()).toBe(true);
	await checkPage("issue-symbolicated");
	await page.goto(`${worker.url}/projects/${project}`);
	await page.getByRole("link", { name: "Source maps" }).click();
	await page.getByRole("cell", { name: "web@1.0.0" }).waitFor();

	await page.getByRole("button", { name: "Delete release web@1.0.0…" }).click();
	await page.getByRole("button", { name: "Delete release", exact: true }).click();
	await page.getByText("Nothing uploaded yet.").waitFor();
	await page.getByRole("button", { name: "Revoke…" }).click();
	await page.getByRole("button", { name: "Revoke token" }).click();
	await page.getByText("No upload tokens yet.").waitFor();
	expect((await upload()).status).toBe(401);
});

