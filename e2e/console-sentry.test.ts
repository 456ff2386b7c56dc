/**
 * What Sentry SDKs send, in the console: user feedback (the feedback widget, `Sentry.captureFeedback`)
 * with its own fields in words, its page a link, and the error event it was given for one click from
 * the issue that holds it, as Sentry links a feedback to its event, and listed on that issue's page;
 * and an event that lost a member
 * of the wrong shape to keep the rest, which says so as Sentry lists its processing errors.
 */
import { expect, it } from "vitest";
import { DESKTOP, useSession } from "./consolePage";
import { api, signUpOwner, workerAndBrowser } from "./stack";

const stack = workerAndBrowser();

/** Posts one envelope item of `type` through the key's DSN, as a browser SDK does. */
async function envelope(dsn: string, type: string, payload: Record<string, unknown>) {
	const { username: key, pathname } = new URL(dsn);
	const body = `${JSON.stringify({ event_id: payload.event_id })}\n${JSON.stringify({ type })}\n${JSON.stringify(payload)}\n`;
	const res = await fetch(`${stack.worker.url}/api${pathname}/envelope/?sentry_key=${key}`, { method: "POST", headers: { "content-type": "text/plain" }, body });
	expect(res.status, await res.clone().text()).toBe(200);
}

it("links the event a Sentry user feedback was given for to that event in its issue, and its page to the page", async () => {
	const { token } = await signUpOwner(stack.worker.url, "sentry-feedback", "10.93.0.1");
	const { dsn } = await api<{ dsn: string }>(stack.worker.url, "/api/feedback-key", { token, json: { project_name: "shop" } });
	const crashId = "bdd79b8dfc8346c6b3fcbcdd89285968";
	await envelope(dsn, "event", { event_id: crashId, level: "error", platform: "javascript", exception: { values: [{ type: "TypeError", value: "price is undefined" }] } });
	// A second event of the same issue, newer: the link must open the one the feedback names, not the newest.
	await envelope(dsn, "event", { event_id: "c".repeat(32), level: "error", platform: "javascript", exception: { values: [{ type: "TypeError", value: "price is undefined" }] } });
	await envelope(dsn, "feedback", {
		event_id: "a".repeat(32),
		platform: "javascript",
		contexts: { feedback: { message: "The pay button froze", contact_email: "una@example.com", name: "Una", url: "https://shop.example/checkout", associated_event_id: crashId } },
	});
	// Resolved meanwhile: the link still finds the issue.
	const { issues } = await api<{ issues: { group_hash: string }[] }>(stack.worker.url, "/api/issues?project_name=shop", { token });
	await api(stack.worker.url, `/api/issues/${issues[0].group_hash}`, { token, method: "PATCH", json: { project_name: "shop", status: "resolved" } });

	const page = await stack.browser.newPage({ viewport: DESKTOP, locale: "en-US" });
	const pageErrors: string[] = [];
	page.on("pageerror", (error) => pageErrors.push(error.message));
	await useSession(page, stack.worker.url, token);
	await page.goto(`${stack.worker.url}/feedback/shop`);
	await page.getByRole("link", { name: "The pay button froze" }).click();
	const fields = page.locator("dl.fields");
	await fields.waitFor();
	expect(await fields.locator("dt").allTextContents()).toEqual(["Title", "Description", "Email", "Name", "Page", "Error event"]);
	expect(await fields.getByRole("link", { name: "https://shop.example/checkout" }).getAttribute("href")).toBe("https://shop.example/checkout");

	await fields.getByRole("link", { name: "Open its issue" }).click();
	await page.getByRole("link", { name: "TypeError: price is undefined" }).click();
	await expect.poll(() => page.locator("#event-heading").textContent()).toContain(`ID ${crashId}`);
	// And the other way, as Sentry's User Feedback: the issue lists what was said about its events.
	const userFeedback = page.getByTestId("issue-feedback");
	await userFeedback.waitFor();
	expect(await userFeedback.getByRole("listitem").count()).toBe(1);
	expect(await userFeedback.getByRole("listitem").textContent()).toMatch(/^The pay button froze\s*Open\s*.+about its event$/);
	await userFeedback.getByRole("link", { name: "The pay button froze" }).click();
	await expect.poll(() => fields.locator("dd").first().textContent()).toBe("The pay button froze");
	expect(pageErrors).toEqual([]);
	await page.close();
});

it("shows what an event lost to keep the rest: the members of the wrong shape, dropped, as Sentry lists its processing errors", async () => {
	const { token } = await signUpOwner(stack.worker.url, "sentry-dropped", "10.93.0.2");
	const { dsn } = await api<{ dsn: string }>(stack.worker.url, "/api/feedback-key", { token, json: { project_name: "shop" } });
	const exception = { values: [{ type: "TypeError", value: "cart is undefined" }] };
	await envelope(dsn, "event", { event_id: "d".repeat(32), level: "error", platform: "javascript", exception, fingerprint: "checkout", user: "bob" });
	await envelope(dsn, "event", { event_id: "e".repeat(32), level: "error", platform: "javascript", exception });
	const { issues } = await api<{ issues: { group_hash: string }[] }>(stack.worker.url, "/api/issues?project_name=shop", { token });
	expect(issues).toHaveLength(1);

	const page = await stack.browser.newPage({ viewport: DESKTOP, locale: "en-US" });
	const pageErrors: string[] = [];
	page.on("pageerror", (error) => pageErrors.push(error.message));
	await useSession(page, stack.worker.url, token);
	// The newest event was whole: nothing to say.
	await page.goto(`${stack.worker.url}/issues/shop/${issues[0].group_hash}`);
	await page.locator("#exception-heading").waitFor();
	const note = page.getByRole("note", { name: "Problems processing this event" });
	expect(await note.count()).toBe(0);
	await page.goto(`${stack.worker.url}/issues/shop/${issues[0].group_hash}?event=${"d".repeat(32)}`);
	await note.waitFor();
	expect(await note.locator("p").textContent()).toBe("There were 2 problems processing this event: what the SDK sent there was dropped, the rest kept.");
	expect(await note.locator("li").allTextContents()).toEqual(["user must be an object", "fingerprint must be an array"]);
	expect(pageErrors).toEqual([]);
	await page.close();
});
