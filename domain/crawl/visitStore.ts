/**
 * The crawler_visits and crawler_rollups tables: batched writes from the SiteCollector's outbox,
 * the crawler statistics, deletion with the site, and the clean-up of what is older than the
 * crawler retention.
 */
import { eq } from "drizzle-orm";
import { crawlerRollups, crawlerVisits } from "../../schema";
import type { CrawlerStatsView } from "../api/sites";
import { addingToRollupRows, DAY_MS, HOUR_MS, rollupParams, rollupRowsOf, wholeHours } from "../analytics/rollups";
import { fillSeries, runQueries, type StatsRange, withParams } from "../analytics/statsRange";
import { database, deleteRows, expiredRollupsDelete, expiredRowsDelete } from "../db";
import { columnField, jsonArraysOf } from "../jsonRows";
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

/**
 * Rows travel as JSON arrays unpacked by json_each (see jsonRows.ts), each visit an array of its
 * VISIT_COLUMNS in order: SQLite reads an array element faster than an object's member (a batch
 * of 500 visits with its rollups took 19 ms this way against 25 as objects, in `node:sqlite`).
 */
const VISIT_COLUMNS: ReadonlyArray<readonly [column: string, key: keyof StoredVisit]> = [
	["id", "id"],
	["tracking_id", "trackingId"],
	["ts", "ts"],
	["crawler", "crawler"],
	["url_host", "urlHost"],
	["url_path", "urlPath"],
	["country", "country"],
	["status", "status"],
	["ua", "ua"],
	["verified", "verified"],
];

/** A visit's field in a batch row. */
const field = (key: keyof StoredVisit, from = "") => columnField(VISIT_COLUMNS, key, from);

const INSERT_VISITS = `INSERT OR IGNORE INTO crawler_visits (${VISIT_COLUMNS.map(([column]) => column).join(", ")})
	SELECT ${VISIT_COLUMNS.map(([, key]) => field(key)).join(", ")} FROM json_each(?1)`;

/**
 * crawler_rollups: visits counted per breakdown ("" the site, crawlers, statuses, and
 * page_crawlers: [path, crawler], which the pages report reads and the top paths are summed from),
 * hour and UTC day. Each visit counts once, at its own time, so a bucket's count is a plain sum
 * and no visit depends on another.
 */
const ROLLUP_LABELS = {
	"": "''",
	crawlers: "crawler",
	statuses: "CAST(status AS TEXT)",
	page_crawlers: "json_array(url_path, crawler)",
};
const ROLLUP_COUNTERS = ["visits", "verified", "unverified"] as const;

/**
 * Adds the visits of `visits` (a query of tracking_id, ts, crawler, url_path, status, verified) to
 * the rollups. `visits` is read once (MATERIALIZED: each of its fields comes out of the batch's
 * JSON once, not once per breakdown and span), and each breakdown is a query of its own rather
 * than one query choosing the label per row: a batch of 500 visits costs D1 about half as much
 * (docs/benchmarks.md).
 */
const rollupAdd = (visits: string) => `WITH v AS MATERIALIZED (${visits}),
	spans AS (SELECT v.tracking_id, s.value AS span, (v.ts / s.value) * s.value AS start, v.crawler, v.url_path, v.status, v.verified
		FROM v, json_each('[${HOUR_MS},${DAY_MS}]') AS s)
	INSERT INTO crawler_rollups (tracking_id, dim, span, start, value, ${ROLLUP_COUNTERS.join(", ")})
	SELECT tracking_id, dim, span, start, value, count(*), coalesce(sum(verified = 1), 0), coalesce(sum(verified = 0), 0)
	FROM (${Object.entries(ROLLUP_LABELS)
		.map(([dim, label]) => `SELECT tracking_id, '${dim}' AS dim, span, start, ${label} AS value, verified FROM spans`)
		.join("\n\t\tUNION ALL ")})
	WHERE true GROUP BY 1, 2, 3, 4, 5
	${addingToRollupRows(ROLLUP_COUNTERS)}`;

