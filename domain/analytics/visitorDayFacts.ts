/**
 * What one visitor's UTC day of events adds to the rollups (rollups.ts), computed in memory: the
 * same facts, counted the same way, as the SQL that backfills the rollups (`ROLLUP_BACKFILL`; a
 * test checks that both give the same rows), except the custom events' properties, which depend
 * on one event alone and are added in SQL as each new event is stored (eventStore.ts).
 */
import type { StoredEvent } from "./event";
import { COUNTERS, HOUR_MS, SESSION_GAP_MS } from "./rollups";
import { DIRECT } from "./statsRange";

/** The fields of a stored event the facts read. */
export const DAY_EVENT_KEYS = [
	"eventId",
	"ts",
	"name",
	"urlPath",
	"referrerHost",
	"source",
	"utmSource",
	"utmMedium",
	"utmCampaign",
	"utmContent",
	"utmTerm",
	"ref",
	"country",
	"browser",
	"os",
	"device",
	"distinctId",
	"duration",
	"engagedMs",
	"scrollDepth",
] as const satisfies ReadonlyArray<keyof StoredEvent>;
export type DayEvent = Pick<StoredEvent, (typeof DAY_EVENT_KEYS)[number]>;

type Counter = (typeof COUNTERS)[number];
/** Values of COUNTERS (rollups.ts), in that order. */
export type Counters = number[];

/** Contributions keyed by `dim \u0001 hour start \u0001 label`. */
export type Contributions = Map<string, Counters>;

/** Separates a contribution key's parts; a label is stored text and may hold it, so it comes last. */
export const SEP = "\u0001";
/** A contribution's key: its breakdown, the start of its hour (or of the day it sums into), its label. */
export const contributionKey = (dim: string, start: number | string, label: string) => `${dim}${SEP}${start}${SEP}${label}`;
export const splitContributionKey = (key: string): [dim: string, hourStart: number, label: string] => {
	const [dim, hour, ...label] = key.split(SEP);
	return [dim, Number(hour), label.join(SEP)];
};

/** A counter's position in Counters. */
const AT = Object.fromEntries(COUNTERS.map((name, i) => [name, i])) as Record<Counter, number>;

/** An hour's start as contribution keys spell it, made once per event rather than once per contribution. */
const hourOf = (ts: number) => String(Math.floor(ts / HOUR_MS) * HOUR_MS);

/** The counters of one contribution (`dim`, an hour from `hourOf`, `label`), from zero when new; callers add to them in place. */
function countersAt(into: Contributions, dim: string, hourKey: string, label: string): Counters {
	const key = contributionKey(dim, hourKey, label);
	let counters = into.get(key);
	if (!counters) {
		counters = new Array(COUNTERS.length).fill(0);
		into.set(key, counters);
	}
	return counters;
}

const unknown = (value: string | null) => (value ? value : "Unknown");
/** A `_leave`'s engaged time: the current tracker's engaged_ms, or an older tracker's duration in seconds. */
const engagedOf = (e: DayEvent) => (e.name === "_leave" ? (e.engagedMs ?? (e.duration == null ? null : e.duration * 1000)) : null);
const isVisit = (e: DayEvent) => e.name !== "_leave" && e.name !== "_identify";

/** Breakdowns of single events: dim → the event's label, or undefined when the event does not count there. */
const EVENT_LABELS: Array<[dim: string, label: (e: DayEvent) => string | undefined]> = [
	["", (e) => (isVisit(e) ? "" : undefined)],
	["pages", (e) => (e.name === "" || e.name === "_leave" ? e.urlPath : undefined)],
	["referrers", (e) => (e.name === "" && e.referrerHost ? e.referrerHost : undefined)],
	["countries", (e) => (e.name === "" ? unknown(e.country) : undefined)],
	["browsers", (e) => (e.name === "" ? unknown(e.browser) : undefined)],
	["os", (e) => (e.name === "" ? unknown(e.os) : undefined)],
	["devices", (e) => (e.name === "" ? unknown(e.device) : undefined)],
	["custom_events", (e) => (isVisit(e) && e.name !== "" ? e.name : undefined)],
	["identified", (e) => e.distinctId ?? undefined],
];

/** A session's entry: its first page view's path, source, campaign and ref (rollups.ts's ENTRY, in its order). */
type Entry = [path: string, source: string, ...campaign: Array<string | null>];
/** Visit breakdowns: dim → the session's label (empty or null: not counted there). */
const VISIT_LABELS: Array<[dim: string, label: (entry: Entry, exitPath: string) => string | null]> = [
	["entry_pages", (entry) => entry[0]],
	["exit_pages", (_, exitPath) => exitPath],
	["sources", (entry) => entry[1] || DIRECT],
	["utm_source", (entry) => entry[2]],
	["utm_medium", (entry) => entry[3]],
	["utm_campaign", (entry) => entry[4]],
	["utm_content", (entry) => entry[5]],
	["utm_term", (entry) => entry[6]],
	["ref", (entry) => entry[7]],
];

const byTime = (a: DayEvent, b: DayEvent) => a.ts - b.ts || (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0);

