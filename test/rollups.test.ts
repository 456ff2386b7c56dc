import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { lastMigrationStatement } from "./helpers";
import type { StoredEvent } from "../domain/analytics/event";
import { eventWrites } from "../domain/analytics/eventStore";
import { VisitorDays } from "../domain/analytics/rollupWriter";
import { computeSiteStats, type StatsRequest } from "../domain/analytics/siteStats";
import { ROLLUP_BACKFILL } from "../domain/analytics/rollups";
import type { StatsRange } from "../domain/analytics/statsRange";
import { ownerWithSite } from "./analytics-helpers";
import { uniformFloat64 } from "pure-rand/distribution/uniformFloat64";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";

/*
 * The unfiltered statistics read the rollups; with filters (or `fromEvents`) the same figures are
 * computed from the events. Where the two definitions agree (docs/api.md#statistics-from-rollups)
 * the answers must be equal, figure for figure, whatever hours the range covers.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const T0 = Date.parse("2025-04-01T00:00:00Z");

/** A seeded generator (xoroshiro128+), so the data set is the same on every run. */
function generator(seed: number) {
	const rng = xoroshiro128plus(seed);
	const next = () => uniformFloat64(rng);
	const int = (below: number) => Math.floor(next() * below);
	const pick = <T>(list: readonly T[]) => list[int(list.length)];
	return { next, int, pick };
}

const PATHS = ["/", "/pricing", "/docs", "/blog/a", "/blog/b", "/about"];
const SOURCES = [
	["", "", {}],
	["www.google.com", "Google", {}],
	["news.ycombinator.com", "Hacker News", {}],
	["", "newsletter", { utmSource: "newsletter", utmMedium: "email", utmCampaign: "spring", ref: "digest" }],
	["t.co", "X (Twitter)", { utmCampaign: "launch", utmContent: "thread", utmTerm: "analytics" }],
	["www.producthunt.com", "Product Hunt", { ref: "producthunt" }],
] as const;
const AGENTS = [
	["Chrome", "Windows", "desktop"],
	["Mobile Safari", "iOS", "mobile"],
	["Firefox", "Linux", "desktop"],
	["", "", ""],
] as const;
const COUNTRIES = ["DE", "US", "FR", ""];

let eventNumber = 0;
function stored(trackingId: string, fields: Partial<StoredEvent> & Pick<StoredEvent, "ts" | "visitorId">): StoredEvent {
	return {
		trackingId,
		eventId: `e-${String(eventNumber++).padStart(7, "0")}`,
		name: "",
		data: null,
		urlHost: "example.com",
		urlPath: "/",
		urlQuery: "",
		referrer: "",
		referrerHost: "",
		source: "",
		utmSource: "",
		utmMedium: "",
		utmCampaign: "",
		utmContent: "",
		utmTerm: "",
		title: "",
		language: "",
		screen: "",
		distinctId: null,
		sessionId: null,
		duration: null,
		engagedMs: null,
		scrollDepth: null,
		seq: 0,
		v: "2",
		browser: "Chrome",
		os: "Windows",
		device: "desktop",
		country: "",
		ref: "",
		...fields,
	};
}

/**
 * Three days of visits. Each visitor's day (its id is new every day, as the daily salt makes it)
 * lies inside one window of a day's three-hour slots, [slot + 20 min, slot + 2 h 40 min): one to
 * three sessions of page views 1 to 12 minutes apart (crossing hours), custom events with data,
 * engagement reports of both tracker generations with scroll depth, `_identify`, sources and
 * campaigns on landing pages. Ranges that start or end in the gaps between windows cut no
 * visitor's day, which is where the two definitions agree.
 */
