/**
 * The analytics_events and analytics_identities tables: batched writes from the SiteCollector's
 * outbox, the dashboard's statistics, the raw event list, identified users, and deletion with
 * the site.
 */
import { eq } from "drizzle-orm";
import { analyticsEvents, analyticsIdentities } from "../../schema";
import type { SiteStatsView } from "../api/sites";
import { database } from "../db";
import { jsonArraysOf } from "../jsonRows";
import { OWNER_LIMITS } from "../limits";
import type { StoredEvent } from "./event";
import { fillSeries, runRangeQueries, STATS_FILTERS, type StatsFilters, type StatsRange } from "./statsRange";

// ---------------------------------------------------------------------------------------------
// Writes: rows travel as JSON arrays unpacked by json_each (see jsonRows.ts). A repeated
// event_id is ignored by the primary key (tracking_id, event_id).

const COLUMNS: Array<[column: string, key: keyof StoredEvent]> = [
	["tracking_id", "trackingId"],
	["event_id", "eventId"],
	["ts", "ts"],
	["name", "name"],
	["data", "data"],
	["url_host", "urlHost"],
	["url_path", "urlPath"],
	["url_query", "urlQuery"],
	["referrer", "referrer"],
	["referrer_host", "referrerHost"],
	["title", "title"],
	["language", "language"],
	["screen", "screen"],
	["visitor_id", "visitorId"],
	["distinct_id", "distinctId"],
	["session_id", "sessionId"],
	["duration", "duration"],
	["seq", "seq"],
	["v", "v"],
	["browser", "browser"],
	["os", "os"],
	["device", "device"],
	["country", "country"],
];

const INSERT_EVENTS = `INSERT OR IGNORE INTO analytics_events (${COLUMNS.map(([c]) => c).join(", ")})
	SELECT ${COLUMNS.map(([, k]) => `value ->> '$.${k}'`).join(", ")} FROM json_each(?1)`;

// `_identify` links the visitor to the site's own user id; seeing the pair again moves last_seen.
const UPSERT_IDENTITIES = `INSERT INTO analytics_identities (tracking_id, visitor_id, distinct_id, first_seen, last_seen)
	SELECT value ->> '$.trackingId', value ->> '$.visitorId', value ->> '$.distinctId', value ->> '$.ts', value ->> '$.ts'
	FROM json_each(?1) WHERE value ->> '$.name' = '_identify' AND value ->> '$.distinctId' IS NOT NULL
	ON CONFLICT (tracking_id, visitor_id, distinct_id) DO UPDATE SET
		first_seen = min(first_seen, excluded.first_seen), last_seen = max(last_seen, excluded.last_seen)`;

export function eventInsertStatements(db: D1Database, events: StoredEvent[]): D1PreparedStatement[] {
	const statements: D1PreparedStatement[] = [];
	for (const chunk of jsonArraysOf(events)) {
		statements.push(db.prepare(INSERT_EVENTS).bind(chunk));
		if (chunk.includes('"name":"_identify"')) statements.push(db.prepare(UPSERT_IDENTITIES).bind(chunk));
	}
	return statements;
}

// ---------------------------------------------------------------------------------------------
// Statistics

/** A new session starts after this long without activity (see the definitions below). */
const SESSION_GAP_MS = 30 * 60 * 1000;

/*
 * Definitions:
 * - pageviews: events with an empty name; events: custom events (any other name except the
 *   reserved `_leave` and `_identify`).
 * - visitors: distinct visitor ids among page views and custom events.
 * - sessions: per visitor, runs of activity with no gap over 30 minutes. Activity is a page
 *   view, a custom event, or a `_leave`, which says the visitor was on its page for the
 *   `duration` seconds before it: 40 minutes of reading followed by a click is one session, not
 *   two bounces. A run of nothing but `_leave`s (its page view was before `from`) is no
 *   session. A bounce is a session of exactly one page view and no custom event.
 * - avg_duration: mean `duration` of `_leave` events, in seconds (time spent on a page).
 * - entry_pages: the first page view of each session.
 * - event_properties: the scalar members of custom events' `event_data` objects, per value.
 * - filters keep only the events that match (a page filter: the events on that page).
 *
 * Cost: every query below is one range scan of analytics_events_site_ts_idx (tracking_id, ts),
 * reading each event of the site in [from, to) once; GROUP BY and COUNT(DISTINCT) sort in a
 * temporary b-tree, the sessions query sorts by (visitor, ts) for its window functions. All
 * run in one D1 batch, one round trip. Linear in the events of the range: fine for the ranges a
 * dashboard asks for; rollup tables are the step after this if sites grow very large.
 */
