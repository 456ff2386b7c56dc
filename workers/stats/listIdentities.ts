import type { IRequest } from "itty-router";
import { listIdentities as listSiteIdentities } from "../../domain/analytics/eventStore";
import { OWNER_LIMITS } from "../../domain/limits";
import { json } from "../http";
import { limitParam, parseBody, queryParams } from "../validation";
import { ownSiteUpToDate } from "./ownSite";

const identitiesQuery = queryParams({ limit: limitParam(OWNER_LIMITS.analyticsEvents).optional() });

/**
 * GET /api/sites/:tracking_id/identities?limit= → {identities: [{distinct_id, visitors, first_seen,
 * last_seen}]}: the users the site identified with the tracker's `identify`, most recently seen first.
 */
export async function listIdentities(request: IRequest, env: Env): Promise<Response> {
	const { limit = 100 } = parseBody(identitiesQuery, request.query);
	const site = await ownSiteUpToDate(request, env);
	return json({ identities: await listSiteIdentities(env, site.trackingId, limit) });
}
