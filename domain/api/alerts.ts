/** Issue and feedback alerts by webhook (docs/api.md#alerts-owner). Dependency-free: the console bundles it. */
import type { FeedbackType } from "../feedback/typesAndStatuses";

/** What an issue alert is about: an issue opened, a resolved one regressed, an ignored one came back or escalated; or the owner's test. */
export type IssueAlertAction = "created" | "regressed" | "unignored" | "escalating" | "test";

/** How the last alert sent went: the receiver's status, or why there was none (a network error, the 5 s timeout). */
export interface AlertDeliveryView {
	at: string;
	delivered: boolean;
	status: number | null;
	/** Why it was not delivered, at most 200 characters; null when the receiver answered 2xx. */
	error: string | null;
	/** How many times it was sent: more than one when a try failed in a way that may pass later (no answer, 429, 5xx). */
	attempts: number;
}

/** A project's webhook as its owner reads it: the URL they set (a secret: only ever shown to them). */
export interface AlertWebhookView {
	url: string;
	created_at: string;
	last_delivery: AlertDeliveryView | null;
	/** Alerts not sent since the webhook was set because the project's hourly bound was reached. */
	suppressed: number;
	/** Whether new feedback (bug reports, feature requests) is alerted too, besides issues. */
	feedback: boolean;
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

/** What every alert carries for chat apps: `text` is what Slack and Mattermost show, `content` what Discord shows. */
interface AlertLines {
	text: string;
	content: string;
	/** Discord: no `@everyone` or role in an error message or a user's words pings anyone. */
	allowed_mentions: { parse: never[] };
}

/** The JSON body an issue alert POSTs to the webhook. */
export interface IssueAlertPayload extends AlertLines {
	action: IssueAlertAction;
	project: string;
	issue: {
		group_hash: string;
		/** Its short id (`SHOP-1A`, docs/api.md#short-ids); null in a test alert. */
		short_id: string | null;
		title: string;
		culprit: string | null;
		level: string;
		count: number;
		first_seen: string;
		last_seen: string;
		url: string;
	};
	event: { event_id: string | null; environment: string | null; release: string | null; timestamp: string | null };
}

/** The JSON body a feedback alert POSTs to the webhook: new feedback the project's app submitted. */
export interface FeedbackAlertPayload extends AlertLines {
	action: "feedback";
	project: string;
	/** `title`: the record's `title` field, "(no title)" without one; `url`: its console page. */
	feedback: { id: string; type: FeedbackType; title: string; url: string; created_at: string };
}

/** The JSON body POSTed to the webhook: `action` says which. */
export type AlertPayload = IssueAlertPayload | FeedbackAlertPayload;
