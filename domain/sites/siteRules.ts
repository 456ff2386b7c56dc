/**
 * What a site decides about one analytics event or crawler visit, from its settings alone. The
 * Worker isolate decides with its cached settings before it answers; the site's SiteCollector
 * decides again when the batch arrives, with the settings it holds, and drops what fails.
 */
import { storedHost } from "../analytics/fields";
import { COLLECT_LIMITS, COLLECT_RATE, CRAWL_RATE, type RateWindow } from "../limits";
import { hostMatchesDomain } from "./hostnames";
import { ownerHasAccess, type SiteConfig } from "./siteStore";

/** What the site decided about one event; the handler turns it into the HTTP answer. */
export type SiteOutcome =
	| { status: "accepted" }
	/** No such site, or it is switched off. */
	| { status: "unknown_site" }
	/** The owner has neither Pro nor a running trial. */
	| { status: "no_access" }
	/** `outsideHost`: the `url_host` refused as outside the site's domain. */
	| { status: "forbidden"; reason: string; outsideHost?: string }
	| { status: "rate_limited"; retryAfterSeconds: number };

/** The client as Attack Mode judges it; crawler telemetry comes from the site's server and has none. */
export interface ClientFacts {
	/** CF-Connecting-IP as the request carried it; null when it carried none. */
	ip: string | null;
	/** Why Attack Mode would refuse this client, or null. */
	suspicious: string | null;
}

/**
 * Unknown or inactive site, then the owner's access, then the domain, then (for a browser event)
 * Attack Mode; null when the site takes the event. `claimedHost` is the `url_host` to authorize,
 * or null when the event omitted it.
 */
export function refusal(site: SiteConfig | null, claimedHost: string | null, client: ClientFacts | null, now: number): SiteOutcome | null {
	if (!site?.active) return { status: "unknown_site" };
	if (!ownerHasAccess(site, now)) return { status: "no_access" };
	if (!site.domain) return { status: "forbidden", reason: "The site has no configured domain" };
	if (claimedHost !== null && !hostMatchesDomain(claimedHost, site.domain)) {
		// As the events store a host (storedHost): lower-case, without port or trailing dot, cut on whole characters.
		const outsideHost = storedHost(claimedHost, COLLECT_LIMITS.host) || undefined;
		return { status: "forbidden", reason: "url_host is not the site's domain or a subdomain of it", outsideHost };
	}
	if (client && site.attackMode) {
		if (!client.ip) return { status: "forbidden", reason: "Attack Mode is on: requests without a client IP are refused" };
		if (client.suspicious) return { status: "forbidden", reason: `Attack Mode is on: ${client.suspicious} user agents are refused` };
	}
	return null;
}

/** The site's own window for browser events (Attack Mode's is tighter). Names are per site, so one set of windows can hold many sites. */
export function collectSiteWindow(trackingId: string, site: SiteConfig): RateWindow {
	const limits = site.attackMode ? COLLECT_RATE.attack : COLLECT_RATE.normal;
	return { name: `${trackingId} site`, limit: limits.perSite, windowSeconds: COLLECT_RATE.windowSeconds };
}

/** The client address's window on the site, then the site's own. */
export function collectWindows(trackingId: string, site: SiteConfig, ip: string | null): RateWindow[] {
	const limits = site.attackMode ? COLLECT_RATE.attack : COLLECT_RATE.normal;
	return [
		{ name: `${trackingId} ip:${ip ?? ""}`, limit: limits.perIp, windowSeconds: COLLECT_RATE.windowSeconds },
		collectSiteWindow(trackingId, site),
	];
}

export function crawlWindow(trackingId: string): RateWindow {
	return { name: `${trackingId} crawl`, limit: CRAWL_RATE.perSite, windowSeconds: CRAWL_RATE.windowSeconds };
}
