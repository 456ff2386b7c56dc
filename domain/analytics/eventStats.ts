/**
 * The statistics of a site counted from its events (analytics_events), as a filtered dashboard
 * and its CSV exports read them: one statement per period. Without filters the rollups answer
 * the same figures (rollups.ts); siteStats.ts assembles the answer from either.
 */
import { type CompiledFilters, compileFilters } from "./filters";
import { VISIT_BREAKDOWNS, type VisitBreakdown } from "./rollups";
import { SESSION_COLUMNS, sessionCut } from "./sessionCut";
import { IS_PROPERTY, label, propertiesOf, RANGE } from "./statsRange";

/*
 * Definitions (docs/api.md#statistics):
 * - pageviews: events with an empty name; events: custom events (any other name except the
 *   reserved `_leave` and `_identify`).
 * - visitors: distinct visitor ids among page views and custom events.
 * - engagement: a `_leave` is an engagement report: the page was visible for `engaged_ms` since
 *   the previous report of the same page view (current tracker, one report per hide), or for
 *   `duration` seconds in all (older trackers, one report per page view). Both add up the same way.
 * - sessions (visits): per visitor, runs of activity with no gap over 30 minutes. Activity is a
 *   page view, a custom event, or an engagement report, which says the visitor was on its page
 *   for the time it reports before it: 40 minutes of reading followed by a click is one session,
 *   not two bounces. A run of nothing but reports (its page view was before `from`) is no
 *   session. A bounce is a session of exactly one page view and no custom event.
 * - avg_duration (visit duration): the mean over sessions of the engaged time they report, in
 *   seconds; a session that reported none counts as 0.
 * - entry and exit pages: each session's first and last page view; sources and campaigns: those
 *   of each session's first page view ("" source is "Direct / None").
 * - per page: scroll_depth is the mean over the page's visitors of the deepest point each reported
 *   (percent); time_on_page the mean over them of the engaged time each reported (seconds).
 * - event_properties: the scalar members of custom events' `data` objects, counted per event name,
 *   member and value (five times `limit` rows).
 * - referrer_urls (with the `source` filter only): that source's page views with an external
 *   referrer, by the referrer's host and path (no query or fragment), as top_referrers counts hosts.
 *
 * Cost: one statement per period (statsQuery) reads the events it needs once, by a range scan
 * of analytics_events_site_ts_idx (tracking_id, ts) or, under a filter on visitors, through
 * analytics_events_visitor_idx for the visitors on the filter's list (one more range scan makes
 * the list). Every figure and list is grouped from that copy, and the sessions are cut once, by
 * a sort on (visitor, ts), for both the session figures and the visit breakdowns. Linear in the
 * events the filters keep: the statistics with filters read these; without filters, the rollups
 * (rollups.ts) answer the same figures. Over many events the filters narrow every read to a
 * sample of the visitors (sampling.ts), each through the sample index.
 */

/**
 * The custom events' properties; with the `event` filter (`eventParam`, its placeholder) that
 * event's alone, as Plausible narrows a goal's properties to the goal: the visits it keeps hold
 * other events too, whose properties would crowd the converted event's out of the list.
 */
function eventProperties(eventParam?: string): string {
	return jsonRows(
		["name", "property", "value", "events"],
		`SELECT name, p.key AS property, CAST(p.value AS TEXT) AS value, count(*) AS events
		FROM counted, ${propertiesOf("data")} AS p
		WHERE name NOT IN ('', '_leave', '_identify') AND ${IS_PROPERTY}${eventParam ? ` AND name = ${eventParam}` : ""}
		GROUP BY 1, 2, 3`,
		"events DESC, name, property, value",
		"?4 * 5",
	);
}

/** Lists of the answer counted from single events, each a JSON column of the statement. */
const EVENT_LISTS = ["pages", "referrers", "countries", "browsers", "os", "devices", "custom_events", "event_properties", "referrer_urls"] as const;
export type EventList = (typeof EVENT_LISTS)[number];
const ALL_VISIT_BREAKDOWNS = Object.keys(VISIT_BREAKDOWNS) as VisitBreakdown[];

/** What one statement answers: the period's figures (totals, series, sessions) and the lists asked for. */
export interface StatsParts {
	figures: boolean;
	lists: readonly EventList[];
	visits: readonly VisitBreakdown[];
	/**
	 * With the figures, `visitors_now` too: the visitors among the events the filters keep with any
	 * event since the value bound after the filters' (realtime: now - 5 minutes), counted from the
	 * same read, so a visit filter keeps the visits it keeps in the whole range.
	 */
	visitorsNow?: boolean;
}