function variedEvents(trackingId: string): StoredEvent[] {
	const random = generator(7);
	const events: StoredEvent[] = [];
	for (let day = 0; day < 3; day++) {
		for (let n = 0; n < 40; n++) {
			const visitorId = `d${day}-v${n}`;
			const [browser, os, device] = random.pick(AGENTS);
			const who = { visitorId, browser, os, device, country: random.pick(COUNTRIES) };
			const windowEnd = T0 + day * DAY + random.int(8) * 3 * HOUR + 160 * MINUTE;
			let ts = windowEnd - 140 * MINUTE + random.int(10) * MINUTE;
			const sessions = 1 + random.int(3);
			for (let s = 0; s < sessions && ts < windowEnd - 15 * MINUTE; s++) {
				const [referrerHost, source, campaign] = random.pick(SOURCES);
				const views = 1 + random.int(4);
				for (let v = 0; v < views && ts < windowEnd - 5 * MINUTE; v++) {
					const urlPath = random.pick(PATHS);
					const landing = v === 0 ? { referrerHost, source, ...campaign } : {};
					events.push(stored(trackingId, { ...who, ts, urlPath, ...landing }));
					const roll = random.next();
					if (roll < 0.15) {
						const data = random.pick([null, '{"plan":"pro"}', '{"plan":"free","seats":2}', '{"nested":{"a":1}}', "not json"]);
						events.push(stored(trackingId, { ...who, ts: ts + 20_000, name: random.pick(["signup", "download"]), urlPath, data }));
					} else if (roll < 0.2) {
						events.push(stored(trackingId, { ...who, ts: ts + 25_000, name: "_identify", urlPath, distinctId: `user-${random.int(8)}` }));
					}
					const gap = (1 + random.int(12)) * MINUTE;
					if (random.next() < 0.5) {
						const report = random.next() < 0.5 ? { engagedMs: gap - 30_000 } : { duration: Math.round(gap / 1000) - 30 };
						events.push(stored(trackingId, { ...who, ts: ts + gap - 10_000, name: "_leave", urlPath, scrollDepth: random.int(101), ...report }));
					}
					ts += gap;
				}
				ts += (31 + random.int(20)) * MINUTE;
			}
		}
	}
	return events.sort((a, b) => a.ts - b.ts || a.eventId.localeCompare(b.eventId));
}

/**
 * Stores events as the collector's flush does: batches of `size` events, in time order, with what
 * the collector holds in memory (`days`; a new one is a collector just started).
 */
async function flush(events: StoredEvent[], size: number, days = new VisitorDays()) {
	for (let i = 0; i < events.length; i += size) {
		const write = await eventWrites(env.DB, events.slice(i, i + size), days);
		await env.DB.batch(write.statements);
		write.settle(true);
	}
}

function range(from: number, to: number): StatsRange {
	return { from, to, bucketMs: to - from <= 3 * DAY ? HOUR : DAY, limit: 100 };
}

const statsOf = (trackingId: string, r: StatsRange, extra: Partial<StatsRequest> = {}) =>
	computeSiteStats(env, trackingId, { range: r, filters: {}, comparePrevious: false, now: T0 + 3 * DAY, ...extra });

/**
 * The site's rollup rows that count anything. A row can fall to all zeros when what it counted
 * moved (a session's exit page, once the visitor went on): such a row adds nothing to any sum.
 */
const rollupRows = async (trackingId: string) =>
	(
		await env.DB.prepare(
			`SELECT * FROM analytics_rollups WHERE tracking_id = ?
				AND (visitors, hour_visitors, pageviews, events, visits, bounces, engaged_ms, engaged_n, depth_sum, depth_n) <> (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
			ORDER BY dim, span, start, value`,
		)
			.bind(trackingId)
			.all()
	).results;

