/**
 * The realtime view of a site's statistics, as Plausible's: the last 30 minutes by minute, with the
 * visitors on the site now (docs/api.md#realtime-statistics). The statistics of a range count
 * whole hours from the rollups; minutes are read from the events, as a filtered answer is
 * (eventStats.ts), with the same filters and the same sample of the visitors over many events.
 */
import type { SiteStatsView } from "../api/sites";
import { MINUTE_MS } from "./eventStats";
import type { Filters } from "./filters";
import { eventStatsRows, statsAnswer } from "./siteStats";
import type { StatsRange } from "./statsRange";

/** Minutes the realtime view covers, the one under way the last of them. */
const REALTIME_MINUTES = 30;

/**
 * The realtime window at `now`: whole UTC minutes, the one under way and the 29 before it, so
 * that each bucket of the series is a whole minute and the last is the one under way (as the last
 * hour of today is). An event 30 minutes old or older is out of it; one 29 minutes old is in the
 * first minute once that minute has begun.
 */
function realtimeRange(now: number, limit: number): StatsRange {
	const to = Math.floor(now / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
	return { from: to - REALTIME_MINUTES * MINUTE_MS, to, bucketMs: MINUTE_MS, limit };
}

export interface RealtimeRequest {
	filters: Filters;
	/** Rows per breakdown list. */
	limit: number;
	/** With filters or without: count every event, never a sample of the visitors (sampling.ts). */
	exact: boolean;
	now: number;
}

/**
 * The realtime answer: the statistics answer's shape over the realtime window, by minute, without a
 * period before to compare with; `visitors_now` counts the visitors with any event in the last 5
 * minutes among the events the filters keep. One statement over the window's events (after the
 * count of the hours it touches that decides on a sample).
 */
export async function computeRealtimeStats(env: Env, trackingId: string, { filters, limit, exact, now }: RealtimeRequest): Promise<SiteStatsView> {
	const range = realtimeRange(now, limit);
	const request = { range, filters, comparePrevious: false, now, exact, realtime: true };
	return statsAnswer(range, await eventStatsRows(env, trackingId, request), request);
}
