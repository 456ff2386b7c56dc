/**
 * Sends an alert (an issue's or new feedback's) to its webhook and keeps how it went in the key's
 * object. Ingestion sends its alerts after answering (`sendAlertLater`), so a slow or failing
 * receiver never delays or fails an event or a submission; the owner's test waits for the answer. The URL is a secret: never logged, and
 * taken out of an error's text before it is kept.
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
		return value ? new TextDecoder().decode(value.slice(0, ALERT_LIMITS.errorChars)).trim() : "";
	} finally {
		await reader.cancel().catch(() => {});
	}
}

function failure(err: unknown, url: string): string {
	if (err instanceof Error && err.name === "TimeoutError") return `No answer within ${ALERT_LIMITS.timeoutMs / 1000} seconds`;
	const text = err instanceof Error ? err.message : String(err);
	return cutText(text.split(url).join("<webhook>") || "The request failed", ALERT_LIMITS.errorChars);
}

/** POSTs the alert (5 s at most, redirects not followed), keeps the outcome in the key's object, and answers it. */
export async function deliverAlert(env: Env, keyId: string, { url, payload }: DueAlert): Promise<AlertDeliveryView> {
	const at = new Date().toISOString();
	let delivery: AlertDeliveryView;
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
		delivery = { at, delivered: response.ok, status: response.status, error };
	} catch (err) {
		delivery = { at, delivered: false, status: null, error: failure(err, url) };
	}
	await projectCollectorFor(env, keyId).noteAlertDelivery(url, delivery);
	return delivery;
}

/** Sends the alert once the request has been answered; its failure is kept as its outcome, never the request's. */
export function sendAlertLater(env: Env, ctx: ExecutionContext, keyId: string, alert: DueAlert): void {
	ctx.waitUntil(deliverAlert(env, keyId, alert).catch((err) => console.error("an alert's outcome was not kept:", String(err))));
}
