import type { IRequest } from "itty-router";
import { claimedHost, clampedInteger, countryCode, storedHost, text, trackingIdOf } from "../../domain/analytics/fields";
import { readablePath } from "../../domain/analytics/pagePath";
import { HttpError, parseJsonObject, readTextWithin } from "../http";
import { isTrackingIdShaped } from "../../domain/sites/trackingId";
import { admitVisit } from "../sites/siteBuffer";
import { siteOutcomeResponse, UNKNOWN_SITE } from "../sites/siteOutcome";
import { matchCrawler } from "../../domain/crawl/crawlers";
import { isVerifiedVisit } from "../../domain/crawl/ipRanges";
import { CRAWL_LIMITS } from "../../domain/limits";
import { cutText } from "../../domain/text";

/**
 * The page a crawler read, as the tracker names it (readablePath), so it meets the page's views:
 * the path without a query or fragment, which an edge forwarding the request URI sends
 * (`/docs?ref=x`).
 */
function crawledPath(value: unknown): string {
	const path = text(value, CRAWL_LIMITS.urlPath) ?? "";
	return readablePath(path.slice(0, path.search(/[?#]|$/))) || "/";
}

/** `status` as the crawler got it: 100-599, else (absent, malformed, out of range) 200. */
function httpStatus(value: unknown): number {
	const status = clampedInteger(value, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
	return status !== undefined && status >= 100 && status <= 599 ? status : 200;
}

/**
 * POST /api/bot-crawl-ingest (docs/api.md#ingest-crawler-telemetry): a site's server (or edge middleware) reports a
 * visit by an AI crawler. 413 and 400 from the body; the site's settings and window, as this
 * isolate holds them, decide 404, 402, 403, 429 or 204 (siteBuffer.ts). A `ua` that is no known
 * AI crawler is answered 204 and not stored. An `ip` (the crawler's address) marks the visit
 * verified when its operator publishes that range.
 */
export async function ingestCrawl(request: IRequest, env: Env, ctx: ExecutionContext): Promise<Response> {
	const body = parseJsonObject(await readTextWithin(request, CRAWL_LIMITS.bodyChars));
	const trackingId = trackingIdOf(body);
	if (!trackingId) throw new HttpError(400, "tracking_id is required");
	if (!isTrackingIdShaped(trackingId)) throw new HttpError(404, UNKNOWN_SITE);

	const ua = typeof body.ua === "string" ? cutText(body.ua, CRAWL_LIMITS.userAgent) : "";
	const crawler = ua ? matchCrawler(ua) : null;
	const outcome = await admitVisit(env, ctx, trackingId, {
		claimedHost: claimedHost(body.url_host),
		visit: crawler && {
			id: crypto.randomUUID(),
			ts: Date.now(),
			crawler: crawler.name,
			urlHost: storedHost(body.url_host, CRAWL_LIMITS.host),
			urlPath: crawledPath(body.url_path),
			country: countryCode(body.country),
			status: httpStatus(body.status),
			ua,
			// The crawler's own address as the site saw it: this request comes from the site.
			verified: isVerifiedVisit(crawler.name, typeof body.ip === "string" ? cutText(body.ip.trim(), CRAWL_LIMITS.address) : null),
		},
	});
	return siteOutcomeResponse(outcome, "Too many crawler events");
}
