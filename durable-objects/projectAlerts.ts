/**
 * A project key's alerts by webhook, kept in its ProjectCollector so that deciding one costs
 * ingestion nothing: the webhook (its URL is a secret, `feedback` whether new feedback is alerted
 * too), the alerts sent in the last hour and the last delivery's outcome. An issue alert is due
 * when an event opens an issue, reopens a resolved one or ends an ignore (what IssueGroups.record
 * notes in the issue's activity), bounded to one per issue and action per ALERT_LIMITS.perIssueMs;
 * a feedback alert when feedback is accepted. Both count in ALERT_LIMITS.perHour per project; the
 * Worker sends them after answering.
 */
import type {
	AlertDeliveryView,
	AlertPayload,
	AlertWebhookView,
	FeedbackAlertPayload,
	IssueAlertAction,
	IssueAlertPayload,
} from "../domain/api/alerts";
import type { IssueActivity } from "../domain/api/issues";
import { type AlertFeedback, feedbackAlertPayload, issueAlertPayload } from "../domain/logs/alertPayload";
import { ALERT_LIMITS } from "../domain/limits";
import { cutText } from "../domain/text";
import type { LogEventCommand } from "./projectCommands";
import type { IssueGroups } from "./projectStorage";

const HOUR_MS = 3_600_000;

export const ALERT_SCHEMA = [
	// At most one row: the webhook, the origin of the console its alerts link to, how the last alert sent went, and whether feedback is alerted.
	`CREATE TABLE IF NOT EXISTS alert_webhook (id INTEGER PRIMARY KEY CHECK (id = 1), url TEXT NOT NULL, console_origin TEXT NOT NULL,
		created_at INTEGER NOT NULL, last_delivery TEXT, suppressed INTEGER NOT NULL DEFAULT 0, feedback INTEGER NOT NULL DEFAULT 1)`,
	// The alerts sent in the last hour (older rows go as alerts are sent): at most ALERT_LIMITS.perHour rows.
	`CREATE TABLE IF NOT EXISTS alerts_sent (hash TEXT NOT NULL, action TEXT NOT NULL, at INTEGER NOT NULL)`,
];

/** An alert due: where to send it and what. */
export interface DueAlert<Payload extends AlertPayload = AlertPayload> {
	url: string;
	payload: Payload;
}

/** The action of the alert an event raises: opening its issue, or what it did to its status (the activity it noted). */
export function alertActionOf(isNew: boolean, reopened: IssueActivity | null): IssueAlertAction | null {
	if (isNew) return "created";
	switch (reopened?.kind) {
		case "regressed":
			return "regressed";
		case "ignore_ended":
			return "unignored";
		case "escalated":
			return "escalating";
		default:
			return null;
	}
}

type WebhookRow = { url: string; console_origin: string; created_at: number; last_delivery: string | null; suppressed: number; feedback: number };
/** What deciding an alert reads of the webhook. */
type AlertTarget = Pick<WebhookRow, "url" | "console_origin" | "feedback">;

export class ProjectAlerts {
	readonly #sql: SqlStorage;
	readonly #groups: IssueGroups;
	/**
	 * The webhook's row as deciding an alert reads it, held from the first read on and changed only
	 * by `set`: most projects have none, and their feedback and new issues then read nothing.
	 */
	#target: AlertTarget | null | undefined;

	constructor(sql: SqlStorage, groups: IssueGroups) {
		this.#sql = sql;
		this.#groups = groups;
	}

