import type { IRequest } from "itty-router";
import { z } from "zod";
import { computeRealtimeStats } from "../../domain/analytics/realtimeStats";
import { OWNER_LIMITS } from "../../domain/limits";
import { json } from "../http";
import { limitParam, parseBody, queryParams } from "../validation";
import { ownSiteUpToDate } from "./ownSite";
import { fewEnough, filterFields } from "./siteStats";

/**
 * The realtime view's parameters: the statistics' filters, `limit` and `exact`. Its window is the
 * last 30 minutes, so no `from` or `to`, and nothing to compare with: either is a 400, as any
 * other parameter is.
 */
const realtimeQuery = queryParams({
	limit: limitParam(OWNER_LIMITS.breakdownRows).optional(),
	exact: z.literal("true", { error: 'must be "true"' }).optional(),
	...filterFields,
});

/**
 * GET /api/sites/:tracking_id/stats/realtime?limit=&exact=true&<filter>= → the last 30 minutes by
 * minute and the visitors on the site now (docs/api.md#realtime-statistics), after the site's
 * accepted events are moved to D1.
 */
export async function realtimeStats(request: IRequest, env: Env): Promise<Response> {
	const { limit = 10, exact, ...filters } = parseBody(realtimeQuery, request.query);
	const site = await ownSiteUpToDate(request, env);
	return json(await computeRealtimeStats(env, site.trackingId, { filters: fewEnough(filters), limit, exact: exact === "true", now: Date.now() }));
}
