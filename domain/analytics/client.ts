import { isbot } from "isbot";
import { UAParser } from "ua-parser-js";
import { CLIs, Libraries } from "ua-parser-js/extensions";

/** What the user agent says about the client, for storage and for Attack Mode. */
export interface ClientDescription {
	/** A crawler, monitor, preview fetcher or other non-human client (isbot). */
	bot: boolean;
	/** Why Attack Mode refuses this client, or null when it does not. */
	suspicious: "short" | "tool" | "headless" | null;
	browser: string;
	os: string;
	/** desktop, mobile, tablet, smarttv, console, wearable, xr or embedded. */
	device: string;
}

/** Real browsers send 70+ characters; anything this short is a script that set its own. */
const SHORT_USER_AGENT = 40;

// One parser with the command-line tools and HTTP libraries extensions (curl, wget,
// python-requests, axios, Go-http-client...). Used synchronously, so sharing it is safe.
const parser = new UAParser([CLIs, Libraries].flat());

export function describeClient(userAgent: string): ClientDescription {
	const { browser, os, device } = parser.setUA(userAgent).getResult();
	const suspicious =
		userAgent.length < SHORT_USER_AGENT
			? "short"
			: browser.type === "cli" || browser.type === "library"
				? "tool"
				: /headless|phantomjs/i.test(`${browser.name ?? ""} ${userAgent}`)
					? "headless"
					: null;
	return {
		// An empty user agent is no browser either.
		bot: userAgent.trim() === "" || isbot(userAgent),
		suspicious,
		browser: browser.name ?? "",
		os: os.name ?? "",
		device: device.type ?? (browser.name ? "desktop" : ""),
	};
}

/**
 * Traffic that is not a visit even though a browser sent it: speculative prefetch and prerender
 * loads (the tracker itself waits for a prerendered page to be shown).
 */
export function isExcludedTraffic(request: Request): boolean {
	const purpose = `${request.headers.get("sec-purpose") ?? ""} ${request.headers.get("purpose") ?? ""} ${request.headers.get("x-moz") ?? ""}`;
	return /prefetch|prerender/i.test(purpose);
}
