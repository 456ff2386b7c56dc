import type { IRequest } from "itty-router";
import { pagesWithCrawlers } from "../../domain/analytics/pagesReport";
import { PAGES_ONLY, PAGES_SORTS } from "../../domain/api/sites";
import { json } from "../http";
import { parseBody, queryChoice, queryParams, queryText } from "../validation";
import { ownSiteUpToDate } from "./ownSite";
import { readRange } from "./range";

/** The report's parameters; anything else (a misspelt one) is a 400 that names it. */
const pagesQuery = queryParams({
	from: queryText().optional(),
	to: queryText().optional(),
	limit: queryText().optional(),
	sort: queryChoice(PAGES_SORTS).optional(),
	only: queryChoice(PAGES_ONLY).optional(),
});

/**
 * GET /api/sites/:tracking_id/pages?from=&to=&limit=&sort=total|ai|people&only=ai|people →
 * {sort, only, pages: [{path, pageviews, visitors, crawler_visits, crawlers: [{name, visits}]}]}:
 * what people and AI crawlers read, page by page (docs/api.md#pages-people-and-crawlers).
 */
export async function listPages(request: IRequest, env: Env): Promise<Response> {
	const { from, to, limit, sort, only } = parseBody(pagesQuery, request.query);
	const range = readRange({ from, to, limit });
	const site = await ownSiteUpToDate(request, env);
	return json(await pagesWithCrawlers(env, site.trackingId, range, { sort, only }));
}
