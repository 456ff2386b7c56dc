import type { IRequest } from "itty-router";
import { z } from "zod";
import { listIdentities as listSiteIdentities } from "../../domain/analytics/eventStore";
import { OWNER_LIMITS } from "../../domain/limits";
import { json } from "../http";
import { parseBody } from "../validation";
import { ownSiteUpToDate } from "./ownSite";

const limitSchema = z.object({ limit: z.coerce.number().int().min(1).max(OWNER_LIMITS.analyticsEvents).default(100) });

/**
 * GET /api/sites/:tracking_id/identities?limit= → {identities: [{distinct_id, visitors, first_seen,
 * last_seen}]}: the users the site identified with the tracker's `identify`, most recently seen first.
 */
export async function listIdentities(request: IRequest, env: Env): Promise<Response> {
	const { limit } = parseBody(limitSchema, { limit: request.query.limit });
	const site = await ownSiteUpToDate(request, env);
	return json({ identities: await listSiteIdentities(env, site.trackingId, limit) });
}
