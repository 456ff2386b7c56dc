/**
 * analytics_rollups: the statistics pre-summed per site, breakdown, hour (and UTC day) and label,
 * so the unfiltered dashboard reads a row per label and hour or day instead of every event.
 *
 * Every counter is a sum over single events or sessions, each counted at one moment (its "fact
 * time"), with what it counts decided by the visitor's whole UTC day of events:
 * - page views, custom events: at their own time.
 * - visitors (per label): a visitor counts at their first event of the UTC day with that label
 *   (the site as a whole: their first page view or custom event of the day); `hour_visitors`
 *   likewise per hour, for hourly series. So a range's visitors are the distinct (visitor, day)
 *   pairs first seen in it: the visitor id rotates every UTC day anyway unless the tracker sends
 *   its own, and a visitor seen on two days counts twice, as Plausible counts them.
 * - sessions (visits): cut per visitor and UTC day by 30 minutes without activity, as the raw
 *   statistics define them (eventStore.ts); a session counts at its first page view or custom
 *   event, with its whole bounce, engaged time, entry and exit page, source and campaign.
 * - per page: the engaged time and the deepest scroll each visitor reported for it that day, at
 *   that visitor's first event of the page that day (a view or a report).
 *
 * Writing: a visitor's day is the unit. Each flush adds the difference its new events make to
 * the contributions of the visitor days they fall in, computed in memory by the collector
 * (rollupWriter.ts, visitorDayFacts.ts), in the batch's one transaction. The SQL below computes
 * the same contributions from stored events: the migration that created the rollups filled them
 * with it, and the tests check the two agree.
 *
 * Reading: a range is counted in whole UTC hours (wholeHours): its whole days from the day rows,
 * the hours either side of them from the hour rows.
 */
import { DIRECT, IS_PROPERTY, propertiesOf, type StatsRange } from "./statsRange";

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
/** A new session starts after this long without activity. */
export const SESSION_GAP_MS = 30 * 60 * 1000;
/** Engaged time of a `_leave`: the current tracker's engaged_ms, or an older tracker's duration in seconds. */
export const ENGAGED_MS = "coalesce(engaged_ms, duration * 1000)";

/** Breakdowns counted from single events: dim → [which events count, their label]. "" is the site as a whole. */
const EVENT_DIMS = {
	"": ["visit", "''"],
	pages: ["name IN ('', '_leave')", "url_path"],
	referrers: ["name = '' AND referrer_host <> ''", "referrer_host"],
	countries: ["name = ''", "coalesce(nullif(country, ''), 'Unknown')"],
	browsers: ["name = ''", "coalesce(nullif(browser, ''), 'Unknown')"],
	os: ["name = ''", "coalesce(nullif(os, ''), 'Unknown')"],
	devices: ["name = ''", "coalesce(nullif(device, ''), 'Unknown')"],
	custom_events: ["visit AND name <> ''", "name"],
	identified: ["distinct_id IS NOT NULL", "distinct_id"],
} as const;

/**
 * Breakdowns of visits, by their first page view (entry) or last (exit): name → [the label's SQL
 * over a session row (here and in eventStore.ts's `visit` rows), the row's key].
 */
export const VISIT_BREAKDOWNS = {
	entry_pages: ["entry ->> '$[0]'", "path"],
	exit_pages: ["exit_path", "path"],
	sources: [`coalesce(nullif(entry ->> '$[1]', ''), '${DIRECT}')`, "source"],
	utm_source: ["entry ->> '$[2]'", "utm_source"],
	utm_medium: ["entry ->> '$[3]'", "utm_medium"],
	utm_campaign: ["entry ->> '$[4]'", "utm_campaign"],
	utm_content: ["entry ->> '$[5]'", "utm_content"],
	utm_term: ["entry ->> '$[6]'", "utm_term"],
	ref: ["entry ->> '$[7]'", "ref"],
} as const;
export type VisitBreakdown = keyof typeof VISIT_BREAKDOWNS;

/** A session's `entry`: its first page view's path, source, campaign and ref, as the labels above index it. */
export const ENTRY = "json_array(url_path, source, utm_source, utm_medium, utm_campaign, utm_content, utm_term, ref)";