// Seeding thousands of events takes a second or two alone and many times that on a loaded machine.
describe("statistics from the rollups equal those from the events", { timeout: 60_000 }, () => {
	const slot = (day: number, slotOfDay: number) => T0 + day * DAY + slotOfDay * 3 * HOUR;
	const ranges: Array<[string, number, number]> = [
		["the three days (hourly buckets)", T0, T0 + 3 * DAY],
		["one whole UTC day", T0 + DAY, T0 + 2 * DAY],
		["five days around them (daily buckets)", T0 - DAY, T0 + 4 * DAY],
		["mid-hour ends, counted as their whole hours, across midnight", slot(0, 5) + 10 * MINUTE, slot(2, 3) - 10 * MINUTE],
		["mid-hour ends within one day", slot(1, 2) + 10 * MINUTE, slot(1, 4) - 10 * MINUTE],
		["whole hours, no whole day", slot(1, 1), slot(1, 6)],
		["one slot's hours", slot(2, 4) + 25 * MINUTE, slot(2, 5) - 35 * MINUTE],
	];

	// Each range's whole hours, and those of its previous period (compare=previous), start and end in such gaps too.
	it.for(ranges)("%s", async ([, from, to], { expect }) => {
		const { site } = await ownerWithSite();
		const events = variedEvents(site.tracking_id);
		await flush(events, 37);
		const fromRollups = await statsOf(site.tracking_id, range(from, to), { comparePrevious: true });
		const fromEvents = await statsOf(site.tracking_id, range(from, to), { comparePrevious: true, fromEvents: true });
		expect(fromRollups.pageviews).toBeGreaterThan(0);
		// Every figure, each bucket's visits, bounce rate and visit duration included (null where no visit began).
		expect(fromRollups.series.some((bucket) => bucket.sessions > 0)).toBe(true);
		expect(fromRollups).toEqual(fromEvents);
	});

	it("the data set has what the comparison needs: multi-hour sessions, bounces, custom events, reports, identities", async ({ expect }) => {
		const { site } = await ownerWithSite();
		await flush(variedEvents(site.tracking_id), 500);
		const all = await statsOf(site.tracking_id, range(T0, T0 + 3 * DAY));
		expect(all.sessions).toBeGreaterThan(100);
		expect(all.bounce_rate).toBeGreaterThan(0.1);
		expect(all.bounce_rate).toBeLessThan(0.9);
		expect(all.events).toBeGreaterThan(10);
		expect(all.identified_visitors).toBeGreaterThan(3);
		expect(all.avg_duration).toBeGreaterThan(0);
		expect(all.event_properties.length).toBeGreaterThan(1);
		expect(all.campaigns.utm_term.length).toBe(1);
		expect(all.campaigns.ref.map((row) => row.ref).sort()).toEqual(["digest", "producthunt"]);
		expect(all.top_pages.some((page) => page.scroll_depth !== null && page.time_on_page !== null)).toBe(true);
		// Hours with visits that bounced and did not, hours with a visit's later views but no visit begun, hours with nothing.
		expect(all.series.some((bucket) => bucket.bounce_rate !== null && bucket.bounce_rate > 0 && bucket.bounce_rate < 1)).toBe(true);
		expect(all.series.some((bucket) => bucket.pageviews > 0 && bucket.sessions === 0 && bucket.avg_duration === null)).toBe(true);
		expect(all.series.some((bucket) => bucket.pageviews === 0 && bucket.bounce_rate === null)).toBe(true);
		expect(all.series.reduce((sum, bucket) => sum + bucket.sessions, 0)).toBe(all.sessions);
	});
});

