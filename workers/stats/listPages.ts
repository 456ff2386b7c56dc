import type { IRequest } from "itty-router";
import { pagesWithCrawlers } from "../../domain/analytics/pagesReport";
import { json } from "../http";
import { ownSiteUpToDate } from "./ownSite";
import { readRange } from "./range";

/**
 * GET /api/sites/:tracking_id/pages?from=&to=&limit= → {pages: [{path, pageviews, visitors,
 * crawler_visits, crawlers: [{name, visits}]}]}: what people and AI crawlers read, page by page.
 */
export async function listPages(request: IRequest, env: Env): Promise<Response> {
	const range = readRange(request.query);
	const site = await ownSiteUpToDate(request, env);
	return json(await pagesWithCrawlers(env, site.trackingId, range));
}
