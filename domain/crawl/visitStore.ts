/**
 * The crawler_visits table: batched writes from the SiteCollector's outbox, the crawler
 * statistics, deletion with the site, and the clean-up of what is older than the crawler
 * retention.
 */
import { eq } from "drizzle-orm";
import { crawlerVisits } from "../../schema";
import type { CrawlerStatsView } from "../api/sites";
import { fillSeries, runRangeQueries, type StatsRange } from "../analytics/statsRange";
import { database, deleteRows, expiredRowsDelete } from "../db";
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
	/** Inside the operator's published ranges; null when unknown (no ranges, no address). */
	verified: boolean | null;
}

// Rows travel as JSON arrays unpacked by json_each (see jsonRows.ts).
const INSERT_VISITS = `INSERT OR IGNORE INTO crawler_visits (id, tracking_id, ts, crawler, url_host, url_path, country, status, ua, verified)
	SELECT value ->> '$.id', value ->> '$.trackingId', value ->> '$.ts', value ->> '$.crawler', value ->> '$.urlHost',
		value ->> '$.urlPath', value ->> '$.country', value ->> '$.status', value ->> '$.ua', value ->> '$.verified'
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
	crawlers: `SELECT crawler AS name, count(*) AS visits, coalesce(sum(verified = 1), 0) AS verified, coalesce(sum(verified = 0), 0) AS unverified
		FROM crawler_visits WHERE ${RANGE} GROUP BY 1 ORDER BY visits DESC, 1`,
	topPaths: `SELECT url_path AS path, count(*) AS visits FROM crawler_visits WHERE ${RANGE} GROUP BY 1 ORDER BY visits DESC, 1 LIMIT ?4`,
	statuses: `SELECT status, count(*) AS visits FROM crawler_visits WHERE ${RANGE} GROUP BY 1 ORDER BY visits DESC, 1`,
	series: `SELECT (ts / ${bucketMs}) * ${bucketMs} AS t, count(*) AS visits FROM crawler_visits WHERE ${RANGE} GROUP BY 1`,
	recent: `SELECT crawler, url_host, url_path, country, status, verified, ts FROM crawler_visits WHERE ${RANGE}
		ORDER BY ts DESC, id LIMIT ${OWNER_LIMITS.recentCrawlerVisits}`,
});

export async function computeCrawlerStats(env: Env, trackingId: string, range: StatsRange): Promise<CrawlerStatsView> {
	const rows = await runRangeQueries(env, crawlerStatsQueries(range.bucketMs), trackingId, range);

	// `verified` and `unverified` count the visits from inside and outside the operator's published
	// ranges; the rest of `visits` could not be checked (no published ranges, or no address sent).
	type CrawlerRow = CrawlerStatsView["crawlers"][number];
	const crawlers = rows.crawlers.map(({ name, visits, verified, unverified }: { name: string; visits: number; verified: number; unverified: number }): CrawlerRow => {
		const known = crawlerNamed(name);
		return { name, operator: known?.operator ?? "Unknown", category: known?.purpose ?? "unknown", visits, verified, unverified };
	});
	const categories = new Map<CrawlerRow["category"], number>();
	for (const { category, visits } of crawlers) categories.set(category, (categories.get(category) ?? 0) + visits);
	return {
		from: new Date(range.from).toISOString(),
		to: new Date(range.to).toISOString(),
		visits: crawlers.reduce((sum, c) => sum + c.visits, 0),
		verified_visits: crawlers.reduce((sum, c) => sum + c.verified, 0),
		unverified_visits: crawlers.reduce((sum, c) => sum + c.unverified, 0),
		crawlers,
		categories: [...categories].map(([category, visits]) => ({ category, visits })).sort((a, b) => b.visits - a.visits),
		top_paths: rows.topPaths,
		statuses: rows.statuses,
		series: fillSeries(range, rows.series, { visits: 0 }),
		recent: rows.recent.map((visit) => ({ ...visit, verified: visit.verified === null ? null : visit.verified === 1, ts: new Date(visit.ts).toISOString() })),
	};
}

/** Every visit of the site; called once its collector has forgotten the site. */
export async function deleteSiteVisits(env: Env, trackingId: string): Promise<void> {
	await database(env).delete(crawlerVisits).where(eq(crawlerVisits.trackingId, trackingId));
}

export const DELETE_EXPIRED_VISITS = expiredRowsDelete("crawler_visits", "ts");

/** Visits received before `cutoff` (ms), at most `limit`, oldest first; how many were deleted. */
export const deleteExpiredVisits = (env: Env, cutoff: number, limit: number) => deleteRows(env.DB, DELETE_EXPIRED_VISITS, cutoff, limit);