/**
 * A subquery's rows as one JSON array of objects with `columns`, in `order` (column names, as
 * the aggregate's own ORDER BY cannot name a position), at most `limit` of them.
 */
const jsonRows = (columns: readonly string[], select: string, order: string, limit = "?4") =>
	`(SELECT coalesce(json_group_array(json_object(${columns.map((c) => `'${c}', ${c}`).join(", ")}) ORDER BY ${order}), '[]')
		FROM (${select} ORDER BY ${order} LIMIT ${limit}))`;

/** A breakdown of page views by a labelled column. */
const breakdown = (column: string, as: string, where = "") =>
	jsonRows(
		[as, "visitors", "pageviews"],
		`SELECT ${label(column)} AS ${as}, count(DISTINCT visitor_id) AS visitors, count(*) AS pageviews
		FROM counted WHERE name = ''${where} GROUP BY 1`,
		`visitors DESC, pageviews DESC, ${as}`,
	);

/**
 * The referrer URLs of one source (`source`: the placeholder its name is bound to): page views
 * with an external referrer, labelled by the referrer host and the referrer's path, which is what
 * follows the scheme and authority up to a query or fragment ("/" when nothing does). `referrer`
 * is in `counted` only for such page views.
 */
const referrerUrls = (source: string) =>
	jsonRows(
		["referrer_url", "visitors", "pageviews"],
		`SELECT referrer_host || coalesce(nullif(substr(rest, instr(rest || '/', '/')), ''), '/') AS referrer_url,
			count(DISTINCT visitor_id) AS visitors, count(*) AS pageviews
		FROM (
			SELECT visitor_id, referrer_host, substr(rest, 1, instr(rest || '?', '?') - 1) AS rest
			FROM (
				SELECT visitor_id, referrer_host, substr(rest, 1, instr(rest || '#', '#') - 1) AS rest
				FROM (SELECT visitor_id, referrer_host, substr(referrer, instr(referrer, '//') + 2) AS rest FROM counted WHERE referrer IS NOT NULL AND source = ${source})
			)
		)
		GROUP BY 1`,
		"visitors DESC, pageviews DESC, referrer_url",
	);

/** Each list's JSON column, over CTE `counted` (the events the event figures count). */
const EVENT_LIST_SQL: Record<Exclude<EventList, "referrer_urls">, string> = {
	pages: jsonRows(
		["path", "pageviews", "visitors", "scroll_depth", "time_on_page"],
		`SELECT url_path AS path, sum(views) AS pageviews, sum(views > 0) AS visitors,
			CAST(round(avg(depth)) AS INTEGER) AS scroll_depth, round(avg(engaged) / 1000.0, 1) AS time_on_page
		FROM (
			SELECT url_path, sum(name = '') AS views, max(scroll_depth) AS depth, sum(engaged) AS engaged
			FROM counted WHERE name IN ('', '_leave') GROUP BY url_path, visitor_id
		)
		GROUP BY 1 HAVING pageviews > 0`,
		// Ranked by the figure the list leads with, visitors, as Plausible ranks it: one reader
		// reloading a page 40 times does not put it above a page 30 people read.
		"visitors DESC, pageviews DESC, path",
	),
	referrers: jsonRows(
		["referrer", "visitors", "pageviews"],
		`SELECT referrer_host AS referrer, count(DISTINCT visitor_id) AS visitors, count(*) AS pageviews
		FROM counted WHERE name = '' AND referrer_host <> '' GROUP BY 1`,
		"visitors DESC, pageviews DESC, referrer",
	),
	countries: breakdown("country", "country"),
	browsers: breakdown("browser", "browser"),
	os: breakdown("os", "os"),
	devices: breakdown("device", "device"),
	custom_events: jsonRows(
		["name", "events", "visitors"],
		`SELECT name, count(*) AS events, count(DISTINCT visitor_id) AS visitors
		FROM counted WHERE name NOT IN ('', '_leave', '_identify') GROUP BY 1`,
		"events DESC, visitors DESC, name",
	),
	event_properties: eventProperties(),
};

/** What the statistics read of an event. */
const EVENT_COLUMNS = `${SESSION_COLUMNS}, country, browser, os, device, distinct_id, scroll_depth,
	CASE WHEN name = '' AND referrer_host <> '' THEN referrer END AS referrer,
	CASE WHEN name NOT IN ('', '_leave', '_identify') THEN data END AS data`;

/** The sessions of CTE `visited` (the events the visit figures count), as CTE `per_session`. */
const SESSIONS = sessionCut("visited", "per_session");

