/**
 * The crawler_visits table: batched writes from the SiteCollector's outbox, the crawler
 * statistics, and deletion with the site.
 */
import { eq } from "drizzle-orm";
import { crawlerVisits } from "../../schema";
import type { CrawlerStatsView } from "../api/sites";
import { fillSeries, runRangeQueries, type StatsRange } from "../analytics/statsRange";
import { database } from "../db";
import { jsonArraysOf } from "../jsonRows";
import { OWNER_LIMITS } from "../limits";
import { crawlerNamed } from "./crawlers";

/** One stored crawler visit (crawler_visits). */
export interface StoredVisit {
	id: string;
	trackingId: string;
	ts: number;
	crawler: string;
	urlHost: string | null;
	urlPath: string;
	country: string;
	status: number;
	ua: string;
}

// Rows travel as JSON arrays unpacked by json_each (see jsonRows.ts).
const INSERT_VISITS = `INSERT OR IGNORE INTO crawler_visits (id, tracking_id, ts, crawler, url_host, url_path, country, status, ua)
	SELECT value ->> '$.id', value ->> '$.trackingId', value ->> '$.ts', value ->> '$.crawler', value ->> '$.urlHost',
		value ->> '$.urlPath', value ->> '$.country', value ->> '$.status', value ->> '$.ua'
	FROM json_each(?1)`;

export function visitInsertStatements(db: D1Database, visits: StoredVisit[]): D1PreparedStatement[] {
	return jsonArraysOf(visits).map((chunk) => db.prepare(INSERT_VISITS).bind(chunk));
}

// ---------------------------------------------------------------------------------------------
// Statistics

/*
 * Cost: each query is one range scan of crawler_visits_site_ts_idx (tracking_id, ts) over the
 * visits in [from, to); `recent` walks the same index backwards and stops after 50 rows, no sort.
 * One D1 batch, one round trip.
 */
const RANGE = `tracking_id = ?1 AND ts >= ?2 AND ts < ?3`;

export const crawlerStatsQueries = (bucketMs: number) => ({
	crawlers: `SELECT crawler AS name, count(*) AS visits FROM crawler_visits WHERE ${RANGE} GROUP BY 1 ORDER BY visits DESC, 1`,
	topPaths: `SELECT url_path AS path, count(*) AS visits FROM crawler_visits WHERE ${RANGE} GROUP BY 1 ORDER BY visits DESC, 1 LIMIT ?4`,
	statuses: `SELECT status, count(*) AS visits FROM crawler_visits WHERE ${RANGE} GROUP BY 1 ORDER BY visits DESC, 1`,
	series: `SELECT (ts / ${bucketMs}) * ${bucketMs} AS t, count(*) AS visits FROM crawler_visits WHERE ${RANGE} GROUP BY 1`,
	recent: `SELECT crawler, url_host, url_path, country, status, ts FROM crawler_visits WHERE ${RANGE}
		ORDER BY ts DESC, id LIMIT ${OWNER_LIMITS.recentCrawlerVisits}`,
	// AI reads beside human page views, per path: the `limit` paths most read by crawlers and the
	// `limit` most viewed by people. The one read of analytics_events outside its store, since
	// the figure is the comparison; one range scan of each table's (tracking_id, ts) index.
	pages: `WITH per_path AS (
			SELECT path, sum(reads) AS crawler_visits, sum(views) AS pageviews FROM (
				SELECT url_path AS path, count(*) AS reads, 0 AS views FROM crawler_visits WHERE ${RANGE} GROUP BY 1
				UNION ALL
				SELECT url_path, 0, count(*) FROM analytics_events WHERE ${RANGE} AND name = '' GROUP BY 1
			) GROUP BY path
		), ranked AS (
			SELECT *, row_number() OVER (ORDER BY crawler_visits DESC, path) AS by_reads, row_number() OVER (ORDER BY pageviews DESC, path) AS by_views
			FROM per_path
		)
		SELECT path, crawler_visits, pageviews FROM ranked WHERE by_reads <= ?4 OR by_views <= ?4
		ORDER BY crawler_visits DESC, pageviews DESC, path`,
});

export async function computeCrawlerStats(env: Env, trackingId: string, range: StatsRange): Promise<CrawlerStatsView> {
	const rows = await runRangeQueries(env, crawlerStatsQueries(range.bucketMs), trackingId, range);

	const crawlers = rows.crawlers.map(({ name, visits }: { name: string; visits: number }) => {
		const known = crawlerNamed(name);
		return { name, operator: known?.operator ?? "Unknown", category: known?.purpose ?? "unknown", visits };
	});
	const categories = new Map<string, number>();
	for (const { category, visits } of crawlers) categories.set(category, (categories.get(category) ?? 0) + visits);
	return {
		from: new Date(range.from).toISOString(),
		to: new Date(range.to).toISOString(),
		visits: crawlers.reduce((sum, c) => sum + c.visits, 0),
		crawlers,
		categories: [...categories].map(([category, visits]) => ({ category, visits })).sort((a, b) => b.visits - a.visits),
		top_paths: rows.topPaths,
		statuses: rows.statuses,
		series: fillSeries(range, rows.series, { visits: 0 }),
		recent: rows.recent.map((visit) => ({ ...visit, ts: new Date(visit.ts).toISOString() })),
		pages: rows.pages,
	};
}

/** Every visit of the site; called once its collector has forgotten the site. */
export async function deleteSiteVisits(env: Env, trackingId: string): Promise<void> {
	await database(env).delete(crawlerVisits).where(eq(crawlerVisits.trackingId, trackingId));
}