const label = (column: string) => `coalesce(nullif(${column}, ''), 'Unknown')`;

// Breakdown filters are ?5-?10 (null: not filtered), checked per event of the range scan.
const FILTERS = `(?5 IS NULL OR url_path = ?5) AND (?6 IS NULL OR referrer_host = ?6) AND (?7 IS NULL OR ${label("country")} = ?7)
	AND (?8 IS NULL OR ${label("browser")} = ?8) AND (?9 IS NULL OR ${label("os")} = ?9) AND (?10 IS NULL OR ${label("device")} = ?10)`;
const RANGE = `tracking_id = ?1 AND ts >= ?2 AND ts < ?3 AND ${FILTERS}`;
const VISITS = `${RANGE} AND name NOT IN ('_leave', '_identify')`;
const PAGEVIEWS = `${RANGE} AND name = ''`;
const CUSTOM = `${RANGE} AND name NOT IN ('', '_leave', '_identify')`;
const ACTIVITY = `${RANGE} AND name <> '_identify'`;

const breakdown = (column: string, as: string) =>
	`SELECT ${label(column)} AS ${as}, count(DISTINCT visitor_id) AS visitors, count(*) AS pageviews
	FROM analytics_events WHERE ${PAGEVIEWS} GROUP BY 1 ORDER BY visitors DESC, pageviews DESC, 1 LIMIT ?4`;

/** Each event of the range's activity numbered with its visitor's session (shared by sessions and entry pages). */
const SESSIONS = `marked AS (
			SELECT visitor_id, ts, name, url_path,
				CASE WHEN ts - (CASE WHEN name = '_leave' THEN coalesce(duration, 0) * 1000 ELSE 0 END)
					- lag(ts) OVER (PARTITION BY visitor_id ORDER BY ts) <= ${SESSION_GAP_MS} THEN 0 ELSE 1 END AS starts
			FROM analytics_events WHERE ${ACTIVITY}
		), numbered AS (
			SELECT visitor_id, ts, name, url_path, sum(starts) OVER (PARTITION BY visitor_id ORDER BY ts ROWS UNBOUNDED PRECEDING) AS session
			FROM marked
		)`;

export const siteStatsQueries = (bucketMs: number) => ({
	totals: `SELECT
			coalesce(sum(name = ''), 0) AS pageviews,
			count(DISTINCT CASE WHEN name NOT IN ('_leave', '_identify') THEN visitor_id END) AS visitors,
			coalesce(sum(name NOT IN ('', '_leave', '_identify')), 0) AS events,
			avg(CASE WHEN name = '_leave' THEN duration END) AS avg_duration,
			count(DISTINCT distinct_id) AS identified
		FROM analytics_events WHERE ${RANGE}`,
	sessions: `WITH ${SESSIONS}, per_session AS (
			SELECT sum(name = '') AS pageviews, sum(name NOT IN ('', '_leave')) AS custom FROM numbered GROUP BY visitor_id, session
		)
		SELECT count(*) AS sessions, coalesce(sum(pageviews = 1 AND custom = 0), 0) AS bounces
		FROM per_session WHERE pageviews + custom > 0`,
	series: `SELECT (ts / ${bucketMs}) * ${bucketMs} AS t, sum(name = '') AS pageviews, count(DISTINCT visitor_id) AS visitors
		FROM analytics_events WHERE ${VISITS} GROUP BY 1`,
	topPages: `SELECT url_path AS path, count(*) AS pageviews, count(DISTINCT visitor_id) AS visitors
		FROM analytics_events WHERE ${PAGEVIEWS} GROUP BY 1 ORDER BY pageviews DESC, visitors DESC, 1 LIMIT ?4`,
	topReferrers: `SELECT referrer_host AS referrer, count(DISTINCT visitor_id) AS visitors, count(*) AS pageviews
		FROM analytics_events WHERE ${PAGEVIEWS} AND referrer_host <> '' GROUP BY 1 ORDER BY visitors DESC, pageviews DESC, 1 LIMIT ?4`,
	countries: breakdown("country", "country"),
	browsers: breakdown("browser", "browser"),
	os: breakdown("os", "os"),
	devices: breakdown("device", "device"),
	customEvents: `SELECT name, count(*) AS events, count(DISTINCT visitor_id) AS visitors
		FROM analytics_events WHERE ${CUSTOM} GROUP BY 1 ORDER BY events DESC, visitors DESC, 1 LIMIT ?4`,
	entryPages: `WITH ${SESSIONS}, entries AS (
			SELECT url_path, visitor_id, row_number() OVER (PARTITION BY visitor_id, session ORDER BY ts) AS n FROM numbered WHERE name = ''
		)
		SELECT url_path AS path, count(*) AS entries, count(DISTINCT visitor_id) AS visitors
		FROM entries WHERE n = 1 GROUP BY 1 ORDER BY entries DESC, visitors DESC, 1 LIMIT ?4`,
	// Invalid JSON or a non-object is read as no properties rather than failing the dashboard.
	eventProperties: `SELECT name, p.key AS property, CAST(p.value AS TEXT) AS value, count(*) AS events
		FROM analytics_events,
			json_each(coalesce(CASE WHEN json_valid(data) THEN CASE WHEN json_type(data) = 'object' THEN data END END, '{}')) AS p
		WHERE ${CUSTOM} AND p.type NOT IN ('object', 'array')
		GROUP BY 1, 2, 3 ORDER BY events DESC, 1, 2, 3 LIMIT ?4 * 5`,
});

