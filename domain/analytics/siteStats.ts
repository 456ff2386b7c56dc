/**
 * The dashboard's statistics of a site, as the answer says them: from the rollups (rollups.ts)
 * without filters, from the events with them (eventStats.ts, which also states how each figure is
 * defined). The pages report is in pagesReport.ts.
 */
import { GOAL_FILTER_PARAMS, type PeriodTotalsView, type SeriesPointView, type SiteStatsView } from "../api/sites";
import { OWNER_LIMITS } from "../limits";
import { type EventList, siteStatsQueries, statsQuery, statsRow, VISITORS_NOW, visitorsQuery } from "./eventStats";
import { type CompiledFilters, compileFilters, type Filters } from "./filters";
import {
	type EventBreakdown,
	HOUR_MS,
	ROLLUP_EVENT_COUNT,
	rollupParams,
	rollupQueries,
	splitBreakdownRows,
	VISIT_BREAKDOWNS,
	type VisitBreakdown,
	wholeHours,
} from "./rollups";
import { sampleFor, samplePercent, scaleUp, type VisitorSample } from "./sampling";
import { type BoundQuery, fillSeries, rangeParams, runQueries, type StatsRange, withParams } from "./statsRange";

// biome-ignore lint/suspicious/noExplicitAny: rows carry the columns their SQL selects
type Rows = any[];

/** Visit breakdown rows {dim, label, ...} → per breakdown, rows keyed as the breakdown names its label. */
function splitVisitRows(rows: Rows): Record<VisitBreakdown, Rows> {
	const byDim = Object.fromEntries(Object.keys(VISIT_BREAKDOWNS).map((dim) => [dim, [] as Rows])) as Record<VisitBreakdown, Rows>;
	for (const { dim, label: value, visitors, visits } of rows as Array<{ dim: VisitBreakdown; label: string; visitors: number; visits: number }>) {
		byDim[dim].push({ [VISIT_BREAKDOWNS[dim][1]]: value, visitors, visits });
	}
	return byDim;
}

/** Sessions, bounce rate and visit duration from the sessions query's row. */
function visitFigures({ sessions, bounces, engaged_ms }: { sessions: number; bounces: number; engaged_ms: number | null }) {
	return {
		sessions,
		/** Share of sessions that bounced, 0 to 1. */
		bounce_rate: sessions > 0 ? Math.round((bounces / sessions) * 10_000) / 10_000 : 0,
		/** Visit duration: seconds, one decimal. */
		avg_duration: engaged_ms === null ? 0 : Math.round(engaged_ms / 100) / 10,
	};
}

/** A series row before it is read: its bucket's event figures, and the sessions that began in it with their bounces and mean engaged time (null without any). */
interface SeriesRow {
	t: number;
	pageviews: number;
	visitors: number;
	sessions: number;
	bounces: number;
	engaged_ms: number | null;
}

const EMPTY_BUCKET: Omit<SeriesRow, "t"> = { pageviews: 0, visitors: 0, sessions: 0, bounces: 0, engaged_ms: null };

/**
 * A bucket of the series: its visit figures are those of the sessions that began in it. Where
 * none began, a bounce rate or a visit duration would be a share and a mean of nothing: null,
 * which the chart draws as a gap (as Plausible does), not as a fall to 0.
 */
function seriesPoint({ t, pageviews, visitors, sessions, bounces, engaged_ms }: Omit<SeriesRow, "t"> & { t: string }): SeriesPointView {
	const visits = sessions > 0 ? visitFigures({ sessions, bounces, engaged_ms }) : { sessions, bounce_rate: null, avg_duration: null };
	return { t, pageviews, visitors, ...visits };
}

/** A period's visitors and series under the filters but a goal's (the series' rows may hold more than their visitors). */
interface ConversionBaseRows {
	visitors: number;
	series: Array<{ t: number; visitors: number }>;
}

/**
 * A period's figures: `totals` holds the session figures too; the series stops at the bucket under
 * way at `now`. Under a goal's filter, the visitors its conversion rate is out of (`base`).
 */
const totalsOf = (range: StatsRange, totals: Rows[number], series: Rows, now: number, base?: ConversionBaseRows): PeriodTotalsView => ({
	from: new Date(range.from).toISOString(),
	to: new Date(range.to).toISOString(),
	pageviews: totals.pageviews,
	visitors: totals.visitors,
	events: totals.events,
	identified_visitors: totals.identified,
	...visitFigures(totals),
	series: fillSeries<Omit<SeriesRow, "t">>(range, series, EMPTY_BUCKET, now).map(seriesPoint),
	...(base
		? { conversion_base: { visitors: base.visitors, series: fillSeries(range, base.series.map(({ t, visitors }) => ({ t, visitors })), { visitors: 0 }, now) } }
		: {}),
});