/** A batch's visits (?1, as visitInsertStatements packs them) that crawler_visits does not have yet: run before they are inserted. */
export const CRAWLER_ROLLUP_ADDITIONS = rollupAdd(`SELECT ${field("trackingId")} AS tracking_id, ${field("ts")} AS ts,
		${field("crawler")} AS crawler, ${field("urlPath")} AS url_path, ${field("status")} AS status, ${field("verified")} AS verified
	FROM json_each(?1) AS b WHERE NOT EXISTS (SELECT 1 FROM crawler_visits AS c WHERE c.id = ${field("id", "b")})`);

/**
 * Every stored visit: the migration that created the rollups filled them with the statement of
 * its day, which also wrote a paths breakdown that a later migration removed (the same rows).
 */
export const CRAWLER_ROLLUP_BACKFILL = rollupAdd("SELECT tracking_id, ts, crawler, url_path, status, verified FROM crawler_visits");

/** Per ~1 MB chunk: the visits D1 does not have yet counted, then inserted (a repeated id is ignored by the primary key). */
export function visitInsertStatements(db: D1Database, visits: StoredVisit[]): D1PreparedStatement[] {
	const rows = visits.map((visit) => VISIT_COLUMNS.map(([, key]) => visit[key]));
	return jsonArraysOf(rows).flatMap((chunk) => [db.prepare(CRAWLER_ROLLUP_ADDITIONS).bind(chunk), db.prepare(INSERT_VISITS).bind(chunk)]);
}

// ---------------------------------------------------------------------------------------------
// Statistics

/*
 * For the whole hours the range touches (wholeHours), from the rollups: each query reads one
 * breakdown's rows, day rows for the whole UTC days and hour rows either side. `recent` walks
 * crawler_visits_site_ts_idx backwards and stops after 50 rows, no sort. One D1 batch, one
 * round trip.
 */
const rows = (dims: string[], hoursOnly = false) => rollupRowsOf("crawler_rollups", ROLLUP_COUNTERS, dims, { hoursOnly });

/** How many crawlers get a series of their own (`crawler_series`): the console charts them, and a few lines are all a chart can tell apart. */
const SERIES_CRAWLERS = 5;

export const crawlerStatsQueries = (bucketMs: number) => ({
	crawlers: `WITH ${rows(["crawlers"])}
		SELECT value AS name, sum(visits) AS visits, sum(verified) AS verified, sum(unverified) AS unverified
		FROM r GROUP BY 1 HAVING sum(visits) > 0 ORDER BY visits DESC, 1`,
	topPaths: `WITH ${rows(["page_crawlers"])}
		SELECT value ->> 0 AS path, sum(visits) AS visits FROM r GROUP BY 1 HAVING sum(visits) > 0 ORDER BY visits DESC, 1 LIMIT ?4`,
	statuses: `WITH ${rows(["statuses"])}
		SELECT CAST(value AS INTEGER) AS status, sum(visits) AS visits FROM r GROUP BY 1 HAVING sum(visits) > 0 ORDER BY visits DESC, 1`,
	series: `WITH ${rows([""], true)}
		SELECT (start / ${bucketMs}) * ${bucketMs} AS t, sum(visits) AS visits FROM r GROUP BY 1`,
	// The busiest crawlers (as `crawlers` orders them) bucket by bucket: hourly buckets from hour
	// rows, daily ones from day rows and the hours either side, each in the UTC day it falls in.
	crawlerSeries: `WITH ${rows(["crawlers"], bucketMs === HOUR_MS)},
		top AS (SELECT value FROM r GROUP BY value HAVING sum(visits) > 0 ORDER BY sum(visits) DESC, value LIMIT ${SERIES_CRAWLERS})
		SELECT value AS name, (start / ${bucketMs}) * ${bucketMs} AS t, sum(visits) AS visits FROM r WHERE value IN (SELECT value FROM top) GROUP BY 1, 2`,
	recent: `SELECT crawler, url_host, url_path, country, status, verified, ts FROM crawler_visits WHERE tracking_id = ?1 AND ts >= ?2 AND ts < ?3
		ORDER BY ts DESC, id LIMIT ${OWNER_LIMITS.recentCrawlerVisits}`,
});

