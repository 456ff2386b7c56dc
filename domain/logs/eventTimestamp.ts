/**
 * A log event's `timestamp` (docs/api.md#ingest-log), for every endpoint that takes log events:
 * ISO 8601 as sent, normalized to UTC; absent or invalid, the time the event was received.
 *
 * A sender whose clock runs fast dates its events in the future, where they would sort after
 * everything it sends later, so a timestamp more than LOG_LIMITS.futureTimestampMs ahead of the
 * time received is replaced by that time, and the one sent is kept beside it, as Sentry does.
 * Timestamps in the past stay as sent: an SDK may have held the event while offline. A sender
 * whose clock is known to be wrong (clockDriftOf) has its timestamps corrected, the one sent kept.
 */
import { LOG_LIMITS } from "../limits";
import { type Json, member } from "./jsonFields";
import type { LogEvent } from "./logEvent";

const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?(?:[Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;

/** Milliseconds since the epoch of an ISO 8601 string; null for anything else. */
function parsedTimestamp(raw: unknown): number | null {
	if (typeof raw !== "string" || !ISO_8601.test(raw.trim())) return null;
	const ms = Date.parse(raw.trim().replace(",", "."));
	return Number.isNaN(ms) ? null : ms;
}

/**
 * How far the sender's clock is behind ours (ms, negative when ahead), from when it says it sent
 * the event (a Sentry envelope's `sent_at`): 0 unless that differs from the time received by at
 * least LOG_LIMITS.clockDriftMs. Relay corrects such a clock, as a phone's set wrong by hours
 * would date every event it sends; a smaller difference is the time the envelope took to come.
 */
export function clockDriftOf(sentAt: unknown, receivedAt: Date): number {
	const ms = parsedTimestamp(sentAt);
	const drift = ms === null ? 0 : receivedAt.getTime() - ms;
	return Math.abs(drift) >= LOG_LIMITS.clockDriftMs ? drift : 0;
}

/**
 * A breadcrumb's time moved by the sender's `clockDrift`, as its event's is (Relay moves every
 * time in the event): seconds stay seconds, an ISO 8601 string becomes one in UTC, and anything
 * that is no time stays as sent.
 */
export function crumbTimeMoved(timestamp: string | number, clockDrift: number): string | number {
	if (clockDrift === 0) return timestamp;
	if (typeof timestamp === "number") return timestamp + clockDrift / 1000;
	const ms = parsedTimestamp(timestamp);
	return ms === null ? timestamp : new Date(ms + clockDrift).toISOString();
}

/** The timestamp as sent, moved by the sender's `clockDrift` (clockDriftOf), with the one sent kept apart when it had to change. */
export function readTimestamp(body: Json, receivedAt: Date, clockDrift = 0): Pick<LogEvent, "timestamp" | "original_timestamp"> {
	const sent = parsedTimestamp(member(body, "timestamp"));
	if (sent === null) return { timestamp: receivedAt.toISOString() };
	const ms = sent + clockDrift;
	const original_timestamp = new Date(sent).toISOString();
	if (ms - receivedAt.getTime() > LOG_LIMITS.futureTimestampMs) return { timestamp: receivedAt.toISOString(), original_timestamp };
	return ms === sent ? { timestamp: original_timestamp } : { timestamp: new Date(ms).toISOString(), original_timestamp };
}

/**
 * When an event counts as having happened (ms), by which its issue is first and last seen and its
 * events are ordered, charted and expire, as Sentry goes by an event's own time: an SDK that held
 * an event while offline sends it late, and it belongs where it happened. Never after it was
 * received (a timestamp up to a minute ahead is kept, but the event counts now, in the current
 * hour). A timestamp more than LOG_LIMITS.pastTimestampMs before it was received says more about
 * the sender's clock than about the event (Relay replaces one that old too), and would date the
 * issue before the retention keeps anything: such an event counts at the time received, its
 * timestamp kept as sent.
 */
export function occurredAt(timestamp: string, receivedAt: number): number {
	const ms = Date.parse(timestamp);
	return receivedAt - ms > LOG_LIMITS.pastTimestampMs ? receivedAt : Math.min(ms, receivedAt);
}
