/**
 * Visitor sampling of the filtered statistics. A filtered answer is counted from the events
 * (eventStats.ts), and over a long range of a busy site that is hundreds of thousands of rows: 1.6 s
 * for one page's 30 days at a million events, 5 s for a country with 40 % of them. Above
 * OWNER_LIMITS.statsSampleEvents events in the range (the rollups say how many, cheaply), the
 * answer counts a fixed share of the visitors instead and scales its counts up by the inverse
 * share, as Plausible does for large sites and Cloudflare's Analytics Engine for every query.
 * `exact=true` counts every event whatever it costs. The CSV exports count the same way.
 *
 * Visitors, not events, are sampled, so each sampled visitor's sessions, entry and exit pages and
 * sources are whole. Stored visitor ids are 32 hex digits of a salted hash (the collector hashes
 * an id a client sends too), so their first two digits split the visitors into 256 buckets of
 * equal expected size; the sample is buckets 00 up to k - 1, the same visitors on every request,
 * read through analytics_events_sample_idx (tracking_id, substr(visitor_id, 1, 2), ts): one
 * index search per bucket, each reading only its bucket's events of the range.
 */
import { OWNER_LIMITS } from "../limits";

export const SAMPLE_BUCKETS = 256;

/** The buckets counted: 1 to SAMPLE_BUCKETS - 1 (all of them is no sample). */
export interface VisitorSample {
	buckets: number;
}

/** The sample for a range of `events` events: none up to the limit, else as many buckets as keep about the limit's events. */
export function sampleFor(events: number, limit: number = OWNER_LIMITS.statsSampleEvents): VisitorSample | undefined {
	if (events <= limit) return undefined;
	return { buckets: Math.max(1, Math.floor((SAMPLE_BUCKETS * limit) / events)) };
}

/** The condition on analytics_events rows, in the exact expression the index is built on. */
export function sampleCondition({ buckets }: VisitorSample): string {
	const prefixes = Array.from({ length: buckets }, (_, bucket) => `'${bucket.toString(16).padStart(2, "0")}'`);
	return `substr(visitor_id, 1, 2) IN (${prefixes.join(", ")})`;
}

/** Share of the visitors a sample counts, in percent (100: every one). */
export const samplePercent = (sample: VisitorSample | undefined) =>
	sample ? Math.round((sample.buckets / SAMPLE_BUCKETS) * 1000) / 10 : 100;

/** Members of the statistics' rows that count something (scaled up); the rest are means and shares. */
const COUNTS = new Set(["pageviews", "visitors", "events", "identified", "sessions", "bounces", "visits", "visitors_now"]);

/** The rows counted from a sample as estimates of all visitors': every count scaled up by the inverse share. */
export function scaleUp<T>(value: T, sample: VisitorSample): T {
	const factor = SAMPLE_BUCKETS / sample.buckets;
	const scale = (v: unknown): unknown => {
		if (Array.isArray(v)) return v.map(scale);
		if (v === null || typeof v !== "object") return v;
		return Object.fromEntries(
			Object.entries(v).map(([key, member]) => [key, COUNTS.has(key) && typeof member === "number" ? Math.round(member * factor) : scale(member)]),
		);
	};
	return scale(value) as T;
}
