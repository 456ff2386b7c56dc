/**
 * The statistics tests' data: a hand-counted day of events (DAY) and crawler visits, stored as
 * the collectors' flushes store them, rollups included.
 */
import { env } from "cloudflare:workers";
import type { StoredEvent } from "../domain/analytics/event";
import { eventWrites } from "../domain/analytics/eventStore";
import { VisitorDays } from "../domain/analytics/rollupWriter";
import { visitInsertStatements } from "../domain/crawl/visitStore";

const T0 = Date.parse("2025-03-01T00:00:00Z");
export const at = (hhmm: string) => T0 + (Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3))) * 60_000;
export const RANGE = "from=2025-03-01T00:00:00Z&to=2025-03-02T00:00:00Z";

const CHROME = { browser: "Chrome", os: "Windows", device: "desktop" };
const IOS = { browser: "Mobile Safari", os: "iOS", device: "mobile" };
const FIREFOX = { browser: "Firefox", os: "Linux", device: "desktop" };

export interface Seed {
	visitor: string;
	ts: number;
	name?: string;
	path?: string;
	referrer_host?: string;
	source?: string;
	utm?: { source?: string; medium?: string; campaign?: string; content?: string; term?: string };
	ref?: string;
	/** The full referrer; else, with a referrer_host, https://<host>/. */
	referrer?: string;
	duration?: number;
	engaged_ms?: number;
	scroll_depth?: number;
	distinct_id?: string;
	country?: string;
	ua?: typeof CHROME;
	data?: string;
}

let seeded = 0;
/** Stores the events as the collector's flush does (rollups included), in time order. */
export async function seedEvents(trackingId: string, events: Seed[]) {
	const write = await eventWrites(env.DB, events.map((e) => storedEvent(trackingId, e)), new VisitorDays());
	await env.DB.batch(write.statements);
}

function storedEvent(trackingId: string, e: Seed): StoredEvent {
	const ua = e.ua ?? CHROME;
	return {
		trackingId,
		eventId: `seed-${String(seeded++).padStart(6, "0")}`,
		ts: e.ts,
		name: e.name ?? "",
		data: e.data ?? null,
		urlHost: null,
		urlPath: e.path ?? "/",
		urlQuery: "",
		referrer: e.referrer ?? (e.referrer_host ? `https://${e.referrer_host}/` : ""),
		referrerHost: e.referrer_host ?? "",
		source: e.source ?? "",
		utmSource: e.utm?.source ?? "",
		utmMedium: e.utm?.medium ?? "",
		utmCampaign: e.utm?.campaign ?? "",
		utmContent: e.utm?.content ?? "",
		utmTerm: e.utm?.term ?? "",
		title: "",
		language: "",
		screen: "",
		visitorId: e.visitor,
		distinctId: e.distinct_id ?? null,
		sessionId: null,
		duration: e.duration ?? null,
		engagedMs: e.engaged_ms ?? null,
		scrollDepth: e.scroll_depth ?? null,
		seq: 0,
		v: "",
		browser: ua.browser,
		os: ua.os,
		device: ua.device,
		country: e.country ?? "",
		ref: e.ref ?? "",
	};
}

/*
 * The seeded day, 2025-03-01 (UTC):
 *   A (Chrome, Windows, DE)  10:00 view /  from news.ycombinator.com/item?id=4242#c1 (source Hacker News)
 *                            10:05 view /pricing, 10:06 "signup" {plan: pro}, 10:07 _leave /pricing 120 s (an older tracker's duration)
 *                            11:00 view /            (53 min after the 10:07 report: a second session, direct)
 *   B (iPhone, US)           10:30 view /  from www.google.com (Google), 10:31 _leave / 60 s
 *   C (Firefox, Linux, ??)   23:50 view /blog from a newsletter (utm_source=newsletter, utm_medium=email,
 *                            utm_campaign=spring, ref=digest), 23:52 engagement report 30 s, scrolled 40 %,
 *                            23:55 "signup" {plan: pro, seats: 2, extra: {…}}, 23:56 "download" (data not JSON),
 *                            23:57 _identify user-42,
 *                            23:58 engagement report 15 s, scrolled 85 %
 *   D                        23:59 the day before, and 00:00 the day after: outside the range
 *
 * By hand: page views 5 (A 3, B 1, C 1); visitors 3; custom events 3; sessions 4 (A twice,
 * B, C); bounces 2 (A's 11:00 session and B's: one view, no custom event) → 0.5; visit
 * duration: A 120 s and 0 s, B 60 s, C 30 + 15 = 45 s → 225 / 4 = 56.25 → 56.3; one identified visitor.
 * Entry pages: / 3 visits (A twice, B), /blog 1. Exit pages: / 2 (A's second, B), /blog 1, /pricing 1.
 * Sources (first page view of each visit): Direct, Google, Hacker News, newsletter, one each.
 */
export const DAY: Seed[] = [
	{ visitor: "A", ts: at("10:00"), path: "/", referrer: "https://news.ycombinator.com/item?id=4242#c1", referrer_host: "news.ycombinator.com", source: "Hacker News", country: "DE" },
	{ visitor: "A", ts: at("10:05"), path: "/pricing", country: "DE" },
	{ visitor: "A", ts: at("10:06"), name: "signup", path: "/pricing", country: "DE", data: '{"plan":"pro"}' },
	{ visitor: "A", ts: at("10:07"), name: "_leave", path: "/pricing", duration: 120, country: "DE" },
	{ visitor: "A", ts: at("11:00"), path: "/", country: "DE" },
	{ visitor: "B", ts: at("10:30"), path: "/", referrer_host: "www.google.com", source: "Google", country: "US", ua: IOS },
	{ visitor: "B", ts: at("10:31"), name: "_leave", path: "/", duration: 60, country: "US", ua: IOS },
	{ visitor: "C", ts: at("23:50"), path: "/blog", source: "newsletter", utm: { source: "newsletter", medium: "email", campaign: "spring" }, ref: "digest", ua: FIREFOX },
	{ visitor: "C", ts: at("23:52"), name: "_leave", path: "/blog", engaged_ms: 30_000, scroll_depth: 40, ua: FIREFOX },
	{ visitor: "C", ts: at("23:55"), name: "signup", path: "/blog", ua: FIREFOX, data: '{"plan":"pro","seats":2,"extra":{"a":1}}' },
	{ visitor: "C", ts: at("23:56"), name: "download", path: "/blog", ua: FIREFOX, data: "not json" },
	{ visitor: "C", ts: at("23:57"), name: "_identify", path: "/blog", distinct_id: "user-42", ua: FIREFOX },
	{ visitor: "C", ts: at("23:58"), name: "_leave", path: "/blog", engaged_ms: 15_000, scroll_depth: 85, ua: FIREFOX },
	{ visitor: "D", ts: T0 - 60_000, path: "/" },
	{ visitor: "D", ts: T0 + 24 * 3_600_000, path: "/" },
];

/** Stores crawler visits as the collector's flush does (rollups included). */
export async function seedVisits(trackingId: string, visits: Array<[crawler: string, path: string, status: number, minute: number]>) {
	await env.DB.batch(
		visitInsertStatements(
			env.DB,
			visits.map(([crawler, urlPath, status, minute], i) => ({
				id: `v-${trackingId}-${i}`,
				trackingId,
				ts: T0 + minute * 60_000,
				crawler,
				urlHost: "example.com",
				urlPath,
				country: "US",
				status,
				ua: `${crawler}/1.0`,
				verified: null,
			})),
		),
	);
}