/**
 * The visit breakdowns asked for, as one JSON column of rows {dim, label, visitors, visits}: each
 * session with a page view is labelled once per breakdown (a join with the list of breakdowns),
 * grouped by (breakdown, label), and each breakdown keeps its first ?4 rows. Empty labels (no
 * campaign) are left out. (D1 allows too few terms in a compound SELECT for one UNION ALL arm per
 * breakdown.)
 */
function visitBreakdowns(kinds: readonly VisitBreakdown[]): string {
	const labels = kinds.map((kind) => `WHEN '${kind}' THEN ${VISIT_BREAKDOWNS[kind][0]}`).join(" ");
	return `(SELECT coalesce(json_group_array(json_object('dim', kind, 'label', label, 'visitors', visitors, 'visits', visits) ORDER BY kind, n), '[]')
		FROM (
			SELECT *, row_number() OVER (PARTITION BY kind ORDER BY visits DESC, visitors DESC, label) AS n
			FROM (
				SELECT kind, label, count(DISTINCT visitor_id) AS visitors, count(*) AS visits
				FROM (
					SELECT kinds.value AS kind, CASE kinds.value ${labels} END AS label, visitor_id
					FROM per_session JOIN json_each('${JSON.stringify(kinds)}') AS kinds WHERE entry IS NOT NULL
				)
				WHERE label <> '' GROUP BY kind, label
			)
		)
		WHERE n <= ?4)`;
}

/**
 * One statement that answers `parts` for the events of one range (?1-?4) and the filters:
 * `counted`, the events the event figures count, read once into a temporary table; `visited`,
 * those the visit figures count: the same table, or, when the filters tell them apart (`page`
 * counts that page's events but the visits of its visitors), read again, straight into the
 * session cut. A condition on a list of visitors (`visitor_id IN visitors_…`) lets SQLite read
 * those visitors' events through analytics_events_visitor_idx, in (visitor, time) order, instead
 * of every event of the range. One row: the figures as columns (pageviews, visitors, events,
 * identified, sessions, bounces, engaged_ms), the series (those figures per bucket, engaged_ms
 * the mean of the sessions that began in it, null where none did) and each list a JSON column.
 */
export function statsQuery(filters: CompiledFilters, bucketMs: number, { figures, lists, visits, visitorsNow = false }: StatsParts): string {
	const split = filters.events !== filters.visits;
	const needsSessions = figures || visits.length > 0;
	const eventsWhere = (conditions: string) => `SELECT ${EVENT_COLUMNS} FROM ${filters.from} WHERE ${RANGE}${conditions}`;
	const ctes = [
		...filters.visitorLists,
		`counted AS MATERIALIZED (${eventsWhere(filters.events)})`,
		...(needsSessions
			? filters.sessions
				? [`per_session AS MATERIALIZED (${filters.sessions})`]
				: [`visited AS ${split ? `(${eventsWhere(filters.visits)})` : "(SELECT * FROM counted)"}`, SESSIONS]
			: []),
	];
	// Per bucket, the event figures of the events in it and the visit figures of the sessions that
	// began in it (at their first page view or custom event, where the rollups count them too):
	// one pass over each of the two sets the totals read anyway.
	const bucket = (ts: string) => `(${ts} / ${bucketMs}) * ${bucketMs}`;
	const series = jsonRows(
		["t", "pageviews", "visitors", "sessions", "bounces", "engaged_ms"],
		`SELECT t, sum(pageviews) AS pageviews, sum(visitors) AS visitors, sum(sessions) AS sessions, sum(bounces) AS bounces, sum(engaged_ms) AS engaged_ms
		FROM (
			SELECT ${bucket("ts")} AS t, sum(name = '') AS pageviews, count(DISTINCT visitor_id) AS visitors, 0 AS sessions, 0 AS bounces, NULL AS engaged_ms
			FROM counted WHERE name NOT IN ('_leave', '_identify') GROUP BY 1
			UNION ALL
			SELECT ${bucket("first_visit")}, 0, 0, count(*), sum(pageviews = 1 AND custom = 0), avg(engaged)
			FROM per_session WHERE pageviews + custom > 0 GROUP BY 1
		)
		GROUP BY t`,
		"t",
		"-1",
	);
	const columns = [
		...(figures ? ["event_figures.*", "session_figures.*", `${series} AS series`] : []),
		...lists.map((list) => `${listSql(list, filters)} AS ${list}`),
		...(visits.length > 0 ? [`${visitBreakdowns(visits)} AS visits`] : []),
	];
	const from = figures
		? `FROM (SELECT
				coalesce(sum(name = ''), 0) AS pageviews,
				count(DISTINCT CASE WHEN name NOT IN ('_leave', '_identify') THEN visitor_id END) AS visitors,
				coalesce(sum(name NOT IN ('', '_leave', '_identify')), 0) AS events,
				count(DISTINCT distinct_id) AS identified${visitorsNow ? `,\n\t\t\t\tcount(DISTINCT CASE WHEN ts >= ?${5 + filters.values.length} THEN visitor_id END) AS visitors_now` : ""}
			FROM counted) AS event_figures,
			(SELECT count(*) AS sessions, coalesce(sum(pageviews = 1 AND custom = 0), 0) AS bounces, avg(engaged) AS engaged_ms
			FROM per_session WHERE pageviews + custom > 0) AS session_figures`
		: "";
	return `WITH ${ctes.join(", ")}
	SELECT ${columns.join(",\n\t\t")} ${from}`;
}

