/**
 * Alerts by webhook against the real Worker on the local runtime: a Node HTTP server as the
 * receiver (a Slack- or Discord-like incoming webhook), an event through the log ingestion endpoint
 * that opens an issue POSTs one alert to it, as feedback an app submits does, and the owner sets
 * the webhook, turns feedback alerts off and on, sends a test and removes it on the project's page
 * in Chromium, at 1280 and 390 px.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAlertReceiver } from "./alertReceiver";
import { axeViolations } from "./axe";
import { ownerPages } from "./consolePage";
import { api, signUpOwner, workerAndBrowser } from "./stack";

const stack = workerAndBrowser();
/** Feedback as an app submits it, with the project key's raw value. */
const submitFeedback = (rawKey: string, title: string) =>
	fetch(`${stack.worker.url}/functions/v1/submit-feedback`, {
		method: "POST",
		headers: { "content-type": "application/json", authorization: `Bearer ${rawKey}` },
		body: JSON.stringify({ type: "issue", title, description: "Tapping Pay on Safari 17 does nothing" }),
	});
const { signedIn, addShopKey } = ownerPages(stack);

let receiver: Awaited<ReturnType<typeof startAlertReceiver>>;
let hookUrl = "";
/** Every alert the receiver was sent, oldest first. */
let received: Awaited<ReturnType<typeof startAlertReceiver>>["received"] = [];

beforeAll(async () => {
	receiver = await startAlertReceiver(({ path }, toThisPath, res) => {
		// An unsteady receiver fails its first two alerts, as a chat service in trouble does.
		const unsteady = path.endsWith("/unsteady") && toThisPath <= 2;
		res.writeHead(unsteady ? 503 : 200, { "content-type": "text/plain" }).end(unsteady ? "try later" : "ok");
	});
	received = receiver.received;
	hookUrl = `${receiver.url}/services/T000/B000/secret-token`;
});
afterAll(() => receiver?.close());

describe("an issue alert", () => {
	it("is POSTed once to the webhook when an event opens an issue, and not for its next event", async () => {
		const { token } = await signUpOwner(stack.worker.url, "alerts-ingest", "10.97.0.10");
		const rawKey = await addShopKey(token);
		await api(stack.worker.url, "/api/alert-webhook", { method: "PUT", token, json: { project_name: "shop", url: hookUrl } });
		const before = received.length;
		const send = () =>
			fetch(`${stack.worker.url}/api/app-logs-ingest`, {
				method: "POST",
				headers: { "content-type": "application/json", "x-svc-key": rawKey },
				body: JSON.stringify({ message: "TypeError: x is undefined", level: "error", environment: "production", release: "shop@1.0.0" }),
			});
		const first = await send();
		expect(first.status).toBe(200);
		const { group_hash } = await first.json();
		await expect.poll(() => received.length).toBe(before + 1);
		const alert = received[before];
		expect(alert.method).toBe("POST");
		expect(alert.path).toBe("/services/T000/B000/secret-token");
		expect(alert.headers["content-type"]).toBe("application/json");
		expect(alert.headers["user-agent"]).toBe("svc-alerts");
		const url = `${stack.worker.url}/issues/shop/${group_hash}`;
		expect(alert.body).toMatchObject({
			action: "created",
			project: "shop",
			issue: { group_hash, title: expect.stringContaining("TypeError: x is undefined"), level: "error", count: 1, url },
			event: { environment: "production", release: "shop@1.0.0" },
		});
		expect(alert.body.text).toMatch(/^New issue in shop: .*TypeError: x is undefined.* — </);
		expect(alert.body.content).toContain(url);

		expect((await send()).status).toBe(200);
		// The delivery is kept: once it shows, a second alert would have been sent already.
		await expect
			.poll(async () => (await api(stack.worker.url, "/api/alert-webhook?project_name=shop", { token })).webhook.last_delivery?.status)
			.toBe(200);
		await new Promise((resolve) => setTimeout(resolve, 500));
		expect(received.length).toBe(before + 1);
	});
});

describe("a feedback alert", () => {
	it("is POSTed once to the webhook when the app submits feedback, linking to its page in the console", async () => {
		const { token } = await signUpOwner(stack.worker.url, "alerts-feedback", "10.97.0.13");
		const rawKey = await addShopKey(token);
		await api(stack.worker.url, "/api/alert-webhook", { method: "PUT", token, json: { project_name: "shop", url: hookUrl } });
		const before = received.length;
		const res = await submitFeedback(rawKey, "The pay button does nothing");
		expect(res.status).toBe(200);
		const { id } = await res.json();
		await expect.poll(() => received.length).toBe(before + 1);
		const alert = received[before];
		expect([alert.method, alert.path, alert.headers["content-type"], alert.headers["user-agent"]]).toEqual(["POST", "/services/T000/B000/secret-token", "application/json", "svc-alerts"]);
		const url = `${stack.worker.url}/feedback/shop/${id}`;
		expect(alert.body).toEqual({
			action: "feedback",
			project: "shop",
			feedback: { id, type: "issue", title: "The pay button does nothing", url, created_at: expect.any(String) },
			text: `New bug report in shop: The pay button does nothing — <${url}>`,
			content: `New bug report in shop: The pay button does nothing — ${url}`,
			allowed_mentions: { parse: [] },
		});
		// Its created_at is the record's, as the owner's API reads it.
		expect((await api(stack.worker.url, `/api/feedback/${id}`, { token })).created_at).toBe(alert.body.feedback.created_at);
		await new Promise((resolve) => setTimeout(resolve, 500));
		expect(received.length).toBe(before + 1);
	});
});

