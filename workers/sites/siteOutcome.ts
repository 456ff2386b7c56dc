import type { SiteOutcome } from "../../domain/sites/siteRules";
import { HttpError, tooManyRequests } from "../http";

export const UNKNOWN_SITE = "Unknown tracking ID or inactive site";

/** A site's decision as the answer: 204 with no body, or the one error shape. */
export function siteOutcomeResponse(outcome: SiteOutcome, tooManyWhat: string): Response {
	switch (outcome.status) {
		case "accepted":
			return new Response(null, { status: 204 });
		case "unknown_site":
			throw new HttpError(404, UNKNOWN_SITE);
		case "no_access":
			throw new HttpError(402, "The site owner has neither a Pro subscription nor an active trial");
		case "forbidden":
			throw new HttpError(403, outcome.reason);
		case "rate_limited":
			throw tooManyRequests(outcome.retryAfterSeconds, tooManyWhat);
	}
}