export const COUNTERS = [
	"visitors",
	"hour_visitors",
	"pageviews",
	"events",
	"visits",
	"bounces",
	"engaged_ms",
	"engaged_n",
	"depth_sum",
	"depth_n",
] as const;

const caseOf = (column: string, cases: Record<string, string>, otherwise = "NULL") =>
	`CASE ${column} ${Object.entries(cases)
		.map(([when, then]) => `WHEN '${when}' THEN ${then}`)
		.join(" ")} ELSE ${otherwise} END`;
const mapValues = <T, U>(record: Record<string, T>, f: (value: T) => U) => Object.fromEntries(Object.entries(record).map(([k, v]) => [k, f(v)]));

/**
 * The facts of the given visitor days, one row per (fact time, dim, label) contribution with
 * its counters (columns `tracking_id`, `ts`, `dim`, `label`, then COUNTERS). `touched` selects
 * (tracking_id, visitor_id, day) rows; each visitor's whole day of events is read.
 */
function factsCte(touched: string): string {
	const eventDims = JSON.stringify(Object.keys(EVENT_DIMS));
	const visitDims = JSON.stringify(["", ...Object.keys(VISIT_BREAKDOWNS)]);
	const day = "tracking_id, visitor_id, day";
	// Sorting is most of the cost: each step sorts once (one window definition), and only the columns it
	// needs. `ranked` marks the first counted event of the day with each label (for pages, the first
	// page view) and the first of each hour.
	return `WITH touched AS MATERIALIZED (${touched}),
	e AS MATERIALIZED (
		SELECT a.tracking_id, a.visitor_id, t.day, a.ts, a.event_id, a.name, a.url_path, a.referrer_host, a.source,
			a.utm_source, a.utm_medium, a.utm_campaign, a.utm_content, a.utm_term, a.ref, a.country, a.browser, a.os, a.device,
			a.distinct_id, a.data, a.scroll_depth,
			CASE WHEN a.name = '_leave' THEN coalesce(a.engaged_ms, a.duration * 1000) END AS engaged,
			a.name NOT IN ('_leave', '_identify') AS visit
		FROM touched AS t CROSS JOIN analytics_events AS a
			ON a.tracking_id = t.tracking_id AND a.visitor_id = t.visitor_id AND a.ts >= t.day AND a.ts < t.day + ${DAY_MS}
	), labelled AS (
		SELECT ${day}, ts, event_id, d.value AS dim, ${caseOf("d.value", mapValues(EVENT_DIMS, ([, label]) => label))} AS label,
			(d.value <> 'pages' OR name = '') AS counted, name = '' AS pageview,
			CASE WHEN d.value = 'identified' THEN 1 ELSE visit AND name <> '' END AS events
		FROM e JOIN json_each('${eventDims}') AS d
		WHERE ${caseOf("d.value", mapValues(EVENT_DIMS, ([when]) => when))}
	), ranked AS (
		SELECT *, counted AND sum(counted) OVER w = 1 AS first_of_day, lag(ts / ${HOUR_MS}) OVER w IS NOT ts / ${HOUR_MS} AS first_of_hour
		FROM labelled WINDOW w AS (PARTITION BY ${day}, dim, label ORDER BY ts, event_id ROWS UNBOUNDED PRECEDING)
	), page_groups AS (
		SELECT tracking_id, min(ts) AS ts, url_path, sum(engaged) AS engaged, max(scroll_depth) AS depth
		FROM e WHERE name IN ('', '_leave') GROUP BY ${day}, url_path
	), marked AS (
		SELECT ${day}, ts, event_id, name, visit, engaged, url_path, source, utm_source, utm_medium, utm_campaign, utm_content, utm_term, ref,
			CASE WHEN ts - coalesce(engaged, 0) - lag(ts) OVER (PARTITION BY ${day} ORDER BY ts, event_id) <= ${SESSION_GAP_MS}
			THEN 0 ELSE 1 END AS starts
		FROM e WHERE name <> '_identify'
	), numbered AS (
		SELECT *, sum(starts) OVER (PARTITION BY ${day} ORDER BY ts, event_id ROWS UNBOUNDED PRECEDING) AS session FROM marked
	), sessions AS (
		SELECT ${day}, min(CASE WHEN visit THEN ts END) AS first_visit, sum(name = '') AS pageviews, sum(visit AND name <> '') AS custom,
			coalesce(sum(engaged), 0) AS engaged,
			substr(min(CASE WHEN name = '' THEN printf('%015d', ts) || ${ENTRY} END), 16) AS entry,
			substr(max(CASE WHEN name = '' THEN printf('%015d', ts) || url_path END), 16) AS exit_path
		FROM numbered GROUP BY ${day}, session HAVING first_visit IS NOT NULL
	), session_labels AS (
		SELECT ${day}, first_visit, pageviews = 1 AND custom = 0 AS bounce, engaged, k.value AS dim,
			${caseOf("k.value", mapValues(VISIT_BREAKDOWNS, ([label]) => label), "''")} AS label
		FROM sessions AS s JOIN json_each('${visitDims}') AS k
		WHERE k.value = '' OR s.pageviews > 0
	), session_facts AS (
		SELECT *, row_number() OVER (PARTITION BY ${day}, dim, label ORDER BY first_visit) AS nth FROM session_labels WHERE dim = '' OR label <> ''
	), facts AS (
		SELECT tracking_id, ts, dim, label, first_of_day AS visitors, dim = '' AND first_of_hour AS hour_visitors,
			pageview AS pageviews, events, 0 AS visits, 0 AS bounces, 0 AS engaged_ms, 0 AS engaged_n, 0 AS depth_sum, 0 AS depth_n
		FROM ranked
		UNION ALL
		SELECT tracking_id, ts, 'pages', url_path, 0, 0, 0, 0, 0, 0, coalesce(engaged, 0), engaged IS NOT NULL, coalesce(depth, 0), depth IS NOT NULL
		FROM page_groups
		UNION ALL
		SELECT tracking_id, first_visit, dim, label, dim <> '' AND nth = 1, 0, 0, 0, 1, dim = '' AND bounce, CASE WHEN dim = '' THEN engaged ELSE 0 END, 0, 0, 0
		FROM session_facts
		UNION ALL
		SELECT e.tracking_id, e.ts, 'event_properties', json_array(e.name, p.key, CAST(p.value AS TEXT)), 0, 0, 0, 1, 0, 0, 0, 0, 0, 0
		FROM e, ${propertiesOf("data")} AS p
		WHERE e.visit AND e.name <> '' AND ${IS_PROPERTY}
	)`;
}

