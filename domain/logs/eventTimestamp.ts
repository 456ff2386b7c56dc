/**
 * A log event's `timestamp` (docs/api.md#ingest-log), for every endpoint that takes log events:
 * ISO 8601 as sent, normalized to UTC; absent or invalid, the time the event was received.
 *
 * A sender whose clock runs fast dates its events in the future, where they would sort after
 * everything it sends later, so a timestamp more than LOG_LIMITS.futureTimestampMs ahead of the
 * time received is replaced by that time, and the one sent is kept beside it, as Sentry does.
 * Timestamps in the past stay as sent: an SDK may have held the event while offline.
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

export function readTimestamp(body: Json, receivedAt: Date): Pick<LogEvent, "timestamp" | "original_timestamp"> {
	const ms = parsedTimestamp(member(body, "timestamp"));
	if (ms === null) return { timestamp: receivedAt.toISOString() };
	if (ms - receivedAt.getTime() > LOG_LIMITS.futureTimestampMs) {
		return { timestamp: receivedAt.toISOString(), original_timestamp: new Date(ms).toISOString() };
	}
	return { timestamp: new Date(ms).toISOString() };
}
