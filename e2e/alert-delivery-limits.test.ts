/**
 * An alert delivery's two bounds against the real Worker on the local runtime, through the owner's
 * test alert (which answers the delivery): a receiver that answers within 5 seconds is delivered
 * to, one that takes longer is given up on; a refusal's words are kept up to 200 characters.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ALERT_LIMITS } from "../domain/limits";
import { api, signUpOwner, startWorker } from "./stack";

let worker: Awaited<ReturnType<typeof startWorker>>;
let receiver: ReturnType<typeof createServer>;
let receiverUrl = "";
let token = "";

/** What the receiver answers is in its path: `/after/<ms>` answers 200 that late, `/refuse/<text>` answers 500 with the text. */
beforeAll(async () => {
	receiver = createServer((req, res) => {
		req.resume();
		req.on("end", () => {
			const [, what, arg = ""] = (req.url ?? "").split("/");
			if (what === "after") setTimeout(() => res.writeHead(200).end("ok"), Number(arg));
			else res.writeHead(500, { "content-type": "text/plain" }).end(decodeURIComponent(arg));
		});
	});
	await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
	receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
	worker = await startWorker();
	({ token } = await signUpOwner(worker.url, "alert-limits", "10.96.0.1"));
	await api(worker.url, "/api/feedback-key", { token, json: { project_name: "shop" } });
});

afterAll(async () => {
	// A delayed answer still waiting would hold the server open.
	receiver?.closeAllConnections();
	await new Promise<void>((resolve) => receiver.close(() => resolve()));
	await worker?.close();
});

/** Sets the webhook to `path` on the receiver and sends the test alert: the delivery it answers. */
async function testAlertTo(path: string) {
	await api(worker.url, "/api/alert-webhook", { method: "PUT", token, json: { project_name: "shop", url: receiverUrl + path } });
	return api(worker.url, "/api/alert-webhook/test", { token, json: { project_name: "shop" } });
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
});
