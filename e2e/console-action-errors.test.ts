/**
 * An action the service refuses with a 5xx (or cannot be reached for): the page undoes the change
 * it showed and says why at once, not seconds later once the reads it triggers have used up their
 * retries (one second, then two, while the service keeps failing).
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { checkoutCrash, DESKTOP, useSession } from "./consolePage";
import { api, issuesOnceThereAre, launchChromium, signUpOwner, startWorker } from "./stack";

let worker: Awaited<ReturnType<typeof startWorker>>;
let browser: Browser;
let token: string;
let issueHash: string;

beforeAll(async () => {
	[worker, browser] = await Promise.all([startWorker(), launchChromium()]);
	({ token } = await signUpOwner(worker.url, "action-errors", "10.95.0.1"));
	const { raw_api_key: key } = await api<{ raw_api_key: string }>(worker.url, "/api/feedback-key", { token, json: { project_name: "shop" } });
	await api(worker.url, "/functions/v1/submit-feedback", { token: key, json: { type: "issue", title: "Crash on save", description: "Pressing save crashes" } });
	await api(worker.url, "/api/app-logs-ingest", { token: key, json: checkoutCrash("u_1") });
	[{ group_hash: issueHash }] = await issuesOnceThereAre(expect, worker.url, token, "shop", 1);
});

afterAll(async () => {
	await browser?.close();
	await worker?.close();
});

/** A signed-in page on which every request to the API paths matching `failing` answers 500 from now on. */
async function failingFrom(path: string, failing: string): Promise<Page> {
	const page = await browser.newPage({ viewport: DESKTOP, locale: "en-US" });
	await useSession(page, worker.url, token);
	await page.goto(`${worker.url}${path}`);
	await page.waitForLoadState("networkidle");
	await page.route(failing, (route) =>
		route.fulfill({ status: 500, contentType: "application/json", body: JSON.stringify({ error: "Internal server error", request_id: "test" }) }),
	);
	return page;
}

/** Within a second: well before the first retry of a read would even start. */
const AT_ONCE = { timeout: 1_000 };

it("says at once that a feedback item's status did not change, as its select goes back", async () => {
	const page = await failingFrom("/feedback/shop", "**/api/feedback**");
	const select = page.getByRole("combobox", { name: "Status of Crash on save" });
	await select.selectOption("closed");
	await page.getByRole("alert").filter({ hasText: "Internal server error" }).first().waitFor(AT_ONCE);
	expect(await select.inputValue()).toBe("open");
	await page.close();
});

it("says at once that an issue was not resolved, and its actions can be tried again", async () => {
	const page = await failingFrom(`/issues/shop/${issueHash}`, "**/api/issues/**");
	const resolve = page.getByRole("button", { name: "Resolve" });
	await resolve.click();
	await page.getByRole("alert").filter({ hasText: "Internal server error" }).first().waitFor(AT_ONCE);
	expect(await resolve.isEnabled()).toBe(true);
	await page.close();
});
