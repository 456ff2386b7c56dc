/** Issue alerts by webhook (docs/api.md#alerts-owner). Dependency-free: the console bundles it. */

/** What an alert is about: an issue opened, a resolved one regressed, an ignored one came back or escalated; or the owner's test. */
export type AlertAction = "created" | "regressed" | "unignored" | "escalating" | "test";

/** How the last alert sent went: the receiver's status, or why there was none (a network error, the 5 s timeout). */
export interface AlertDeliveryView {
	at: string;
	delivered: boolean;
	status: number | null;
	/** Why it was not delivered, at most 200 characters; null when the receiver answered 2xx. */
	error: string | null;
}

/** A project's webhook as its owner reads it: the URL they set (a secret: only ever shown to them). */
export interface AlertWebhookView {
	url: string;
	created_at: string;
	last_delivery: AlertDeliveryView | null;
	/** Alerts not sent since the webhook was set because the project's hourly bound was reached. */
	suppressed: number;
}

/** GET /api/alert-webhook: the webhook, or null when none is set. */
export interface AlertWebhookAnswer {
	webhook: AlertWebhookView | null;
}

/** POST /api/alert-webhook/test: the receiver's answer (delivered false is still a 200 of ours). */
export interface AlertTestView {
	delivered: boolean;
	status: number | null;
	error?: string;
}

/** The JSON body POSTed to the webhook. `text` is what Slack and Mattermost show, `content` what Discord shows. */
export interface AlertPayload {
	action: AlertAction;
	project: string;
	issue: {
		group_hash: string;
		title: string;
		culprit: string | null;
		level: string;
		count: number;
		first_seen: string;
		last_seen: string;
		url: string;
	};
	event: { event_id: string | null; environment: string | null; release: string | null; timestamp: string | null };
	text: string;
	content: string;
	/** Discord: no `@everyone` or role in an error message pings anyone. */
	allowed_mentions: { parse: never[] };
}