export interface StatsRequest {
	range: StatsRange;
	filters: Filters;
	/** Also the same figures for the period of equal length just before `range`. */
	comparePrevious: boolean;
	now: number;
	/** Read the events even without filters (the rollups' tests compare both answers). */
	fromEvents?: boolean;
	/** With filters: count every event, never a sample of the visitors (sampling.ts). */
	exact?: boolean;
	/**
	 * The realtime view (realtimeStats.ts): a range of minutes, so from the events alone (no rollup
	 * has minutes), and `visitors_now` under the filters, from the same read.
	 */
	realtime?: boolean;
}

/**
 * The statistics answer (docs/api.md#statistics), for the whole hours the range touches. Without
 * filters from the rollups, with filters from the events (or a sample of its visitors): one D1
 * batch, after a count from the rollups with filters.
 */
export async function computeSiteStats(env: Env, trackingId: string, request: StatsRequest): Promise<SiteStatsView> {
	const range = wholeHours(request.range);
	const counted = { ...request, range };
	const fromEvents = request.fromEvents || Object.keys(request.filters).length > 0;
	const rows = await (fromEvents ? eventStatsRows(env, trackingId, counted) : rollupStatsRows(env, trackingId, counted));
	return statsAnswer(range, rows, request);
}

/** The rows of an answer, from the events or the rollups, as its parts read them. */
type AnswerRows = Awaited<ReturnType<typeof eventStatsRows>> | Awaited<ReturnType<typeof rollupStatsRows>>;

/** The answer over `range` (as counted) from its rows. */
export function statsAnswer(range: StatsRange, rows: AnswerRows, { filters, comparePrevious, now }: Pick<StatsRequest, "filters" | "comparePrevious" | "now">): SiteStatsView {
	const visits = splitVisitRows(rows.visits);
	return {
		...totalsOf(range, rows.totals, rows.series, now, rows.conversionBase),
		visitors_now: rows.visitorsNow,
		filters,
		sample_percent: samplePercent(rows.sample),
		top_pages: rows.pages,
		entry_pages: visits.entry_pages,
		exit_pages: visits.exit_pages,
		sources: visits.sources,
		top_referrers: rows.referrers,
		...(rows.referrer_urls ? { referrer_urls: rows.referrer_urls } : {}),
		campaigns: {
			utm_source: visits.utm_source,
			utm_medium: visits.utm_medium,
			utm_campaign: visits.utm_campaign,
			utm_content: visits.utm_content,
			utm_term: visits.utm_term,
			ref: visits.ref,
		},
		countries: rows.countries,
		browsers: rows.browsers,
		os: rows.os,
		devices: rows.devices,
		custom_events: rows.custom_events,
		event_properties: rows.event_properties,
		...(comparePrevious && rows.previous ? { previous: totalsOf(previousOf(range, now), rows.previous.totals, rows.previous.series, now, rows.previous.conversionBase) } : {}),
	};
}

/** The period of equal length just before `range`. */
const previousOf = (range: StatsRange, now: number): StatsRange => {
	const length = range.to - range.from;
	// A period under way ("today", the last 7 days) meets as much of the one before as has passed
	// of it, in whole hours, so that a morning is not compared with a whole day.
	const elapsed = now > range.from && now < range.to ? Math.ceil((now - range.from) / HOUR_MS) * HOUR_MS : length;
	return { ...range, from: range.from - length, to: range.from - length + elapsed };
};

const visitorsNowQuery = (trackingId: string, now: number): BoundQuery => ({
	sql: VISITORS_NOW,
	params: [trackingId, now - OWNER_LIMITS.visitorsNowMs, now + 1],
});

/**
 * How a filtered answer over `periods` is counted (sampling.ts): the sample of the visitors the
 * busiest period calls for (a quiet week after a busy one is still one sample; none with `exact`),
 * the filters compiled over it, and `estimated`, which turns a statement's row into the answer's
 * figures.
 */
async function filteredCounting(env: Env, trackingId: string, filters: Filters, periods: StatsRange[], exact = false) {
	let sample: VisitorSample | undefined;
	if (!exact) {
		// The hours the period touches: the realtime view's minutes are within one or two of them.
		const counts = await runQueries(
			env,
			Object.fromEntries(periods.map((period, i) => [i, { sql: ROLLUP_EVENT_COUNT, params: rollupParams(trackingId, wholeHours(period)) }])),
		);
		sample = sampleFor(Math.max(...Object.values(counts).map(([row]) => row.events)));
	}
	return { sample, compiled: compileFilters(filters, sample), estimated: <T>(row: T): T => (sample ? scaleUp(row, sample) : row) };
}