	#row(): WebhookRow | null {
		return this.#sql.exec<WebhookRow>(`SELECT url, console_origin, created_at, last_delivery, suppressed, feedback FROM alert_webhook`).toArray()[0] ?? null;
	}

	#alertTarget(): AlertTarget | null {
		if (this.#target === undefined) {
			const row = this.#row();
			this.#target = row && { url: row.url, console_origin: row.console_origin, feedback: row.feedback };
		}
		return this.#target;
	}

	/** The webhook as its owner reads it; null when none is set. */
	webhook(): AlertWebhookView | null {
		const row = this.#row();
		if (!row) return null;
		// Deliveries kept before alerts were tried again have no `attempts`: they were tried once.
		const kept = row.last_delivery === null ? null : (JSON.parse(row.last_delivery) as Omit<AlertDeliveryView, "attempts"> & { attempts?: number });
		const lastDelivery = kept && { ...kept, attempts: kept.attempts ?? 1 };
		return {
			url: row.url,
			created_at: new Date(row.created_at).toISOString(),
			last_delivery: lastDelivery,
			suppressed: row.suppressed,
			feedback: row.feedback === 1,
		};
	}

	/**
	 * Sets the webhook (null removes it); a new URL starts with no delivery and nothing suppressed,
	 * the same URL keeps them. `feedback` left out is on for a first webhook and kept for a change.
	 */
	set(url: string | null, consoleOrigin: string, now: number, feedback?: boolean): void {
		// Read again at the next alert, whatever this change comes to.
		this.#target = undefined;
		if (url === null) {
			this.#remove();
			return;
		}
		const row = this.#row();
		const alertsFeedback = (feedback ?? (row ? row.feedback === 1 : true)) ? 1 : 0;
		if (row?.url === url) this.#sql.exec(`UPDATE alert_webhook SET console_origin = ?, feedback = ?`, consoleOrigin, alertsFeedback);
		else {
			this.#sql.exec(
				`INSERT OR REPLACE INTO alert_webhook (id, url, console_origin, created_at, feedback) VALUES (1, ?, ?, ?, ?)`,
				url,
				consoleOrigin,
				now,
				alertsFeedback,
			);
		}
	}

	/** Removes the webhook, and what its bounds noted. */
	#remove(): void {
		this.#sql.exec(`DELETE FROM alert_webhook`);
		this.#sql.exec(`DELETE FROM alerts_sent`);
	}

	/** Keeps how a delivery to `url` went, unless the webhook was changed or removed meanwhile. */
	noteDelivery(url: string, delivery: AlertDeliveryView): void {
		const kept = { ...delivery, error: delivery.error === null ? null : cutText(delivery.error, ALERT_LIMITS.errorChars) };
		this.#sql.exec(`UPDATE alert_webhook SET last_delivery = ? WHERE url = ?`, JSON.stringify(kept), url);
	}

	/**
	 * Whether the project's hourly bound has room for one more alert: what it noted an hour ago
	 * goes, and an alert past it is counted as suppressed.
	 */
	#roomThisHour(now: number): boolean {
		this.#sql.exec(`DELETE FROM alerts_sent WHERE at <= ?`, now - HOUR_MS);
		if (this.#sql.exec<{ n: number }>(`SELECT count(*) AS n FROM alerts_sent`).one().n < ALERT_LIMITS.perHour) return true;
		this.#sql.exec(`UPDATE alert_webhook SET suppressed = suppressed + 1`);
		return false;
	}

	/**
	 * The alert an accepted event raises, if one is due: part of the event's transaction, so what
	 * it notes of the bounds is stored with the event or not at all. Reads nothing unless the
	 * event opened or reopened its issue.
	 */
	issueDue(action: IssueAlertAction | null, c: LogEventCommand, project: string, now: number): DueAlert<IssueAlertPayload> | null {
		if (action === null) return null;
		const row = this.#alertTarget();
		if (!row) return null;
		const recent = this.#sql.exec(`SELECT 1 FROM alerts_sent WHERE hash = ? AND action = ? AND at > ?`, c.groupHash, action, now - ALERT_LIMITS.perIssueMs);
		if (recent.toArray().length > 0) return null;
		if (!this.#roomThisHour(now)) return null;
		const issue = this.#groups.row(c.groupHash);
		if (!issue) return null;
		this.#sql.exec(`INSERT INTO alerts_sent (hash, action, at) VALUES (?, ?, ?)`, c.groupHash, action, now);
		const payload = issueAlertPayload(
			action,
			project,
			row.console_origin,
			{
				groupHash: issue.hash,
				title: issue.title,
				culprit: issue.culprit,
				level: issue.level,
				count: issue.count,
				firstSeen: issue.first_seen,
				lastSeen: issue.last_seen,
				shortId: issue.short_id,
			},
			{ eventId: c.clientEventId ?? c.eventId, environment: c.environment, release: c.release, timestamp: c.timestamp },
		);
		return { url: row.url, payload };
	}

	/**
	 * The alert new feedback raises, if the webhook alerts feedback and the hourly bound has room;
	 * decided as the feedback is stored, noted under its id at its time.
	 */
	feedbackDue(feedback: AlertFeedback, project: string): DueAlert<FeedbackAlertPayload> | null {
		const row = this.#alertTarget();
		if (row?.feedback !== 1 || !this.#roomThisHour(feedback.createdAt)) return null;
		this.#sql.exec(`INSERT INTO alerts_sent (hash, action, at) VALUES (?, 'feedback', ?)`, feedback.id, feedback.createdAt);
		return { url: row.url, payload: feedbackAlertPayload(project, row.console_origin, feedback) };
	}
}
