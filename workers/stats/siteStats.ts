import type { IRequest } from "itty-router";
import { json } from "../http";
import { ownSiteUpToDate } from "./ownSite";
import { fillSeries, readRange, type StatsRange } from "./range";

/** A new session starts after this long without activity (see the definitions below). */
export const SESSION_GAP_MS = 30 * 60 * 1000;

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
 *
 * Cost: every query below is one range scan of analytics_events_site_ts_idx (tracking_id, ts),
 * reading each event of the site in [from, to) once; GROUP BY and COUNT(DISTINCT) sort in a
 * temporary b-tree, the sessions query sorts by (visitor, ts) for its window functions. All
 * run in one D1 batch, one round trip. Linear in the events of the range: fine for the ranges a
 * dashboard asks for; rollup tables are the step after this if sites grow very large.
 */
const RANGE = `tracking_id = ?1 AND ts >= ?2 AND ts < ?3`;
const VISITS = `${RANGE} AND name NOT IN ('_leave', '_identify')`;
const PAGEVIEWS = `${RANGE} AND name = ''`;
const CUSTOM = `${RANGE} AND name NOT IN ('', '_leave', '_identify')`;
const ACTIVITY = `${RANGE} AND name <> '_identify'`;

const label = (column: string) => `coalesce(nullif(${column}, ''), 'Unknown')`;

const breakdown = (column: string, as: string) =>
	`SELECT ${label(column)} AS ${as}, count(DISTINCT visitor_id) AS visitors, count(*) AS pageviews
	FROM analytics_events WHERE ${PAGEVIEWS} GROUP BY 1 ORDER BY visitors DESC, pageviews DESC, 1 LIMIT ?4`;

export const siteStatsQueries = (bucketMs: number) => ({
	totals: `SELECT
			coalesce(sum(name = ''), 0) AS pageviews,
			count(DISTINCT CASE WHEN name NOT IN ('_leave', '_identify') THEN visitor_id END) AS visitors,
			coalesce(sum(name NOT IN ('', '_leave', '_identify')), 0) AS events,
			avg(CASE WHEN name = '_leave' THEN duration END) AS avg_duration,
			count(DISTINCT distinct_id) AS identified
		FROM analytics_events WHERE ${RANGE}`,
	sessions: `WITH marked AS (
			SELECT visitor_id, ts, name,
				CASE WHEN ts - (CASE WHEN name = '_leave' THEN coalesce(duration, 0) * 1000 ELSE 0 END)
					- lag(ts) OVER (PARTITION BY visitor_id ORDER BY ts) <= ${SESSION_GAP_MS} THEN 0 ELSE 1 END AS starts
			FROM analytics_events WHERE ${ACTIVITY}
		), numbered AS (
			SELECT visitor_id, name, sum(starts) OVER (PARTITION BY visitor_id ORDER BY ts ROWS UNBOUNDED PRECEDING) AS session
			FROM marked
		), per_session AS (
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
});

/** Binds ?1-?3 (site and range) and ?4 (list limit) when the statement has it: SQLite refuses extra bindings. */
export function bindRange(statement: D1PreparedStatement, sql: string, trackingId: string, range: StatsRange) {
	return sql.includes("?4") ? statement.bind(trackingId, range.from, range.to, range.limit) : statement.bind(trackingId, range.from, range.to);
}

export async function computeSiteStats(env: Env, trackingId: string, range: StatsRange) {
	const q = siteStatsQueries(range.bucketMs);
	const names = Object.keys(q) as Array<keyof typeof q>;
	const results = await env.DB.batch(
		names.map((name) => bindRange(env.DB.prepare(q[name]), q[name], trackingId, range)),
	);
	const rows = Object.fromEntries(names.map((name, i) => [name, results[i].results])) as Record<keyof typeof q, any[]>;
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
	};
}

/** GET /api/sites/:tracking_id/stats?from=&to=&limit= (DESIGN.md 5.5). */
export async function siteStats(request: IRequest, env: Env): Promise<Response> {
	const range = readRange(request.query);
	const site = await ownSiteUpToDate(request, env);
	return json(await computeSiteStats(env, site.trackingId, range));
}
