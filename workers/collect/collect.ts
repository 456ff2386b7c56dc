import type { IRequest } from "itty-router";
import { HttpError, parseJsonObject, readTextWithin } from "../http";
import { isTrackingIdShaped } from "../../domain/sites/trackingId";
import { admitEvent } from "../sites/siteBuffer";
import { siteOutcomeResponse, UNKNOWN_SITE } from "../sites/siteOutcome";
import { describeClient, isExcludedTraffic } from "../../domain/analytics/client";
import { readEventFields } from "../../domain/analytics/event";
import { claimedHost, countryCode, trackingIdOf } from "../../domain/analytics/fields";
import { COLLECT_LIMITS } from "../../domain/limits";

/**
 * POST /api/collect (docs/api.md#collect-browser-analytics): the body is JSON sent as text/plain, so browsers post it
 * without a CORS preflight. Order of answers: 413 and 400 here, from the body alone; then the
 * site's settings and windows, as this isolate holds them, decide 404, 402, 403 (domain, Attack
 * Mode), 429 or 204; an accepted event waits in the isolate for its batch (siteBuffer.ts).
 */
export async function collect(request: IRequest, env: Env, ctx: ExecutionContext): Promise<Response> {
	const body = parseJsonObject(await readTextWithin(request, COLLECT_LIMITS.bodyChars));
	const trackingId = trackingIdOf(body);
	if (!trackingId) throw new HttpError(400, "tracking_id is required");
	if (!isTrackingIdShaped(trackingId)) throw new HttpError(404, UNKNOWN_SITE);

	const userAgent = request.headers.get("user-agent") ?? "";
	const client = describeClient(userAgent);
	const outcome = await admitEvent(
		env,
		ctx,
		trackingId,
		{
			ts: Date.now(),
			ip: request.headers.get("cf-connecting-ip")?.trim() || null,
			userAgent,
			claimedHost: claimedHost(body.url_host),
			suspicious: client.suspicious,
			event: {
				...readEventFields(body),
				browser: client.browser,
				os: client.os,
				device: client.device,
				country: countryCode((request as unknown as Request).cf?.country),
			},
		},
		// A bot or excluded traffic counts against the windows but is never stored.
		{ store: !client.bot && !isExcludedTraffic(request) },
	);
	return siteOutcomeResponse(outcome, "Too many analytics events");
}