/** A list's subquery: the referrer URLs are the `source` filter's, the properties the `event` filter's event's. */
function listSql(list: EventList, filters: CompiledFilters): string {
	if (list === "referrer_urls") return referrerUrls(sourceParam(filters));
	if (list === "event_properties" && filters.params.event) return eventProperties(filters.params.event);
	return EVENT_LIST_SQL[list];
}

/** The placeholder of the `source` filter, which the referrer URLs need. */
function sourceParam(filters: CompiledFilters): string {
	if (!filters.params.source) throw new Error("referrer_urls needs the source filter");
	return filters.params.source;
}

/** Every list and figure: the referrer URLs only with a `source` filter, whose referrers they are. */
const everything = (filters: CompiledFilters): StatsParts => ({
	figures: true,
	lists: filters.params.source ? EVENT_LISTS : EVENT_LISTS.filter((list) => list !== "referrer_urls"),
	visits: ALL_VISIT_BREAKDOWNS,
});
const FIGURES_ONLY: StatsParts = { figures: true, lists: [], visits: [] };

/** The realtime view's series bucket: a minute. */
export const MINUTE_MS = 60_000;

/**
 * Who is on the site now: distinct visitors with any event in the last 5 minutes (?2 = now - 5 min,
 * ?3 = now + 1 ms). The index is named: without ANALYZE's statistics (a database never analyzed)
 * SQLite prefers walking the site's whole visitor index, already in visitor order for DISTINCT,
 * to reading five minutes of events, and that cost 60 ms at a million events.
 */
export const VISITORS_NOW = `SELECT count(DISTINCT visitor_id) AS visitors FROM analytics_events INDEXED BY analytics_events_site_ts_idx WHERE ${RANGE}`;

/**
 * The visitors of one range (?1-?3) under the filters, and per bucket (`series`, JSON rows {t,
 * visitors}): what a conversion rate is out of, under the filters but the goal's (the answer's
 * `conversion_base`). One read of the events the filters keep, no session cut and no list.
 */
export function visitorsQuery(filters: CompiledFilters, bucketMs: number): string {
	const series = jsonRows(["t", "visitors"], `SELECT (ts / ${bucketMs}) * ${bucketMs} AS t, count(DISTINCT visitor_id) AS visitors FROM counted GROUP BY 1`, "t", "-1");
	return `WITH ${[...filters.visitorLists, `counted AS MATERIALIZED (SELECT visitor_id, ts FROM ${filters.from} WHERE ${RANGE} AND name NOT IN ('_leave', '_identify')${filters.events})`].join(", ")}
	SELECT (SELECT count(DISTINCT visitor_id) FROM counted) AS visitors, ${series} AS series`;
}

/** Every statement the statistics answer runs, by name, for the given filters (the query-plan tests read them all). */
export function siteStatsQueries(bucketMs: number, filters: CompiledFilters = compileFilters({})) {
	return {
		stats: statsQuery(filters, bucketMs, everything(filters)),
		previous: statsQuery(filters, bucketMs, FIGURES_ONLY),
		visitorsNow: VISITORS_NOW,
		/** Run over the filters but the goal's, for the conversion rate. */
		visitors: visitorsQuery(filters, bucketMs),
		/** The last 30 minutes by minute, with the visitors now among them (realtimeStats.ts). */
		realtime: statsQuery(filters, MINUTE_MS, { ...everything(filters), visitorsNow: true }),
	};
}

/** The statement's one row, its series and lists read from their JSON. */
// biome-ignore lint/suspicious/noExplicitAny: the row carries the columns its statement selects
export function statsRow([row]: any[]): any {
	const parsed = { ...row };
	for (const column of ["series", "visits", ...EVENT_LISTS]) if (typeof row[column] === "string") parsed[column] = JSON.parse(row[column]);
	return parsed;
}