// Seeding thousands of events takes a second or two alone and many times that on a loaded machine.
describe("writing the rollups", { timeout: 60_000 }, () => {
	it("the same rows however the events are batched, and a batch flushed twice (a crash after D1 committed) counts once", async ({ expect }) => {
		const one = await ownerWithSite();
		const two = await ownerWithSite();
		const trackingIds = [one.site.tracking_id, two.site.tracking_id];
		const [first, second] = trackingIds.map(variedEvents);
		await flush(first, 500);
		// A few events at a time, then again in batches of 11 (everything already stored): by the
		// same collector, and by one started afresh (a crash after D1 committed).
		const days = new VisitorDays();
		await flush(second, 4, days);
		await flush(second, 11, days);
		await flush(second, 11);
		const rows = async (trackingId: string) => (await rollupRows(trackingId)).map(({ tracking_id: _, ...row }) => row);
		expect(await rows(trackingIds[1])).toEqual(await rows(trackingIds[0]));
	}, 60_000);

	it("events arriving out of time order, as isolates' batches interleave, give the rows the backfill computes", async ({ expect }) => {
		const { site } = await ownerWithSite();
		const random = generator(11);
		const shuffled = variedEvents(site.tracking_id)
			.map((event) => ({ event, key: random.next() }))
			.sort((a, b) => a.key - b.key)
			.map(({ event }) => event);
		await flush(shuffled, 29, new VisitorDays());
		const written = await rollupRows(site.tracking_id);
		await env.DB.batch([env.DB.prepare("DELETE FROM analytics_rollups WHERE tracking_id = ?").bind(site.tracking_id), env.DB.prepare(ROLLUP_BACKFILL)]);
		expect(await rollupRows(site.tracking_id)).toEqual(written);
	});

	it("a collector that holds only a few visitor days reads the others back and writes the same rows", async ({ expect }) => {
		const one = await ownerWithSite();
		const two = await ownerWithSite();
		const [reference, forgetful] = [one.site.tracking_id, two.site.tracking_id].map(variedEvents);
		await flush(reference, 23);
		// Ten events at most: nearly every batch finds its days forgotten, and a long day is never held.
		await flush(forgetful, 23, new VisitorDays({ maxHeldEvents: 10 }));
		const rows = async (trackingId: string) => (await rollupRows(trackingId)).map(({ tracking_id: _, ...row }) => row);
		expect(await rows(two.site.tracking_id)).toEqual(await rows(one.site.tracking_id));
	});

	it("a write that failed, whether or not D1 committed it, counts once when the outbox sends it again", async ({ expect }) => {
		const one = await ownerWithSite();
		const two = await ownerWithSite();
		const [reference, tried] = [one.site.tracking_id, two.site.tracking_id].map(variedEvents);
		await flush(reference, 40);
		const days = new VisitorDays();
		for (let i = 0; i < tried.length; i += 40) {
			const batch = tried.slice(i, i + 40);
			const write = await eventWrites(env.DB, batch, days);
			// Every other batch is committed but reported failed (the connection dropped after
			// D1 committed); the others fail before D1 runs them.
			if ((i / 40) % 2 === 0) await env.DB.batch(write.statements);
			write.settle(false);
			await flush(batch, 40, days);
		}
		const rows = async (trackingId: string) => (await rollupRows(trackingId)).map(({ tracking_id: _, ...row }) => row);
		expect(await rows(two.site.tracking_id)).toEqual(await rows(one.site.tracking_id));
	});

	it("the migration's backfill computes exactly what the flushes wrote", async ({ expect }) => {
		const { site } = await ownerWithSite();
		await flush(variedEvents(site.tracking_id), 53);
		const written = await rollupRows(site.tracking_id);
		await env.DB.batch([env.DB.prepare("DELETE FROM analytics_rollups"), env.DB.prepare(ROLLUP_BACKFILL)]);
		expect(await rollupRows(site.tracking_id)).toEqual(written);
	});

	// The migration that created the rollups ran before events had `ref` (migration 0013), and its
	// statement is kept as it ran. Over such events (every ref "") it computes exactly what
	// ROLLUP_BACKFILL computes now, so the rollups it filled are the ones the flushes keep.
	it("the migration's backfill, over events stored before `ref`, computes exactly what ROLLUP_BACKFILL does", async ({ expect }) => {
		const { site } = await ownerWithSite();
		await flush(
			variedEvents(site.tracking_id).map((event) => ({ ...event, ref: "" })),
			500,
		);
		await env.DB.batch([env.DB.prepare("DELETE FROM analytics_rollups"), env.DB.prepare(ROLLUP_BACKFILL)]);
		const current = await rollupRows(site.tracking_id);
		const migration = lastMigrationStatement("_analytics_rollups.sql");
		expect(migration).toMatch(/^WITH touched AS MATERIALIZED/);
		await env.DB.batch([env.DB.prepare("DELETE FROM analytics_rollups"), env.DB.prepare(migration)]);
		expect(await rollupRows(site.tracking_id)).toEqual(current);
		expect(current.length).toBeGreaterThan(100);
	});
});

