import { isbot } from "isbot";
import UAParser from "ua-parser-js";
import { memoizeByText } from "../textMemo";

/** What the user agent says about the client, for storage and for Attack Mode. */
export interface ClientDescription {
	/** A crawler, monitor, preview fetcher or other non-human client (isbot). */
	bot: boolean;
	/** Why Attack Mode refuses this client, or null when it does not. */
	suspicious: "short" | "tool" | "headless" | null;
	browser: string;
	os: string;
	/** desktop, mobile, tablet, smarttv, console, wearable or embedded. */
	device: string;
}

/** Real browsers send 70+ characters; anything this short is a script that set its own. */
const SHORT_USER_AGENT = 40;

// Used synchronously, so sharing one parser is safe.
const parser = new UAParser();

/**
 * What `userAgent` says about the client; the same frozen answer for the same text. Remembered
 * for 1,000 User-Agents of up to 512 characters (real ones are under 300; at most about 1 MB):
 * real traffic has few distinct ones, and parsing one costs more than the rest of an event.
 */
export const describeClient: (userAgent: string) => Readonly<ClientDescription> = memoizeByText((userAgent) => Object.freeze(parseClient(userAgent)), {
	entries: 1_000,
	maxChars: 512,
});

function parseClient(userAgent: string): ClientDescription {
	const { browser, os, device } = parser.setUA(userAgent).getResult();
	const bot = isbot(userAgent);
	return {
		// An empty user agent is no browser either.
		bot: userAgent.trim() === "" || bot,
		suspicious: suspicion(userAgent, bot),
		browser: browser.name ?? "",
		os: os.name ?? "",
		device: device.type ?? (browser.name ? "desktop" : ""),
	};
}

function suspicion(userAgent: string, bot: boolean): ClientDescription["suspicious"] {
	if (userAgent.length < SHORT_USER_AGENT) return "short";
	if (/headless|phantomjs/i.test(userAgent)) return "headless";
	// A command-line tool or HTTP library (curl, python-requests, Go-http-client...): isbot knows
	// it, and it does not present itself as a browser with "Mozilla/" (crawlers that render pages do).
	if (bot && !/^mozilla\//i.test(userAgent)) return "tool";
	return null;
}

/**
 * Traffic that is not a visit even though a browser sent it: speculative prefetch and prerender
 * loads (the tracker itself waits for a prerendered page to be shown).
 */
export function isExcludedTraffic(request: Request): boolean {
	const purpose = `${request.headers.get("sec-purpose") ?? ""} ${request.headers.get("purpose") ?? ""} ${request.headers.get("x-moz") ?? ""}`;
	return /prefetch|prerender/i.test(purpose);
}