/** The contributions of one visitor's day: `events` are all of that visitor's events of one UTC day. */
export function visitorDayFacts(unsorted: readonly DayEvent[]): Contributions {
	const events = [...unsorted].sort(byTime);
	const facts: Contributions = new Map();

	// Single events: the visitor counts at their first counted event of the day with each label,
	// and (the site as a whole) at their first of each hour.
	const seen = new Map<string, { counted: boolean; hour: number }>();
	for (const e of events) {
		const hour = Math.floor(e.ts / HOUR_MS);
		const hourKey = hourOf(e.ts);
		for (const [dim, labelOf] of EVENT_LABELS) {
			const label = labelOf(e);
			if (label === undefined) continue;
			const counted = dim !== "pages" || e.name === "";
			const key = `${dim}${SEP}${label}`;
			const before = seen.get(key);
			const c = countersAt(facts, dim, hourKey, label);
			if (counted && !before?.counted) c[AT.visitors]++;
			if (dim === "" && before?.hour !== hour) c[AT.hour_visitors]++;
			if (e.name === "") c[AT.pageviews]++;
			if (dim === "identified" || (isVisit(e) && e.name !== "")) c[AT.events]++;
			if (before) {
				before.counted ||= counted;
				before.hour = hour;
			} else {
				seen.set(key, { counted, hour });
			}
		}
	}

	// Per page: the engaged time and deepest scroll reported, at the page's first event of the day.
	const pages = new Map<string, { ts: number; engaged: number | null; depth: number | null }>();
	for (const e of events) {
		if (e.name !== "" && e.name !== "_leave") continue;
		const page = pages.get(e.urlPath) ?? { ts: e.ts, engaged: null, depth: null };
		const engaged = engagedOf(e);
		if (engaged !== null) page.engaged = (page.engaged ?? 0) + engaged;
		if (e.scrollDepth != null) page.depth = Math.max(page.depth ?? e.scrollDepth, e.scrollDepth);
		pages.set(e.urlPath, page);
	}
	for (const [path, { ts, engaged, depth }] of pages) {
		const c = countersAt(facts, "pages", hourOf(ts), path);
		if (engaged !== null) {
			c[AT.engaged_ms] += engaged;
			c[AT.engaged_n]++;
		}
		if (depth !== null) {
			c[AT.depth_sum] += depth;
			c[AT.depth_n]++;
		}
	}

	// Sessions: cut by 30 minutes without activity (a report's engaged time counts as activity
	// before it); each counts at its first page view or custom event.
	const counted = new Set<string>();
	let session: Session | null = null;
	let previousTs: number | null = null;
	const close = () => {
		if (session) countSession(facts, session, counted);
	};
	for (const e of events) {
		if (e.name === "_identify") continue;
		const engaged = engagedOf(e);
		if (previousTs === null || e.ts - (engaged ?? 0) - previousTs > SESSION_GAP_MS) {
			close();
			session = { firstVisit: null, pageviews: 0, custom: 0, engaged: 0, entry: null, exit: null };
		}
		previousTs = e.ts;
		const s = session as Session;
		if (isVisit(e)) s.firstVisit ??= e.ts;
		if (e.name !== "" && isVisit(e)) s.custom++;
		if (engaged !== null) s.engaged += engaged;
		if (e.name === "") {
			s.pageviews++;
			const entry: Entry = [e.urlPath, e.source, e.utmSource, e.utmMedium, e.utmCampaign, e.utmContent, e.utmTerm, e.ref];
			// Two page views at one millisecond: the smaller text first, as min() over time-prefixed text picks.
			if (!s.entry || (e.ts === s.entry.ts && JSON.stringify(entry) < JSON.stringify(s.entry.value))) s.entry = { ts: e.ts, value: entry };
			if (!s.exit || e.ts > s.exit.ts || e.urlPath > s.exit.path) s.exit = { ts: e.ts, path: e.urlPath };
		}
	}
	close();
	return facts;
}

interface Session {
	firstVisit: number | null;
	pageviews: number;
	custom: number;
	engaged: number;
	entry: { ts: number; value: Entry } | null;
	exit: { ts: number; path: string } | null;
}

/** A finished session's facts: the site's visit, bounce and engaged time, and its visit breakdowns (the visitor once per label a day). */
function countSession(facts: Contributions, s: Session, counted: Set<string>) {
	if (s.firstVisit === null) return;
	const hourKey = hourOf(s.firstVisit);
	const site = countersAt(facts, "", hourKey, "");
	site[AT.visits]++;
	if (s.pageviews === 1 && s.custom === 0) site[AT.bounces]++;
	site[AT.engaged_ms] += s.engaged;
	if (s.pageviews === 0 || !s.entry || !s.exit) return;
	for (const [dim, labelOf] of VISIT_LABELS) {
		const label = labelOf(s.entry.value, s.exit.path);
		if (!label) continue;
		const key = `${dim}${SEP}${label}`;
		const c = countersAt(facts, dim, hourKey, label);
		c[AT.visits]++;
		if (!counted.has(key)) c[AT.visitors]++;
		counted.add(key);
	}
}