export async function computeSiteStats(env: Env, trackingId: string, range: StatsRange, filters: StatsFilters = {}): Promise<SiteStatsView> {
	const filterValues = STATS_FILTERS.map((name) => filters[name] ?? null);
	const rows = await runRangeQueries(env, siteStatsQueries(range.bucketMs), trackingId, range, filterValues);
	const totals = rows.totals[0];
	const { sessions, bounces } = rows.sessions[0];
	return {
		from: new Date(range.from).toISOString(),
		to: new Date(range.to).toISOString(),
		pageviews: totals.pageviews,
		visitors: totals.visitors,
		sessions,
		events: totals.events,
		identified_visitors: totals.identified,
		/** Share of sessions that bounced, 0 to 1. */
		bounce_rate: sessions > 0 ? Math.round((bounces / sessions) * 10_000) / 10_000 : 0,
		/** Seconds, one decimal. */
		avg_duration: totals.avg_duration === null ? 0 : Math.round(totals.avg_duration * 10) / 10,
		series: fillSeries(range, rows.series, { pageviews: 0, visitors: 0 }),
		top_pages: rows.topPages,
		top_referrers: rows.topReferrers,
		countries: rows.countries,
		browsers: rows.browsers,
		os: rows.os,
		devices: rows.devices,
		custom_events: rows.customEvents,
		entry_pages: rows.entryPages,
		event_properties: rows.eventProperties,
	};
}

// ---------------------------------------------------------------------------------------------
// The raw events, newest first: walks analytics_events_site_ts_idx backwards from `to` and stops
// at `limit` rows.

export const LIST_EVENTS = `SELECT event_id, ts, name, data, url_host, url_path, url_query, referrer, title, language, screen,
		visitor_id, distinct_id, session_id, duration, seq, v, browser, os, device, country
	FROM analytics_events WHERE tracking_id = ?1 AND ts >= ?2 AND ts < ?3 ORDER BY ts DESC, event_id LIMIT ?4`;

export async function listSiteEvents(env: Env, trackingId: string, range: Pick<StatsRange, "from" | "to">, limit: number) {
	const { results } = await env.DB.prepare(LIST_EVENTS)
		.bind(trackingId, range.from, range.to, Math.min(limit, OWNER_LIMITS.analyticsEvents))
		.all<Record<string, unknown> & { ts: number }>();
	return results.map((event) => ({ ...event, ts: new Date(event.ts).toISOString() }));
}

// ---------------------------------------------------------------------------------------------
// Identified users: `_identify` links a visitor to the site's own user id.

export const LIST_IDENTITIES = `SELECT distinct_id, count(*) AS visitors, min(first_seen) AS first_seen, max(last_seen) AS last_seen
	FROM analytics_identities WHERE tracking_id = ?1 GROUP BY distinct_id ORDER BY last_seen DESC, distinct_id LIMIT ?2`;

/** The site's identified users, most recently seen first, each with how many visitor ids it was seen under. */
export async function listIdentities(env: Env, trackingId: string, limit: number) {
	const { results } = await env.DB.prepare(LIST_IDENTITIES)
		.bind(trackingId, limit)
		.all<{ distinct_id: string; visitors: number; first_seen: number; last_seen: number }>();
	return results.map((row) => ({ ...row, first_seen: new Date(row.first_seen).toISOString(), last_seen: new Date(row.last_seen).toISOString() }));
}

/** Everything the site collected; called once its collector has forgotten the site. */
export async function deleteSiteEvents(env: Env, trackingId: string): Promise<void> {
	const db = database(env);
	await db.batch([
		db.delete(analyticsEvents).where(eq(analyticsEvents.trackingId, trackingId)),
		db.delete(analyticsIdentities).where(eq(analyticsIdentities.trackingId, trackingId)),
	]);
}
