import { clampedInteger, storedHost, text } from "./fields";
import { COLLECT_LIMITS as L } from "../limits";
import { hostOnly } from "../sites/hostnames";
import { campaignOf } from "./sources";
import { scrubQuery, scrubUrl } from "../logs/scrub";
import { cutText } from "../text";

/** One stored browser event (analytics_events), as the SiteCollector batches it to D1. */
export interface StoredEvent {
	trackingId: string;
	eventId: string;
	ts: number;
	name: string;
	data: string | null;
	urlHost: string | null;
	urlPath: string;
	urlQuery: string;
	referrer: string;
	referrerHost: string;
	source: string;
	utmSource: string;
	utmMedium: string;
	utmCampaign: string;
	utmContent: string;
	utmTerm: string;
	/** The page URL's `ref` parameter (sources.ts). */
	ref: string;
	title: string;
	language: string;
	screen: string;
	visitorId: string;
	distinctId: string | null;
	sessionId: string | null;
	duration: number | null;
	engagedMs: number | null;
	scrollDepth: number | null;
	seq: number;
	v: string;
	browser: string;
	os: string;
	device: string;
	country: string;
}

/** The columns of analytics_events, each with the key of StoredEvent it holds, in table order. */
export const STORED_COLUMNS: ReadonlyArray<readonly [column: string, key: keyof StoredEvent]> = [
	["tracking_id", "trackingId"],
	["event_id", "eventId"],
	["ts", "ts"],
	["name", "name"],
	["data", "data"],
	["url_host", "urlHost"],
	["url_path", "urlPath"],
	["url_query", "urlQuery"],
	["referrer", "referrer"],
	["referrer_host", "referrerHost"],
	["source", "source"],
	["utm_source", "utmSource"],
	["utm_medium", "utmMedium"],
	["utm_campaign", "utmCampaign"],
	["utm_content", "utmContent"],
	["utm_term", "utmTerm"],
	["title", "title"],
	["language", "language"],
	["screen", "screen"],
	["visitor_id", "visitorId"],
	["distinct_id", "distinctId"],
	["session_id", "sessionId"],
	["duration", "duration"],
	["engaged_ms", "engagedMs"],
	["scroll_depth", "scrollDepth"],
	["seq", "seq"],
	["v", "v"],
	["browser", "browser"],
	["os", "os"],
	["device", "device"],
	["country", "country"],
	["ref", "ref"],
];

/** What the body says about the event; who sent it, when and from where is added later. */
export type EventFields = Omit<
	StoredEvent,
	"trackingId" | "ts" | "visitorId" | "referrerHost" | "source" | "browser" | "os" | "device" | "country"
> & {
	/** The tracker's own visitor id, when it sent one; else the collector derives one. */
	visitorId: string | null;
	/** utm_source, source or ref of the page URL, which names the source when present. */
	namedSource: string;
};

const EVENT_ID = /^[0-9a-f-]{8,64}$/;

const identity = (value: unknown) => text(value, L.identity) || null;

/** The event's data: JSON text (an object is serialized), replaced by "{}" beyond 8,000 characters. */
function eventData(value: unknown): string | null {
	const serialized = typeof value === "string" ? value : typeof value === "object" && value !== null ? JSON.stringify(value) : null;
	if (serialized === null) return null;
	const wellFormed = serialized.toWellFormed();
	return wellFormed.length > L.eventData ? "{}" : wellFormed;
}

/** A host as compared for self-referrals: lower case, without port, trailing dot or leading `www.`. */
const bareHost = (host: string) => hostOnly(host).replace(/^www\./, "");

/**
 * The referrer's host when it is another site; internal navigation and direct visits are "".
 * `ownHost` is the event's url_host, or the site's configured domain when the event omitted it
 * (else every visit of a tracker that leaves url_host out would list the site as its own
 * referrer). `www.` and the apex are one site: sites serve both and redirect between them.
 * Another subdomain stays a referrer, as Plausible counts it.
 */
export function externalHost(referrer: string, ownHost: string | null): string {
	if (!referrer) return "";
	try {
		const host = new URL(referrer).hostname.toLowerCase();
		return ownHost !== null && bareHost(host) === bareHost(ownHost) ? "" : host;
	} catch {
		return "";
	}
}

/**
 * A page's query or referrer as stored: its secrets filtered first (a password reset's `?token=`,
 * an OAuth `#access_token=`, a card number), as a log's request URL is, then cut to `max`.
 */
const withoutSecrets = (value: unknown, scrub: (text: string) => string, max: number) => cutText(scrub(text(value, L.bodyChars) ?? ""), max);

/** Every field rule of a browser event (docs/api.md#collect-browser-analytics). Never throws: a field of the wrong shape counts as absent. */
export function readEventFields(body: Record<string, unknown>): EventFields {
	const rawId = typeof body.event_id === "string" ? body.event_id.toLowerCase() : "";
	const urlHost = storedHost(body.url_host, L.host);
	const referrer = withoutSecrets(body.referrer, scrubUrl, L.bodyChars);
	const urlQuery = withoutSecrets(body.url_query, scrubQuery, L.urlPart);
	return {
		eventId: EVENT_ID.test(rawId) ? rawId : crypto.randomUUID(),
		name: text(body.event_name, L.eventName) ?? "",
		data: eventData(body.event_data),
		urlHost,
		urlPath: text(body.url_path, L.urlPart) || "/",
		urlQuery,
		...campaignOf(urlQuery),
		referrer,
		title: text(body.title, L.title) ?? "",
		language: text(body.language, L.short) ?? "",
		screen: text(body.screen, L.short) ?? "",
		visitorId: identity(body.visitor_id),
		distinctId: identity(body.distinct_id),
		sessionId: identity(body.session_id),
		duration: clampedInteger(body.duration, 0, L.durationMax) ?? null,
		engagedMs: clampedInteger(body.engaged_ms, 0, L.engagedMsMax) ?? null,
		scrollDepth: clampedInteger(body.scroll_depth, 0, L.scrollDepthMax) ?? null,
		seq: clampedInteger(body.seq, 0, L.seqMax) ?? 0,
		v: text(body.v, L.version) ?? "",
	};
}
