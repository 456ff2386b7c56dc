import type { IRequest } from "itty-router";
import { computeSiteStats } from "../../domain/analytics/eventStore";
import { json } from "../http";
import { ownSiteUpToDate } from "./ownSite";
import { readFilters, readRange } from "./range";

/** GET /api/sites/:tracking_id/stats?from=&to=&limit=&page=&referrer=&country=&browser=&os=&device= → the dashboard's figures (docs/api.md). */
export async function siteStats(request: IRequest, env: Env): Promise<Response> {
	const range = readRange(request.query);
	const filters = readFilters(request.query);
	const site = await ownSiteUpToDate(request, env);
	return json(await computeSiteStats(env, site.trackingId, range, filters));
}