/**
 * The answer's rows from the events, filters applied: one statement per period, over a sample of
 * the visitors when the range holds more events than a statement reads quickly (sampling.ts),
 * which the rollups tell first.
 */
export async function eventStatsRows(env: Env, trackingId: string, { range, filters, comparePrevious, now, exact, realtime = false }: StatsRequest) {
	const previousRange = comparePrevious ? previousOf(range, now) : undefined;
	const { sample, compiled, estimated } = await filteredCounting(env, trackingId, filters, previousRange ? [range, previousRange] : [range], exact);
	const queries = siteStatsQueries(range.bucketMs, compiled);
	const base = conversionBaseQueries(trackingId, filters, { current: range, ...(previousRange ? { previous: previousRange } : {}) }, sample, realtime);
	const rows = await runQueries(env, {
		stats: realtime
			? { sql: queries.realtime, params: rangeParams(trackingId, range, [...compiled.values, now - OWNER_LIMITS.visitorsNowMs]) }
			: { sql: queries.stats, params: rangeParams(trackingId, range, compiled.values) },
		...(realtime ? {} : { visitorsNow: visitorsNowQuery(trackingId, now) }),
		...(previousRange ? { previous: { sql: queries.previous, params: rangeParams(trackingId, previousRange, compiled.values) } } : {}),
		...base?.queries,
	});
	const stats = estimated(statsRow(rows.stats));
	const previous = comparePrevious ? estimated(statsRow(rows.previous)) : undefined;
	return {
		...stats,
		totals: stats,
		visitorsNow: (realtime ? stats.visitors_now : rows.visitorsNow[0].visitors) as number,
		previous: previous && { totals: previous, series: previous.series, conversionBase: base?.read(rows, "previous") },
		conversionBase: base?.read(rows, "current"),
		sample,
	};
}

/**
 * A goal's conversion rate is out of the visitors of the answer's filters but the goal's (`event`,
 * `property`, and their "contains"): those filters, or none without a goal.
 */
function goalless(filters: Filters): Filters | undefined {
	if (GOAL_FILTER_PARAMS.every((param) => filters[param] === undefined)) return undefined;
	return Object.fromEntries(Object.entries(filters).filter(([param]) => !(GOAL_FILTER_PARAMS as readonly string[]).includes(param)));
}

/**
 * The statements of each period's conversion base under a goal's filter (none without one), to run
 * in the answer's batch, and how their rows read: with no other filter from the rollups (their
 * totals' visitors and series, as the unfiltered answer counts them) unless `eventsOnly` (minutes,
 * which no rollup has), else one read of the events the other filters keep, from the same sample
 * as the answer.
 */
function conversionBaseQueries(trackingId: string, filters: Filters, periods: Record<string, StatsRange>, sample: VisitorSample | undefined, eventsOnly: boolean) {
	const others = goalless(filters);
	if (!others) return undefined;
	const named = Object.entries(periods);
	if (Object.keys(others).length === 0 && !eventsOnly) {
		const { totals, series } = rollupQueries(named[0][1].bucketMs);
		return {
			queries: Object.fromEntries(
				named.flatMap(([name, period]) => [
					[`base_${name}_totals`, { sql: totals, params: rollupParams(trackingId, period) }],
					[`base_${name}_series`, { sql: series, params: rollupParams(trackingId, period) }],
				]),
			) as Record<string, BoundQuery>,
			read: (rows: Record<string, Rows>, name: string): ConversionBaseRows => ({ visitors: rows[`base_${name}_totals`][0].visitors, series: rows[`base_${name}_series`] }),
		};
	}
	const compiled = compileFilters(others, sample);
	return {
		queries: Object.fromEntries(
			named.map(([name, period]) => [`base_${name}`, { sql: visitorsQuery(compiled, period.bucketMs), params: rangeParams(trackingId, period, compiled.values) }]),
		) as Record<string, BoundQuery>,
		read: (rows: Record<string, Rows>, name: string): ConversionBaseRows => {
			const row = statsRow(rows[`base_${name}`]);
			return sample ? scaleUp(row, sample) : row;
		},
	};
}