/** The end of an insert into a rollup table (this one or crawler_rollups) that adds each of `counters` to a row already there. */
export const addingToRollupRows = (counters: readonly string[]) => `ON CONFLICT (tracking_id, dim, span, start, value) DO UPDATE SET
		${counters.map((c) => `${c} = ${c} + excluded.${c}`).join(", ")}`;

/**
 * Every visitor day of every site: the migration that created the rollups filled them with this,
 * and the benchmark's seed does the same.
 */
export const ROLLUP_BACKFILL = `${factsCte(`SELECT DISTINCT tracking_id, visitor_id, (ts / ${DAY_MS}) * ${DAY_MS} AS day FROM analytics_events`)}
	INSERT INTO analytics_rollups (tracking_id, dim, span, start, value, ${COUNTERS.join(", ")})
	SELECT tracking_id, dim, s.value, (ts / s.value) * s.value, label, ${COUNTERS.map((c) => `1 * sum(${c})`).join(", ")}
	FROM facts JOIN json_each('[${HOUR_MS},${DAY_MS}]') AS s WHERE true GROUP BY 1, 2, 3, 4, 5
	${addingToRollupRows(COUNTERS)}`;

// ---------------------------------------------------------------------------------------------
// Reading

/**
 * The range the statistics count: the whole UTC hours `range` touches (from the start of the hour
 * of `from` to the end of the hour of `to`'s last millisecond). Hours are the rollups' resolution;
 * a range that ends now takes in the hour under way, everything collected so far.
 */
export function wholeHours(range: StatsRange): StatsRange {
	return { ...range, from: Math.floor(range.from / HOUR_MS) * HOUR_MS, to: Math.ceil(range.to / HOUR_MS) * HOUR_MS };
}

/** The pieces of a range of whole hours: hour rows in [from, dayFrom) and [dayTo, to), day rows in [dayFrom, dayTo). */
function rollupPieces({ from, to }: StatsRange) {
	const dayFrom = Math.min(Math.ceil(from / DAY_MS) * DAY_MS, to);
	const dayTo = Math.max(Math.floor(to / DAY_MS) * DAY_MS, dayFrom);
	return { dayFrom, dayTo };
}

