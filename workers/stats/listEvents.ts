import type { IRequest } from "itty-router";
import { z } from "zod";
import { json } from "../http";
import { ownSiteUpToDate } from "./ownSite";
import { parseBody } from "../validation";
import { readRange } from "./range";

export const EVENTS_LIMIT = 1_000;

export const LIST_EVENTS = `SELECT event_id, ts, name, data, url_host, url_path, url_query, referrer, title, language, screen,
		visitor_id, distinct_id, session_id, duration, seq, v, browser, os, device, country
	FROM analytics_events WHERE tracking_id = ?1 AND ts >= ?2 AND ts < ?3 ORDER BY ts DESC, event_id LIMIT ?4`;

/**
 * GET /api/sites/:tracking_id/events?from=&to=&limit= → {events: [...]}, newest first (default
 * 100, at most 1,000): the raw stored events, for checking an installation and for debugging.
 * Walks analytics_events_site_ts_idx backwards from `to` and stops at `limit` rows.
 */
export async function listEvents(request: IRequest, env: Env): Promise<Response> {
	const { limit } = parseBody(z.object({ limit: z.coerce.number().int().min(1).max(EVENTS_LIMIT).default(100) }), {
		limit: request.query.limit,
	});
	const range = readRange({ from: request.query.from, to: request.query.to });
	const site = await ownSiteUpToDate(request, env);
	const { results } = await env.DB.prepare(LIST_EVENTS)
		.bind(site.trackingId, range.from, range.to, limit)
		.all<Record<string, unknown> & { ts: number }>();
	return json({ events: results.map((event) => ({ ...event, ts: new Date(event.ts).toISOString() })) });
}
