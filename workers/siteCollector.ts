import type { Outcome } from "../durable-objects/SiteCollector";
import { HttpError } from "./http";

/** The SiteCollector object of one site: its rate windows, its event outbox, its daily salt. */
export function siteCollectorFor(env: Env, trackingId: string) {
	return env.SITE_COLLECTOR.get(env.SITE_COLLECTOR.idFromName(trackingId));
}

/** Turns what the object decided into the answer: 204 with no body, or the one error shape. */
export function outcomeResponse(outcome: Outcome): Response {
	if (outcome.status === 204) return new Response(null, { status: 204 });
	const headers: Record<string, string> = {};
	if (outcome.retryAfterSeconds !== undefined) headers["retry-after"] = String(outcome.retryAfterSeconds);
	throw new HttpError(outcome.status, outcome.error, {}, headers);
}
