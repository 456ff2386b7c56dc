/** The pages report: what people and AI crawlers read, page by page (GET /api/sites/:id/pages). */
import type { SitePagesView } from "../api/sites";
import { PAGE_CRAWLER_VISITS } from "../crawl/visitStore";
import { rollupParams, rollupRowsOf, wholeHours } from "./rollups";
import { runQueries, type StatsRange } from "./statsRange";

/**
 * Per path: human page views and visitors next to crawler visits in the same whole hours, the
 * paths with the most of both together first. Both sides are read from rollups (each a search
 * per piece of the range), people's from the pages breakdown (visitors counted as the dashboard's
 * top pages count them), crawlers' from crawler_rollups, joined on the path.
 */
export const PAGES_WITH_CRAWLERS = `WITH ${rollupRowsOf("analytics_rollups", ["pageviews", "visitors"], ["pages"], { name: "people_rows" })},
	${PAGE_CRAWLER_VISITS}, people AS (
		SELECT value AS path, sum(pageviews) AS pageviews, sum(visitors) AS visitors FROM people_rows GROUP BY 1 HAVING sum(pageviews) > 0
	), crawlers AS (
		SELECT path, sum(visits) AS visits, json_group_array(json_object('name', crawler, 'visits', visits)) AS list
		FROM per_crawler GROUP BY path
	)
	SELECT coalesce(people.path, crawlers.path) AS path, coalesce(pageviews, 0) AS pageviews, coalesce(visitors, 0) AS visitors,
		coalesce(crawlers.visits, 0) AS crawler_visits, coalesce(crawlers.list, '[]') AS crawlers
	FROM people FULL JOIN crawlers ON crawlers.path = people.path
	ORDER BY coalesce(pageviews, 0) + coalesce(crawlers.visits, 0) DESC, 1 LIMIT ?4`;

/** The pages report (docs/api.md) for the whole hours the range touches. */
export async function pagesWithCrawlers(env: Env, trackingId: string, requested: StatsRange): Promise<SitePagesView> {
	const range = wholeHours(requested);
	const { pages } = await runQueries(env, { pages: { sql: PAGES_WITH_CRAWLERS, params: rollupParams(trackingId, range) } });
	return {
		from: new Date(range.from).toISOString(),
		to: new Date(range.to).toISOString(),
		pages: (pages as Array<Omit<SitePagesView["pages"][number], "crawlers"> & { crawlers: string }>).map((page) => {
			const crawlers = JSON.parse(page.crawlers) as Array<{ name: string; visits: number }>;
			return { ...page, crawlers: crawlers.sort((a, b) => b.visits - a.visits || a.name.localeCompare(b.name)) };
		}),
	};
}
