/**
 * What the ingestion endpoints hand a project key's ProjectCollector, and what it answers: the
 * Worker reads and checks the request, the object decides (docs/architecture.md#project-keys).
 */
import type { FeedbackAlertPayload, IssueAlertPayload } from "../domain/api/alerts";
import type { DueAlert } from "./projectAlerts";

/** What every call from an ingestion endpoint says about the key it was sent with. */
export interface KeyCheck {
	/** The key the Worker believes the hash belongs to; the object holds exactly one key. */
	keyId: string;
	/** SHA-256 of the presented raw key: refused unless it is the key's current one. */
	keyHash: string;
	/** Sentry endpoints: the project id in the DSN, which must be the key's. */
	dsnId?: number;
}

/** Why a request is refused, as its answer: status, message, extra body members, Retry-After for 429. */
export interface Refusal {
	status: number;
	message: string;
	body?: Record<string, unknown>;
	retryAfterSeconds?: number;
}

/** A body the Worker could not read (413) or parse (400): answered only after the key and window checks. */
type BodyOrProblem<T> = { body: T } | { problem: Refusal };

/** A log event, normalized, symbolicated and fingerprinted by the Worker. */
export interface LogEventCommand {
	groupHash: string;
	/**
	 * The hash under the previous grouping rules (fingerprint.ts, previousGroupHash); null when they
	 * give the same or do not apply. Absent when the Worker has not computed it: the object asks
	 * for it (`previous_hash_needed`) only when `groupHash` names no issue, which most events skip.
	 */
	previousGroupHash?: string | null;
	title: string;
	culprit: string | null;
	level: string;
	environment: string | null;
	release: string | null;
	/** Who was affected (user id, else email, username or IP), for the distinct user count. */
	userKey: string | null;
	/**
	 * An exception of the event's chain says the app did not catch it (`mechanism.handled: false`):
	 * its issue is marked unhandled from then on. Decided here so the object never parses the event.
	 */
	unhandled: boolean;
	eventId: string;
	/**
	 * The id the sender gave the event (a Sentry SDK's event_id, 32 hex digits): an event whose id
	 * the key's object has seen in the last day is a repeat (an SDK's retry) and is not counted again.
	 */
	clientEventId: string | null;
	receivedAt: number;
	/** When the event happened, as its issue counts it (occurredAt): its first and last seen, its place among the issue's events. */
	timestamp: number;
	eventJson: string;
}

export type LogCommand = KeyCheck & {
	ip: string;
	/** The state of the project's source maps the event was symbolicated against. */
	artifactsVersion: number;
} & BodyOrProblem<LogEventCommand>;

export type LogOutcome =
	/** `alert`: an issue alert is due (ProjectAlerts.issueDue), for the Worker to send once it has answered. */
	| { status: "accepted"; groupHash: string; isNew: boolean; repeat?: true; alert?: DueAlert<IssueAlertPayload> }
	| { status: "refused"; refusal: Refusal }
	/** The event was symbolicated against source maps that have changed since: do it again. */
	| { status: "stale_artifacts"; artifactsVersion: number }
	/** The event would open an issue: send it again with `previousGroupHash`. */
	| { status: "previous_hash_needed" };

/** `files`: attached files (a Sentry feedback widget's screenshot), images for the form's first attachment field if they are. */
export type FeedbackCommand = KeyCheck & { ip: string; files?: Uint8Array[] } & BodyOrProblem<Record<string, unknown>>;

export type FeedbackOutcome =
	/** `alert`: a feedback alert is due (ProjectAlerts.feedbackDue), for the Worker to send once it has answered. */
	| { status: "accepted"; id: string; alert?: DueAlert<FeedbackAlertPayload> }
	| { status: "refused"; refusal: Refusal };

export const refused = (status: number, message: string, extra: Omit<Refusal, "status" | "message"> = {}) =>
	({ status: "refused", refusal: { status, message, ...extra } }) as const;
export const INVALID_KEY = refused(401, "Project key is not valid");

/** The calls an isolate may send a key's object together (ProjectCollector.calls), by method. */
export interface ProjectCalls {
	submitFeedback: { command: FeedbackCommand; outcome: FeedbackOutcome };
	ingestLog: { command: LogCommand; outcome: LogOutcome };
}

export type ProjectCall = { [M in keyof ProjectCalls]: { method: M; command: ProjectCalls[M]["command"] } }[keyof ProjectCalls];

/** One call's answer in a batch: its outcome, or why it failed (what its own call would have thrown). */
export type ProjectCallResult = { outcome: ProjectCalls[keyof ProjectCalls]["outcome"] } | { failed: string };
