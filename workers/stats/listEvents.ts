import type { IRequest } from "itty-router";
import { z } from "zod";
import { listSiteEvents } from "../../domain/analytics/eventStore";
import { OWNER_LIMITS } from "../../domain/limits";
import { json } from "../http";
import { parseBody } from "../validation";
import { ownSiteUpToDate } from "./ownSite";
import { readRange } from "./range";

const limitSchema = z.object({ limit: z.coerce.number().int().min(1).max(OWNER_LIMITS.analyticsEvents).default(100) });

/**
 * GET /api/sites/:tracking_id/events?from=&to=&limit= → {events: [...]}, newest first (default
 * 100, at most 1,000): the raw stored events, for checking an installation and for debugging.
 */
export async function listEvents(request: IRequest, env: Env): Promise<Response> {
	const { limit } = parseBody(limitSchema, { limit: request.query.limit });
	const range = readRange({ from: request.query.from, to: request.query.to });
	const site = await ownSiteUpToDate(request, env);
	return json({ events: await listSiteEvents(env, site.trackingId, range, limit) });
}