/** The answer's rows from the rollups (no filters). */
async function rollupStatsRows(env: Env, trackingId: string, { range, comparePrevious, now }: StatsRequest) {
	const queries = rollupQueries(range.bucketMs);
	const params = rollupParams(trackingId, range);
	const previousParams = rollupParams(trackingId, previousOf(range, now));
	const rows = await runQueries(env, {
		...withParams(queries, params),
		visitorsNow: visitorsNowQuery(trackingId, now),
		...(comparePrevious
			? { previousTotals: { sql: queries.totals, params: previousParams }, previousSeries: { sql: queries.series, params: previousParams } }
			: {}),
	});
	// The rollups' totals row carries the session figures too.
	return {
		...rows,
		...splitBreakdownRows(rows.breakdowns),
		totals: rows.totals[0],
		visitorsNow: rows.visitorsNow[0].visitors,
		previous: comparePrevious ? { totals: rows.previousTotals[0], series: rows.previousSeries, conversionBase: undefined } : undefined,
		conversionBase: undefined,
		sample: undefined,
	};
}

/** Every breakdown a CSV export can name, with the columns of its rows in order. */
export const BREAKDOWN_COLUMNS = {
	pages: ["path", "pageviews", "visitors", "scroll_depth", "time_on_page"],
	entry_pages: ["path", "visitors", "visits"],
	exit_pages: ["path", "visitors", "visits"],
	sources: ["source", "visitors", "visits"],
	referrers: ["referrer", "visitors", "pageviews"],
	/** Only with the `source` filter: that source's referrers. */
	referrer_urls: ["referrer_url", "visitors", "pageviews"],
	utm_source: ["utm_source", "visitors", "visits"],
	utm_medium: ["utm_medium", "visitors", "visits"],
	utm_campaign: ["utm_campaign", "visitors", "visits"],
	utm_content: ["utm_content", "visitors", "visits"],
	utm_term: ["utm_term", "visitors", "visits"],
	ref: ["ref", "visitors", "visits"],
	countries: ["country", "visitors", "pageviews"],
	browsers: ["browser", "visitors", "pageviews"],
	os: ["os", "visitors", "pageviews"],
	devices: ["device", "visitors", "pageviews"],
	custom_events: ["name", "events", "visitors"],
	event_properties: ["name", "property", "value", "events"],
} as const satisfies Record<string, readonly string[]>;
export type BreakdownName = keyof typeof BREAKDOWN_COLUMNS;

const isVisits = (name: BreakdownName): name is VisitBreakdown => Object.hasOwn(VISIT_BREAKDOWNS, name);

/**
 * The one statement a CSV export of `name` runs (the query-plan tests read them all): without
 * filters (`filters` undefined) a read of the rollups, with them the events' statement for that
 * one list over the compiled filters (the referrer URLs need a `source` filter).
 */
export function breakdownQuery(name: BreakdownName, bucketMs: number, filters?: CompiledFilters): string {
	if (!filters) {
		if (name === "pages" || name === "event_properties") return rollupQueries(bucketMs)[name];
		if (isVisits(name)) return rollupQueries(bucketMs, { visits: [name], events: [] }).visits;
		return rollupQueries(bucketMs, { visits: [], events: [name as EventBreakdown] }).breakdowns;
	}
	return statsQuery(filters, bucketMs, isVisits(name) ? { figures: false, lists: [], visits: [name] } : { figures: false, lists: [name as EventList], visits: [] });
}

/**
 * One breakdown's rows for the whole hours the range touches and the filters, at most
 * `range.limit` (the CSV export), counted as the dashboard counts them: from the rollups without
 * filters; with filters from the events, or over many events from the same sample of the visitors
 * unless `exact`. Answers the share of the visitors counted too.
 */
export async function computeBreakdown(
	env: Env,
	trackingId: string,
	name: BreakdownName,
	requested: StatsRange,
	filters: Filters,
	exact = false,
): Promise<{ rows: Rows; samplePercent: number }> {
	const range = wholeHours(requested);
	// Properties are listed five times `limit` to a statement (a few per event name): the export keeps `limit` of them.
	const limited = (rows: Rows) => (name === "event_properties" ? rows.slice(0, range.limit) : rows);
	if (Object.keys(filters).length === 0) {
		const sql = breakdownQuery(name, range.bucketMs);
		const { rows } = await runQueries(env, { rows: { sql, params: rollupParams(trackingId, range) } });
		if (name === "pages" || name === "event_properties") return { rows: limited(rows), samplePercent: 100 };
		return { rows: isVisits(name) ? splitVisitRows(rows)[name] : splitBreakdownRows(rows)[name as EventBreakdown], samplePercent: 100 };
	}
	const { sample, compiled, estimated } = await filteredCounting(env, trackingId, filters, [range], exact);
	const sql = breakdownQuery(name, range.bucketMs, compiled);
	const row = estimated(statsRow((await runQueries(env, { row: { sql, params: rangeParams(trackingId, range, compiled.values) } })).row));
	return { rows: isVisits(name) ? splitVisitRows(row.visits)[name] : limited(row[name]), samplePercent: samplePercent(sample) };
}
