import type { IRequest } from "itty-router";
import { listSiteEvents } from "../../domain/analytics/eventStore";
import { OWNER_LIMITS } from "../../domain/limits";
import { json } from "../http";
import { limitParam, parseBody, queryParams, queryText } from "../validation";
import { ownSiteUpToDate } from "./ownSite";
import { readRange } from "./range";

const eventsQuery = queryParams({ from: queryText().optional(), to: queryText().optional(), limit: limitParam(OWNER_LIMITS.analyticsEvents).optional() });

/**
 * GET /api/sites/:tracking_id/events?from=&to=&limit= → {events: [...]}, newest first (default
 * 100, at most 1,000): the raw stored events, for checking an installation and for debugging.
 */
export async function listEvents(request: IRequest, env: Env): Promise<Response> {
	const { from, to, limit = 100 } = parseBody(eventsQuery, request.query);
	const range = readRange({ from, to });
	const site = await ownSiteUpToDate(request, env);
	return json({ events: await listSiteEvents(env, site.trackingId, range, limit) });
}
