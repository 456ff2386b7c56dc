/** The pages report: what people and AI crawlers read, page by page (GET /api/sites/:id/pages). */
import { PAGES_ONLY, PAGES_SORTS, type PagesOnly, type PagesSort, type SitePagesView } from "../api/sites";
import { PAGE_CRAWLER_VISITS } from "../crawl/visitStore";
import { rollupParams, rollupRowsOf, wholeHours } from "./rollups";
import { runQueries, type StatsRange } from "./statsRange";

/** Each order the report offers (docs/api.md#pages-people-and-crawlers); the path breaks ties. */
const ORDER: Record<PagesSort, string> = {
	total: "pageviews + crawler_visits DESC, path",
	ai: "crawler_visits DESC, pageviews DESC, path",
	people: "pageviews DESC, visitors DESC, crawler_visits DESC, path",
};
/** The pages that only AI crawlers read, or only people viewed: what a list of the busiest hides. */
const ONLY: Record<PagesOnly, string> = { ai: "WHERE pageviews = 0", people: "WHERE crawler_visits = 0" };

/**
 * Per path: human page views and visitors next to crawler visits in the same whole hours, in the
 * order asked for, `?4` of them. Both sides are read from rollups (each a search per piece of the
 * range), people's from the pages breakdown (visitors counted as the dashboard's top pages count
 * them), crawlers' from crawler_rollups, put together per path by one grouping (a sort, where
 * a join of the two sides would search one for each row of the other); the selection and order
 * apply to those rows, one per path that was read or viewed.
 */
const pagesWithCrawlersQuery = (sort: PagesSort = "total", only?: PagesOnly) => `WITH ${rollupRowsOf(
	"analytics_rollups",
	["pageviews", "visitors"],
	["pages"],
	{ name: "people_rows" },
)},
	${PAGE_CRAWLER_VISITS}, people AS (
		SELECT value AS path, sum(pageviews) AS pageviews, sum(visitors) AS visitors FROM people_rows GROUP BY 1 HAVING sum(pageviews) > 0
	), crawlers AS (
		SELECT path, sum(visits) AS visits, json_group_array(json_object('name', crawler, 'visits', visits)) AS list
		FROM per_crawler GROUP BY path
	), pages AS (
		SELECT path, sum(pageviews) AS pageviews, sum(visitors) AS visitors, sum(crawler_visits) AS crawler_visits, coalesce(max(list), '[]') AS crawlers
		FROM (SELECT path, pageviews, visitors, 0 AS crawler_visits, NULL AS list FROM people
			UNION ALL SELECT path, 0, 0, visits, list FROM crawlers)
		GROUP BY path
	)
	SELECT * FROM pages ${only ? ONLY[only] : ""} ORDER BY ${ORDER[sort]} LIMIT ?4`;

/** Every statement the report runs, by its parameters (the query-plan tests read them all). */
export const PAGES_QUERIES = Object.fromEntries(
	PAGES_SORTS.flatMap((sort) => [undefined, ...PAGES_ONLY].map((only) => [`sort=${sort}${only ? `&only=${only}` : ""}`, pagesWithCrawlersQuery(sort, only)])),
);

/** The pages report (docs/api.md) for the whole hours the range touches. */
export async function pagesWithCrawlers(
	env: Env,
	trackingId: string,
	requested: StatsRange,
	{ sort = "total", only }: { sort?: PagesSort; only?: PagesOnly } = {},
): Promise<SitePagesView> {
	const range = wholeHours(requested);
	const { pages } = await runQueries(env, { pages: { sql: pagesWithCrawlersQuery(sort, only), params: rollupParams(trackingId, range) } });
	return {
		from: new Date(range.from).toISOString(),
		to: new Date(range.to).toISOString(),
		sort,
		only: only ?? null,
		pages: (pages as Array<Omit<SitePagesView["pages"][number], "crawlers"> & { crawlers: string }>).map((page) => {
			const crawlers = JSON.parse(page.crawlers) as Array<{ name: string; visits: number }>;
			return { ...page, crawlers: crawlers.sort((a, b) => b.visits - a.visits || a.name.localeCompare(b.name)) };
		}),
	};
}