/** The pages report's crawler side: per path and crawler, as CTE `per_crawler` (path, crawler, visits). */
export const PAGE_CRAWLER_VISITS = `${rollupRowsOf("crawler_rollups", ROLLUP_COUNTERS, ["page_crawlers"], { name: "crawler_rows" })},
	per_crawler AS (
		SELECT value ->> 0 AS path, value ->> 1 AS crawler, sum(visits) AS visits FROM crawler_rows GROUP BY value HAVING sum(visits) > 0
	)`;

/** The crawler statistics (docs/api.md), for the whole hours the range touches; the series stop at the bucket under way at `now`. */
export async function computeCrawlerStats(env: Env, trackingId: string, requested: StatsRange, now: number): Promise<CrawlerStatsView> {
	const range = wholeHours(requested);
	const rows = await runQueries(env, withParams(crawlerStatsQueries(range.bucketMs), rollupParams(trackingId, range)));

	// `verified` and `unverified` count the visits from inside and outside the operator's published
	// ranges; the rest of `visits` could not be checked (no published ranges, or no address sent).
	type CrawlerRow = CrawlerStatsView["crawlers"][number];
	const crawlers = rows.crawlers.map(({ name, visits, verified, unverified }: { name: string; visits: number; verified: number; unverified: number }): CrawlerRow => {
		const known = crawlerNamed(name);
		return { name, operator: known?.operator ?? "Unknown", category: known?.purpose ?? "unknown", visits, verified, unverified };
	});
	const seriesByCrawler = new Map<string, Array<{ t: number; visits: number }>>();
	for (const { name, t, visits } of rows.crawlerSeries as Array<{ name: string; t: number; visits: number }>) {
		seriesByCrawler.set(name, [...(seriesByCrawler.get(name) ?? []), { t, visits }]);
	}
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
		series: fillSeries(range, rows.series, { visits: 0 }, now),
		crawler_series: crawlers.flatMap(({ name }) => {
			const buckets = seriesByCrawler.get(name);
			return buckets ? [{ name, series: fillSeries(range, buckets, { visits: 0 }, now) }] : [];
		}),
		recent: rows.recent.map((visit) => ({ ...visit, verified: visit.verified === null ? null : visit.verified === 1, ts: new Date(visit.ts).toISOString() })),
	};
}

/** Every visit of the site; called once its collector has forgotten the site. */
export async function deleteSiteVisits(env: Env, trackingId: string): Promise<void> {
	const db = database(env);
	await db.batch([
		db.delete(crawlerVisits).where(eq(crawlerVisits.trackingId, trackingId)),
		db.delete(crawlerRollups).where(eq(crawlerRollups.trackingId, trackingId)),
	]);
}

export const DELETE_EXPIRED_VISITS = expiredRowsDelete("crawler_visits", "ts");
export const DELETE_EXPIRED_CRAWLER_ROLLUPS = expiredRollupsDelete("crawler_rollups");

/** Visits received before `cutoff` (ms), at most `limit`, oldest first; how many were deleted. */
export const deleteExpiredVisits = (env: Env, cutoff: number, limit: number) => deleteRows(env.DB, DELETE_EXPIRED_VISITS, cutoff, limit);

/** Rollup rows of hours and days that started before `cutoff` (ms); how many were deleted. */
export const deleteExpiredCrawlerRollups = (env: Env, cutoff: number, limit: number) =>
	deleteRows(env.DB, DELETE_EXPIRED_CRAWLER_ROLLUPS, cutoff, limit);
