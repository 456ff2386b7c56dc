import type { IRequest } from "itty-router";
import { crawlerNamed } from "../crawl/crawlers";
import { json } from "../http";
import { ownSiteUpToDate } from "./ownSite";
import { fillSeries, readRange, type StatsRange } from "./range";
import { bindRange } from "./siteStats";

/** How many of the newest visits `recent` lists. */
export const RECENT_VISITS = 50;

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
		ORDER BY ts DESC, id LIMIT ${RECENT_VISITS}`,
});

export async function computeCrawlerStats(env: Env, trackingId: string, range: StatsRange) {
	const q = crawlerStatsQueries(range.bucketMs);
	const names = Object.keys(q) as Array<keyof typeof q>;
	const results = await env.DB.batch(names.map((name) => bindRange(env.DB.prepare(q[name]), q[name], trackingId, range)));
	const rows = Object.fromEntries(names.map((name, i) => [name, results[i].results])) as Record<keyof typeof q, any[]>;

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
	};
}

/** GET /api/sites/:tracking_id/crawlers?from=&to=&limit= (DESIGN.md 5.5). */
export async function crawlerStats(request: IRequest, env: Env): Promise<Response> {
	const range = readRange(request.query);
	const site = await ownSiteUpToDate(request, env);
	return json(await computeCrawlerStats(env, site.trackingId, range));
}