/**
 * The rows of a rollup table (this one, or crawler_rollups) of the given dims in the range, as
 * CTE `name` (start, dim, value, counters): ?1 the site, ?2 from, ?3 to (whole hours), ?4 the
 * list limit, ?5 dayFrom, ?6 dayTo (rollupParams). `hoursOnly`: every hour from hour rows (the
 * hourly detail a series needs). `sites`: a statement selecting the tracking IDs to read, in place
 * of ?1 the site, the rows then carrying their tracking_id.
 */
export function rollupRowsOf(
	table: string,
	counters: readonly string[],
	dims: readonly string[],
	{ hoursOnly = false, name = "r", sites = "" } = {},
): string {
	const dimIn = dims.map((d) => `'${d}'`).join(", ");
	const site = sites ? `tracking_id IN (${sites})` : "tracking_id = ?1";
	const stored = (span: number, from: string, to: string) =>
		`SELECT ${sites ? "tracking_id, " : ""}start, dim, value, ${counters.join(", ")} FROM ${table}
		WHERE ${site} AND dim IN (${dimIn}) AND span = ${span} AND start >= ${from} AND start < ${to}`;
	const pieces = hoursOnly
		? [stored(HOUR_MS, "?2", "?3")]
		: [stored(HOUR_MS, "?2", "?5"), stored(DAY_MS, "?5", "?6"), stored(HOUR_MS, "?6", "?3")];
	return `${name} AS (${pieces.join("\n\t\tUNION ALL ")})`;
}

const rollupRows = (dims: readonly string[], options: { hoursOnly?: boolean } = {}) => rollupRowsOf("analytics_rollups", COUNTERS, dims, options);

/** Breakdowns of single events answered by one statement: dim → the key of a row's label. */
const EVENT_BREAKDOWNS = {
	referrers: "referrer",
	countries: "country",
	browsers: "browser",
	os: "os",
	devices: "device",
	custom_events: "name",
} as const;
export type EventBreakdown = keyof typeof EVENT_BREAKDOWNS;

/** Rows {dim, label, visitors, pageviews, events} of the `breakdowns` statement → per dim, rows keyed as the breakdown names them. */
export function splitBreakdownRows(rows: Array<{ dim: EventBreakdown; label: string; visitors: number; pageviews: number; events: number }>) {
	const byDim = Object.fromEntries(Object.keys(EVENT_BREAKDOWNS).map((dim) => [dim, [] as object[]])) as Record<EventBreakdown, object[]>;
	for (const { dim, label, visitors, pageviews, events } of rows) {
		byDim[dim].push(dim === "custom_events" ? { name: label, events, visitors } : { [EVENT_BREAKDOWNS[dim]]: label, visitors, pageviews });
	}
	return byDim;
}

interface Dims {
	visits?: readonly VisitBreakdown[];
	events?: readonly EventBreakdown[];
}

/**
 * The unfiltered statistics' statements (the query-plan tests read them all), for the given
 * breakdowns (default all). Several breakdowns share a statement: each statement a D1 batch
 * runs costs a few milliseconds on its own.
 */
