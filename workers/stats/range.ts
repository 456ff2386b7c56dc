import { z } from "zod";
import { HttpError } from "../http";
import { parseBody } from "../validation";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Longest range a statistics request may cover. */
export const MAX_RANGE_DAYS = 400;

const isoTime = z
	.string()
	.refine((value) => !Number.isNaN(Date.parse(value)), "must be an ISO 8601 time such as 2026-01-31T00:00:00Z")
	.transform((value) => Date.parse(value));

const querySchema = z.object({
	from: isoTime.optional(),
	to: isoTime.optional(),
	limit: z.coerce.number().int().min(1).max(100).optional(),
});

export interface StatsRange {
	from: number;
	to: number;
	/** Series bucket: an hour for ranges up to three days, else a (UTC) day. */
	bucketMs: number;
	/** Rows per breakdown list. */
	limit: number;
}

/** `?from=&to=` (ISO times; default the last 24 hours) and `?limit=` (default 10, at most 100). */
export function readRange(query: Record<string, unknown>, now = Date.now()): StatsRange {
	const input = parseBody(querySchema, query);
	const to = input.to ?? now;
	const from = input.from ?? to - DAY;
	if (from >= to) throw new HttpError(400, "Invalid request: from must be before to");
	if (to - from > MAX_RANGE_DAYS * DAY) throw new HttpError(400, `Invalid request: a range covers at most ${MAX_RANGE_DAYS} days`);
	return { from, to, bucketMs: to - from <= 3 * DAY ? HOUR : DAY, limit: input.limit ?? 10 };
}

/** Every bucket start of the range, so a chart gets zeros where nothing happened. */
export function bucketStarts({ from, to, bucketMs }: StatsRange): number[] {
	const starts: number[] = [];
	for (let t = Math.floor(from / bucketMs) * bucketMs; t < to; t += bucketMs) starts.push(t);
	return starts;
}

/** Fills a series from rows keyed by bucket start. */
export function fillSeries<T extends object>(range: StatsRange, rows: Array<{ t: number } & T>, zero: T): Array<{ t: string } & T> {
	const byStart = new Map(rows.map((row) => [row.t, row]));
	return bucketStarts(range).map((t) => {
		const { t: _, ...values } = (byStart.get(t) ?? { t, ...zero }) as { t: number } & T;
		return { t: new Date(t).toISOString(), ...(values as T) };
	});
}
