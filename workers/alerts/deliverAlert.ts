/**
 * Sends an alert (an issue's or new feedback's) to its webhook and keeps how it went in the key's
 * object. Ingestion sends its alerts after answering (`sendAlertLater`), so a slow or failing
 * receiver never delays or fails an event or a submission; the owner's test waits for the answer.
 * The URL is a secret: never logged, and taken out of an error's text before it is kept.
 */
import type { DueAlert } from "../../durable-objects/projectAlerts";
import type { AlertDeliveryView } from "../../domain/api/alerts";
import { ALERT_LIMITS } from "../../domain/limits";
import { cutText } from "../../domain/text";
import { projectCollectorFor } from "../objects";

/** The start of a receiver's refusal (Slack's `invalid_token`, Discord's JSON), kept to say why. */
async function firstWords(response: Response): Promise<string> {
	const reader = response.body?.getReader();
	if (!reader) return "";
	try {
		const { value } = await reader.read();
		// Decoded as a stream, a character the chunk ends inside of is held back, not turned into U+FFFD.
		return value ? cutText(new TextDecoder().decode(value, { stream: true }), ALERT_LIMITS.errorChars).trim() : "";
	} finally {
		await reader.cancel().catch(() => {});
	}
}

function failure(err: unknown, url: string): string {
	if (err instanceof Error && err.name === "TimeoutError") return `No answer within ${ALERT_LIMITS.timeoutMs / 1000} seconds`;
	const text = err instanceof Error ? err.message : String(err);
	return cutText(text.split(url).join("<webhook>") || "The request failed", ALERT_LIMITS.errorChars);
}

/** One try: how the receiver answered, `at` when it was sent. */
type Try = Omit<AlertDeliveryView, "attempts">;

async function sendOnce(url: string, payload: DueAlert["payload"]): Promise<Try> {
	const at = new Date().toISOString();
	try {
		const response = await fetch(url, {
			method: "POST",
			headers: { "content-type": "application/json", "user-agent": "svc-alerts" },
			body: JSON.stringify(payload),
			redirect: "manual",
			signal: AbortSignal.timeout(ALERT_LIMITS.timeoutMs),
		});
		const words = response.ok ? "" : await firstWords(response).catch(() => "");
		if (response.ok) await response.body?.cancel();
		const error = response.ok ? null : cutText(`The receiver answered ${response.status}${words ? `: ${words}` : ""}`, ALERT_LIMITS.errorChars);
		return { at, delivered: response.ok, status: response.status, error };
	} catch (err) {
		return { at, delivered: false, status: null, error: failure(err, url) };
	}
}

/**
 * A failure that may pass on a later try: no answer, too many requests, the receiver's own error.
 * Any other refusal (a revoked token's 403, a removed webhook's 404) will be the same next time.
 */
const mayPassLater = ({ delivered, status }: Try) => !delivered && (status === null || status === 429 || status >= 500);

/**
 * POSTs the alert (5 s at most, redirects not followed), again after each of `retryWaitsMs` while
 * it fails in a way that may pass later; keeps the last try's outcome in the key's object, and
 * answers it.
 */
export async function deliverAlert(env: Env, keyId: string, { url, payload }: DueAlert, retryWaitsMs: readonly number[] = []): Promise<AlertDeliveryView> {
	let tried = await sendOnce(url, payload);
	let attempts = 1;
	for (const wait of retryWaitsMs) {
		if (!mayPassLater(tried)) break;
		await scheduler.wait(wait);
		tried = await sendOnce(url, payload);
		attempts++;
	}
	const delivery = { ...tried, attempts };
	await projectCollectorFor(env, keyId).noteAlertDelivery(url, delivery);
	return delivery;
}

/** Sends the alert once the request has been answered, tried again as ALERT_LIMITS.retryWaitsMs says; its failure is kept as its outcome, never the request's. */
export function sendAlertLater(env: Env, ctx: ExecutionContext, keyId: string, alert: DueAlert): void {
	ctx.waitUntil(deliverAlert(env, keyId, alert, ALERT_LIMITS.retryWaitsMs).catch((err) => console.error("an alert's outcome was not kept:", String(err))));
}
