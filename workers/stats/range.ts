import { seriesBucketMs } from "../../domain/api/sites";
import { OWNER_LIMITS } from "../../domain/limits";
import { HttpError } from "../http";
import { limitParam, parseBody, queryParams, queryText } from "../validation";
import type { StatsRange } from "../../domain/analytics/statsRange";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MAX_RANGE_DAYS = OWNER_LIMITS.statsRangeDays;

/** A date, or a date and time (to the minute, second or a fraction) with `Z` or an offset; UTC when it has none. */
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,9})?)?(Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)?)?$/;

/**
 * Milliseconds of an ISO 8601 time, or NaN. Date.parse alone takes far more than ISO ("1" is
 * the year 2001, "March 7" a date) and rolls 2025-02-30 into March: a typo would silently give
 * figures for another range.
 */
function isoTimeMs(value: string): number {
	const match = ISO_TIME.exec(value);
	if (!match) return Number.NaN;
	const [year, month, day] = match.slice(1, 4).map(Number);
	if (new Date(Date.UTC(year, month - 1, day)).getUTCDate() !== day) return Number.NaN;
	// A time without an offset is UTC, whatever the runtime's own time zone.
	return Date.parse(value.includes("T") && match[4] === undefined ? `${value}Z` : value);
}

const isoTime = queryText().refine((value) => !Number.isNaN(isoTimeMs(value)), "must be an ISO 8601 time such as 2026-01-31T00:00:00Z")
	.transform(isoTimeMs);

const querySchema = queryParams({
	from: isoTime.optional(),
	to: isoTime.optional(),
	limit: limitParam(OWNER_LIMITS.breakdownRows).optional(),
});

/** `?from=&to=` (ISO times; default the last 24 hours) and `?limit=` (default 10, at most 100); any other parameter is a 400. */
export function readRange(query: Record<string, unknown>, now = Date.now()): StatsRange {
	const input = parseBody(querySchema, query);
	const to = input.to ?? now;
	const from = input.from ?? to - DAY;
	if (from >= to) throw new HttpError(400, "Invalid request: from must be before to");
	if (to - from > MAX_RANGE_DAYS * DAY) throw new HttpError(400, `Invalid request: a range covers at most ${MAX_RANGE_DAYS} days`);
	return { from, to, bucketMs: seriesBucketMs(to - from), limit: input.limit ?? 10 };
}