describe("the Alerts card on the project's page", () => {
	it("says how many tries the last delivery took, when it took more than one", async () => {
		let rawKey = "";
		const { context, page, pageErrors } = await signedIn("alerts-card-tries", "10.97.0.14", {
			before: async (token) => {
				rawKey = await addShopKey(token);
				await api(stack.worker.url, "/api/alert-webhook", { method: "PUT", token, json: { project_name: "shop", url: `${hookUrl}/unsteady` } });
			},
		});
		expect((await submitFeedback(rawKey, "Taken on the third try")).status).toBe(200);
		// Tried again after 1 s and 4 s more; the outcome is kept after the last try.
		const session = (await page.evaluate(() => localStorage.getItem("svc.session"))) ?? "";
		const lastDelivery = async () => (await api(stack.worker.url, "/api/alert-webhook?project_name=shop", { token: session })).webhook.last_delivery;
		await expect.poll(lastDelivery, { timeout: 20_000 }).toMatchObject({ delivered: true, attempts: 3 });
		await page.goto(`${stack.worker.url}/projects/shop`);
		await page.getByRole("region", { name: "Alerts" }).getByText(/^Last delivery: 200, .* \(3 tries\)\.$/).waitFor();
		expect(pageErrors).toEqual([]);
		await context.close();
	});

	for (const viewport of [
		{ width: 1280, height: 900 },
		{ width: 390, height: 844 },
	]) {
		it(`sets the webhook, sends a test, shows the last delivery and removes it (${viewport.width} px)`, async () => {
			let rawKey = "";
			const { context, page, pageErrors } = await signedIn(`alerts-card-${viewport.width}`, `10.97.0.${viewport.width === 390 ? 12 : 11}`, {
				before: async (token) => {
					rawKey = await addShopKey(token);
				},
			});
			await page.setViewportSize(viewport);
			await page.goto(`${stack.worker.url}/projects/shop`);
			const card = page.getByRole("region", { name: "Alerts" });
			const field = card.getByRole("textbox", { name: "Webhook URL" });
			await field.fill(hookUrl);
			// Feedback alerts are on unless the owner turns them off.
			const alsoFeedback = card.getByRole("checkbox", { name: "Also for new feedback" });
			expect(await alsoFeedback.isChecked()).toBe(true);
			await card.getByRole("button", { name: "Save" }).click();
			// Masked once saved: scheme and host only, never the token, on screen or in the address bar.
			await card.getByText(/^http:\/\/127\.0\.0\.1:\d+\/…$/).waitFor();
			expect(await card.textContent()).not.toContain("secret-token");
			expect(page.url()).not.toContain("secret-token");
			await card.getByText("No alert sent yet.").waitFor();

			const before = received.length;
			await card.getByRole("button", { name: "Send test" }).click();
			await card.getByText(/^Last delivery: 200, /).waitFor();
			expect(received.length).toBe(before + 1);
			// Its issue is made up: it links to the project's issues, a page that exists.
			expect(received[before].body).toMatchObject({ action: "test", project: "shop", issue: { url: `${stack.worker.url}/issues/shop` } });
			expect(received[before].body.text).toMatch(/^Test alert in shop: /);

			expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
			expect(await axeViolations(page)).toEqual([]);

			// Feedback alerts off, saved at once: new feedback posts nothing; on again, it does.
			const session = (await page.evaluate(() => localStorage.getItem("svc.session"))) ?? "";
			const feedbackSetting = async () => (await api(stack.worker.url, "/api/alert-webhook?project_name=shop", { token: session })).webhook.feedback;
			expect(await alsoFeedback.isChecked()).toBe(true);
			expect(await feedbackSetting()).toBe(true);
			await alsoFeedback.uncheck();
			await expect.poll(feedbackSetting).toBe(false);
			const quiet = received.length;
			expect((await submitFeedback(rawKey, "Not alerted")).status).toBe(200);
			await new Promise((resolve) => setTimeout(resolve, 500));
			expect(received.length).toBe(quiet);
			await card.getByRole("button", { name: "Change" }).click();
			await card.getByRole("textbox", { name: "Webhook URL" }).waitFor();
			// The form shows the setting as it is.
			expect(await alsoFeedback.isChecked()).toBe(false);
			await card.getByRole("button", { name: "Cancel" }).click();
			await alsoFeedback.check();
			await expect.poll(feedbackSetting).toBe(true);
			expect((await submitFeedback(rawKey, "Alerted again")).status).toBe(200);
			await expect.poll(() => received.length).toBe(quiet + 1);
			expect(received[quiet].body).toMatchObject({ action: "feedback", feedback: { title: "Alerted again" } });
			// Still the webhook saved: the setting kept its last delivery.
			await card.getByText(/^Last delivery: 200, /).waitFor();

			await card.getByRole("button", { name: "Remove" }).click();
			await card.getByRole("textbox", { name: "Webhook URL" }).waitFor();
			expect((await api(stack.worker.url, "/api/alert-webhook?project_name=shop", { token: session })).webhook).toBeNull();
			expect(pageErrors).toEqual([]);
			await context.close();
		});
	}
});
