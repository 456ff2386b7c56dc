/**
 * An alert's delivery against the real Worker on the local runtime and a real receiver: through the
 * owner's test alert (which answers the delivery, tried once), a receiver that answers within 5
 * seconds is delivered to, one that takes longer is given up on, and a refusal's words are kept up
 * to 200 characters; an alert of new feedback is sent again while the receiver fails in a way that
 * may pass (503), and not when it refuses (404).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALERT_LIMITS } from "../domain/limits";
import { startAlertReceiver } from "./alertReceiver";
import { api, signUpOwner, startWorker } from "./stack";

let worker: Awaited<ReturnType<typeof startWorker>>;
let receiver: Awaited<ReturnType<typeof startAlertReceiver>>;
let token = "";
let rawKey = "";

/**
 * What the receiver answers is in its path: `/after/<ms>` 200 that late, `/refuse/<text>` 500 with
 * the text, `/fail/<status>/<n>/<name>` that status the first n times, then 200.
 */
beforeAll(async () => {
	receiver = await startAlertReceiver(({ path }, toThisPath, res) => {
		const [, what, arg = "", times = "0"] = path.split("/");
		if (what === "after") setTimeout(() => res.writeHead(200).end("ok"), Number(arg));
		else if (what === "fail") res.writeHead(toThisPath <= Number(times) ? Number(arg) : 200).end("not now");
		else res.writeHead(500, { "content-type": "text/plain" }).end(decodeURIComponent(arg));
	});
	worker = await startWorker();
	({ token } = await signUpOwner(worker.url, "alert-limits", "10.96.0.1"));
	({ raw_api_key: rawKey } = await api(worker.url, "/api/feedback-key", { token, json: { project_name: "shop" } }));
});

afterAll(async () => {
	await receiver?.close();
	await worker?.close();
});

const setWebhook = (path: string) => api(worker.url, "/api/alert-webhook", { method: "PUT", token, json: { project_name: "shop", url: receiver.url + path } });

/** Sets the webhook to `path` on the receiver and sends the test alert: the delivery it answers. */
async function testAlertTo(path: string) {
	await setWebhook(path);
	return api(worker.url, "/api/alert-webhook/test", { token, json: { project_name: "shop" } });
}

/** Sets the webhook to `path`, submits feedback, and answers the delivery kept once its alert has been tried (up to 20 s). */
async function feedbackAlertTo(path: string) {
	await setWebhook(path);
	await api(worker.url, "/functions/v1/submit-feedback", { token: rawKey, json: { type: "issue", title: `Crash ${path}`, description: "On save" } });
	const lastDelivery = async () => (await api(worker.url, "/api/alert-webhook?project_name=shop", { token })).webhook.last_delivery;
	await expect.poll(lastDelivery, { timeout: 20_000, interval: 100 }).not.toBeNull();
	return lastDelivery();
}

// A second each side of the bound: the machines these run on are shared, and a timer is not exact.
it("delivers to a receiver that answers within 5 seconds, and gives up on one that takes longer", { timeout: 30_000 }, async () => {
	expect(ALERT_LIMITS.timeoutMs).toBe(5_000);
	expect(await testAlertTo(`/after/${ALERT_LIMITS.timeoutMs - 1_000}`)).toMatchObject({ delivered: true, status: 200 });
	expect(await testAlertTo(`/after/${ALERT_LIMITS.timeoutMs + 1_000}`)).toMatchObject({
		delivered: false,
		status: null,
		error: "No answer within 5 seconds",
	});
});

it("keeps a refusal's words up to 200 characters: whole at 200, cut at 201", async () => {
	const start = "The receiver answered 500: ";
	const words = (n: number) => "x".repeat(n - start.length);
	expect(await testAlertTo(`/refuse/${words(ALERT_LIMITS.errorChars)}`)).toMatchObject({ delivered: false, status: 500, error: start + words(200) });
	expect(await testAlertTo(`/refuse/${words(ALERT_LIMITS.errorChars + 1)}`)).toMatchObject({ delivered: false, status: 500, error: start + words(200) });
	// As the owner reads it back: the same, kept in the key's object.
	const { webhook } = await api(worker.url, "/api/alert-webhook?project_name=shop", { token });
	expect(webhook.last_delivery.error).toBe(start + words(200));
	// Words of two bytes a character, their 200th byte inside one: whole characters, no U+FFFD.
	const accented = `x${"é".repeat(150)}`;
	expect(await testAlertTo(`/refuse/${encodeURIComponent(accented)}`)).toMatchObject({ delivered: false, status: 500, error: start + accented });
});

describe("an alert the receiver fails", () => {
	it("is sent again after 1 and 4 seconds while the receiver answers 503, and kept as delivered once it takes it", { timeout: 40_000 }, async () => {
		const path = "/fail/503/2/twice";
		expect(await feedbackAlertTo(path)).toMatchObject({ delivered: true, status: 200, error: null, attempts: 3 });
		const sent = receiver.to(path);
		expect(sent).toHaveLength(3);
		// The same alert each time, the second a second after the first, the third four more after it
		// (less 100 ms: the first try's connection may take longer than the next one's).
		expect(new Set(sent.map((alert) => alert.text)).size).toBe(1);
		const [first, second] = ALERT_LIMITS.retryWaitsMs;
		expect(sent[1].at - sent[0].at).toBeGreaterThanOrEqual(first - 100);
		expect(sent[1].at - sent[0].at).toBeLessThan(second);
		expect(sent[2].at - sent[1].at).toBeGreaterThanOrEqual(second - 100);
		expect(sent[0].body).toMatchObject({ action: "feedback", feedback: { title: `Crash ${path}` } });
	});

	it("is given up on after three tries when the receiver keeps failing", { timeout: 40_000 }, async () => {
		const path = "/fail/503/9/always";
		expect(await feedbackAlertTo(path)).toMatchObject({ delivered: false, status: 503, error: "The receiver answered 503: not now", attempts: 3 });
		expect(receiver.to(path)).toHaveLength(3);
	});

	it("is not sent again when the receiver refuses it (404: a removed webhook)", async () => {
		const path = "/fail/404/9/gone";
		expect(await feedbackAlertTo(path)).toMatchObject({ delivered: false, status: 404, attempts: 1 });
		// Past the first wait: still one.
		await new Promise((resolve) => setTimeout(resolve, 1_500));
		expect(receiver.to(path)).toHaveLength(1);
	});

	it("is tried once when it is the owner's test, whatever the receiver answers", async () => {
		const path = "/fail/503/9/test";
		expect(await testAlertTo(path)).toMatchObject({ delivered: false, status: 503 });
		await new Promise((resolve) => setTimeout(resolve, 1_500));
		expect(receiver.to(path)).toHaveLength(1);
	});
});