describe("hourly resolution", () => {
	it("a range counts the whole hours it touches, and says which", async ({ expect }) => {
		const { site } = await ownerWithSite();
		const at = (hhmm: string, ms = 0) => T0 + Number(hhmm.slice(0, 2)) * HOUR + Number(hhmm.slice(3)) * MINUTE + ms;
		await flush(
			[
				stored(site.tracking_id, { visitorId: "x", ts: at("09:59", 59_999) }),
				stored(site.tracking_id, { visitorId: "y", ts: at("10:00") }),
				stored(site.tracking_id, { visitorId: "z", ts: at("10:59", 59_999) }),
				stored(site.tracking_id, { visitorId: "w", ts: at("11:00") }),
			],
			10,
		);
		const cases: Array<[from: number, to: number, counted: [string, string], pageviews: number]> = [
			[at("10:00"), at("11:00"), ["10:00", "11:00"], 2],
			[at("10:30"), at("10:31"), ["10:00", "11:00"], 2],
			[at("09:59", 59_999), at("10:00", 1), ["09:00", "11:00"], 3],
			[at("10:00"), at("11:00", 1), ["10:00", "12:00"], 3],
			[at("09:00"), at("10:00"), ["09:00", "10:00"], 1],
		];
		for (const [from, to, [countedFrom, countedTo], pageviews] of cases) {
			const fromRollups = await statsOf(site.tracking_id, range(from, to));
			expect({ from: fromRollups.from, to: fromRollups.to, pageviews: fromRollups.pageviews }).toEqual({
				from: new Date(at(countedFrom)).toISOString(),
				to: new Date(at(countedTo)).toISOString(),
				pageviews,
			});
			expect(fromRollups).toEqual(await statsOf(site.tracking_id, range(from, to), { fromEvents: true }));
		}
	});
});

describe("where the rollups' definitions differ from the events' (docs/api.md#statistics-from-rollups)", () => {
	it("a visitor first seen that day before `from` is not counted again in the range, and a session counts where it started", async ({ expect }) => {
		const { site } = await ownerWithSite();
		// One session from 09:50 to 10:10; the range starts at 10:00.
		await flush(
			[
				stored(site.tracking_id, { visitorId: "early", ts: T0 + 9 * HOUR + 50 * MINUTE }),
				stored(site.tracking_id, { visitorId: "early", ts: T0 + 10 * HOUR + 10 * MINUTE, urlPath: "/next" }),
			],
			10,
		);
		const r = range(T0 + 10 * HOUR, T0 + 11 * HOUR);
		expect(await statsOf(site.tracking_id, r)).toMatchObject({ pageviews: 1, visitors: 0, sessions: 0 });
		expect(await statsOf(site.tracking_id, r, { fromEvents: true })).toMatchObject({ pageviews: 1, visitors: 1, sessions: 1 });
	});

	it("a visitor id the tracker keeps across days counts once per day, and its session ends at UTC midnight", async ({ expect }) => {
		const { site } = await ownerWithSite();
		await flush(
			[
				stored(site.tracking_id, { visitorId: "kept-id", ts: T0 + DAY - 5 * MINUTE }),
				stored(site.tracking_id, { visitorId: "kept-id", ts: T0 + DAY + 5 * MINUTE, urlPath: "/next" }),
			],
			10,
		);
		const r = range(T0, T0 + 2 * DAY);
		expect(await statsOf(site.tracking_id, r)).toMatchObject({ pageviews: 2, visitors: 2, sessions: 2, bounce_rate: 1 });
		expect(await statsOf(site.tracking_id, r, { fromEvents: true })).toMatchObject({ pageviews: 2, visitors: 1, sessions: 1, bounce_rate: 0 });
	});
});