export function rollupQueries(bucketMs: number, dims: Dims = {}) {
	const visitDims = dims.visits ?? (Object.keys(VISIT_BREAKDOWNS) as VisitBreakdown[]);
	const eventDims = dims.events ?? (Object.keys(EVENT_BREAKDOWNS) as EventBreakdown[]);
	/** Each group's first ?4 rows, most first (`by`: the ORDER BY terms over the grouped rows). */
	const topPerDim = (grouped: string, by: string) =>
		`SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY dim ORDER BY ${by}) AS n FROM (${grouped})) WHERE n <= ?4 ORDER BY dim, n`;
	return {
		totals: `WITH ${rollupRows(["", "identified"])}
			SELECT coalesce(sum(CASE WHEN dim = '' THEN pageviews END), 0) AS pageviews,
				coalesce(sum(CASE WHEN dim = '' THEN visitors END), 0) AS visitors,
				coalesce(sum(CASE WHEN dim = '' THEN events END), 0) AS events,
				count(DISTINCT CASE WHEN dim = 'identified' AND events > 0 THEN value END) AS identified,
				coalesce(sum(CASE WHEN dim = '' THEN visits END), 0) AS sessions,
				coalesce(sum(CASE WHEN dim = '' THEN bounces END), 0) AS bounces,
				sum(CASE WHEN dim = '' THEN engaged_ms END) * 1.0 / nullif(sum(CASE WHEN dim = '' THEN visits END), 0) AS engaged_ms
			FROM r`,
		series: `WITH ${rollupRows([""], { hoursOnly: true })}
			SELECT (start / ${bucketMs}) * ${bucketMs} AS t, sum(pageviews) AS pageviews, sum(${bucketMs === HOUR_MS ? "hour_visitors" : "visitors"}) AS visitors,
				sum(visits) AS sessions, sum(bounces) AS bounces, sum(engaged_ms) * 1.0 / nullif(sum(visits), 0) AS engaged_ms
			FROM r GROUP BY 1`,
		// Pages rank as the events' list does (eventStats.ts): visitors first.
		pages: `WITH ${rollupRows(["pages"])}
			SELECT value AS path, sum(pageviews) AS pageviews, sum(visitors) AS visitors,
				CAST(round(sum(depth_sum) * 1.0 / nullif(sum(depth_n), 0)) AS INTEGER) AS scroll_depth,
				round(sum(engaged_ms) * 1.0 / nullif(sum(engaged_n), 0) / 1000.0, 1) AS time_on_page
			FROM r GROUP BY 1 HAVING sum(pageviews) > 0 ORDER BY visitors DESC, pageviews DESC, 1 LIMIT ?4`,
		// Custom events rank by events, the others by visitors; each keeps the labels that counted anything.
		breakdowns: `WITH ${rollupRows(eventDims)}
			${topPerDim(
				`SELECT dim, value AS label, sum(visitors) AS visitors, sum(pageviews) AS pageviews, sum(events) AS events FROM r
				GROUP BY 1, 2 HAVING sum(CASE WHEN dim = 'custom_events' THEN events ELSE pageviews END) > 0`,
				`CASE WHEN dim = 'custom_events' THEN events ELSE visitors END DESC,
				CASE WHEN dim = 'custom_events' THEN visitors ELSE pageviews END DESC, label`,
			)}`,
		event_properties: `WITH ${rollupRows(["event_properties"])}
			SELECT value ->> 0 AS name, value ->> 1 AS property, value ->> 2 AS value, sum(events) AS events
			FROM r GROUP BY r.value HAVING sum(events) > 0 AND value ->> 2 IS NOT NULL ORDER BY events DESC, 1, 2, 3 LIMIT ?4 * 5`,
		visits: `WITH ${rollupRows(visitDims)}
			${topPerDim(
				"SELECT dim, value AS label, sum(visitors) AS visitors, sum(visits) AS visits FROM r GROUP BY 1, 2 HAVING sum(visits) > 0",
				"visits DESC, visitors DESC, label",
			)}`,
	};
}

/**
 * The visitors of every site of an owner (?1 the owner, ?2 from, ?3 to: whole hours), per site and
 * hour, from the hour rows: `visitors` adds up to the range's visitors as the dashboard counts them
 * (`totals`), `hour_visitors` is an hour's own, as its hourly series shows. Through sites_user_idx,
 * then each site's rows in key order.
 */
export const OWNER_SITES_HOURS = `WITH ${rollupRowsOf("analytics_rollups", ["visitors", "hour_visitors"], [""], {
	hoursOnly: true,
	sites: "SELECT tracking_id FROM sites WHERE user_id = ?1",
})}
	SELECT tracking_id, start AS t, visitors, hour_visitors FROM r`;

/** Page views and custom events in the range (?1-?6 as rollupParams binds them): what a filtered answer would read, about. */
export const ROLLUP_EVENT_COUNT = `WITH ${rollupRows([""])} SELECT coalesce(sum(pageviews + events), 0) AS events FROM r`;

/** ?1-?6 of the read queries, for a range of whole hours (see wholeHours). */
export function rollupParams(trackingId: string, range: StatsRange): unknown[] {
	const { dayFrom, dayTo } = rollupPieces(range);
	return [trackingId, range.from, range.to, range.limit, dayFrom, dayTo];
}
