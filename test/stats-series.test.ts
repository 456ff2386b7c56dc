import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import type { SeriesPointView } from "../domain/api/sites";
import { computeSiteStats } from "../domain/analytics/siteStats";
import { getJson, ownerWithSite } from "./analytics-helpers";
import { at, DAY, RANGE, seedEvents } from "./statsData";

/*
 * The series' visit figures (docs/api.md#site-statistics): each bucket's visits are the sessions
 * that began in it (at their first page view or custom event), with their bounce rate and visit
 * duration; null where none began. The same from the rollups (no filter) and from the events.
 */

const HOUR = 3_600_000;
const FROM = Date.parse("2025-03-01T00:00:00Z");
const NOW = Date.parse("2025-03-10T00:00:00Z");

/**
 * The seeded day and E, whose one visit crosses an hour: a view at 12:55, the next at 13:05 and
 * 20 s of engagement reported on it. Hour 12 holds the visit (not a bounce, 20 s); hour 13 a page
 * view and a visitor but no visit that began there.
 */
const E = [
	{ visitor: "E", ts: at("12:55"), path: "/" },
	{ visitor: "E", ts: at("13:05"), path: "/next" },
	{ visitor: "E", ts: at("13:06"), name: "_leave", path: "/next", engaged_ms: 20_000 },
];

/** The buckets where anything was counted. */
const counted = (series: SeriesPointView[]) => series.filter((b) => b.pageviews > 0 || b.visitors > 0 || b.sessions > 0);
const empty = (t: string) => ({ t, pageviews: 0, visitors: 0, sessions: 0, bounce_rate: null, avg_duration: null });

describe("the series' visit figures", () => {
	it("each bucket counts the visits that began in it, their bounce rate and duration, from the rollups and from the events alike", async ({ expect }) => {
		const { site } = await ownerWithSite();
		await seedEvents(site.tracking_id, [...DAY, ...E]);
		const request = { range: { from: FROM, to: FROM + 24 * HOUR, bucketMs: HOUR, limit: 10 }, filters: {}, comparePrevious: true, now: NOW };
		const fromRollups = await computeSiteStats(env, site.tracking_id, request);
		const fromEvents = await computeSiteStats(env, site.tracking_id, { ...request, fromEvents: true });
		expect(fromRollups.series).toHaveLength(24);
		expect(counted(fromRollups.series)).toEqual([
			// A's first visit (two views, a custom event, 120 s) and B's bounce (60 s).
			{ t: "2025-03-01T10:00:00.000Z", pageviews: 3, visitors: 2, sessions: 2, bounce_rate: 0.5, avg_duration: 90 },
			// A's second visit: one view and nothing reported, a bounce of 0 s.
			{ t: "2025-03-01T11:00:00.000Z", pageviews: 1, visitors: 1, sessions: 1, bounce_rate: 1, avg_duration: 0 },
			{ t: "2025-03-01T12:00:00.000Z", pageviews: 1, visitors: 1, sessions: 1, bounce_rate: 0, avg_duration: 20 },
			// E's visit began in the hour before: a view and a visitor here, no visit, so no share or mean of one.
			{ t: "2025-03-01T13:00:00.000Z", pageviews: 1, visitors: 1, sessions: 0, bounce_rate: null, avg_duration: null },
			// C's visit: one view, two custom events (no bounce), 30 + 15 s.
			{ t: "2025-03-01T23:00:00.000Z", pageviews: 1, visitors: 1, sessions: 1, bounce_rate: 0, avg_duration: 45 },
		]);
		expect(fromRollups.series[0]).toEqual(empty("2025-03-01T00:00:00.000Z"));
		// The buckets' visits add up to the period's.
		expect(fromRollups.series.reduce((sum, b) => sum + b.sessions, 0)).toBe(fromRollups.sessions);
		expect(fromEvents.series).toEqual(fromRollups.series);
		// The day before holds D's one view at 23:59: a bounce of 0 s, in both answers' previous series.
		expect(counted(fromRollups.previous?.series ?? [])).toEqual([
			{ t: "2025-02-28T23:00:00.000Z", pageviews: 1, visitors: 1, sessions: 1, bounce_rate: 1, avg_duration: 0 },
		]);
		expect(fromRollups.previous?.series[0]).toEqual(empty("2025-02-28T00:00:00.000Z"));
		expect(fromEvents.previous).toEqual(fromRollups.previous);
	});

	it("daily buckets: each day's visits, bounce rate and duration, null on a day without a visit", async ({ expect }) => {
		const { site } = await ownerWithSite();
		await seedEvents(site.tracking_id, [...DAY, ...E]);
		const request = { range: { from: FROM - 2 * 24 * HOUR, to: FROM + 5 * 24 * HOUR, bucketMs: 24 * HOUR, limit: 10 }, filters: {}, comparePrevious: false, now: NOW };
		const fromRollups = await computeSiteStats(env, site.tracking_id, request);
		// 2025-03-01: A twice, B, C, E; bounces A's second and B's; 120 + 0 + 60 + 45 + 20 = 245 s over 5.
		expect(fromRollups.series).toEqual([
			empty("2025-02-27T00:00:00.000Z"),
			{ t: "2025-02-28T00:00:00.000Z", pageviews: 1, visitors: 1, sessions: 1, bounce_rate: 1, avg_duration: 0 },
			{ t: "2025-03-01T00:00:00.000Z", pageviews: 7, visitors: 4, sessions: 5, bounce_rate: 0.4, avg_duration: 49 },
			{ t: "2025-03-02T00:00:00.000Z", pageviews: 1, visitors: 1, sessions: 1, bounce_rate: 1, avg_duration: 0 },
			empty("2025-03-03T00:00:00.000Z"),
			empty("2025-03-04T00:00:00.000Z"),
			empty("2025-03-05T00:00:00.000Z"),
		]);
		expect((await computeSiteStats(env, site.tracking_id, { ...request, fromEvents: true })).series).toEqual(fromRollups.series);
	});

	it.for([
		// A property of the event: A's events alone, cut into A's two visits.
		[
			"country=DE",
			[
				{ t: "2025-03-01T10:00:00.000Z", pageviews: 2, visitors: 1, sessions: 1, bounce_rate: 0, avg_duration: 120 },
				{ t: "2025-03-01T11:00:00.000Z", pageviews: 1, visitors: 1, sessions: 1, bounce_rate: 1, avg_duration: 0 },
			],
		],
		// Of the visit: B's visit from Google.
		["source=Google", [{ t: "2025-03-01T10:00:00.000Z", pageviews: 1, visitors: 1, sessions: 1, bounce_rate: 1, avg_duration: 60 }]],
		// The visits that converted: A's first and C's.
		[
			"event=signup",
			[
				{ t: "2025-03-01T10:00:00.000Z", pageviews: 2, visitors: 1, sessions: 1, bounce_rate: 0, avg_duration: 120 },
				{ t: "2025-03-01T23:00:00.000Z", pageviews: 1, visitors: 1, sessions: 1, bounce_rate: 0, avg_duration: 45 },
			],
		],
		// The page's own views; the visits that had one, counted where they began.
		[
			"page=/next",
			[
				{ t: "2025-03-01T12:00:00.000Z", pageviews: 0, visitors: 0, sessions: 1, bounce_rate: 0, avg_duration: 20 },
				{ t: "2025-03-01T13:00:00.000Z", pageviews: 1, visitors: 1, sessions: 0, bounce_rate: null, avg_duration: null },
			],
		],
	] as const)("filtered (%s), counted from the events, in this period's series and the previous one's", async ([filter, buckets], { expect }) => {
		const { token, site } = await ownerWithSite();
		await seedEvents(site.tracking_id, [...DAY, ...E]);
		const { status, body } = await getJson(`/api/sites/${site.tracking_id}/stats?${RANGE}&${filter}`, token);
		expect(status).toBe(200);
		expect(counted(body.series)).toEqual(buckets);
		expect(body.series[0]).toEqual(empty("2025-03-01T00:00:00.000Z"));
		const next = await getJson(`/api/sites/${site.tracking_id}/stats?from=2025-03-02T00:00:00Z&to=2025-03-03T00:00:00Z&compare=previous&${filter}`, token);
		expect(counted(next.body.previous.series)).toEqual(buckets);
	});
});

describe("a goal's conversion base", () => {
	/** The buckets with visitors, as [hour, visitors]. */
	const hours = (series: Array<{ t: string; visitors: number }>) => series.filter((b) => b.visitors > 0).map((b) => [b.t.slice(11, 16), b.visitors]);

	it.for([
		// The seeded day's visitors, A, B, C and E, as the unfiltered answer counts them (the rollups).
		["event=signup", 4, [["10:00", 2], ["11:00", 1], ["12:00", 1], ["13:00", 1], ["23:00", 1]]],
		["property=plan:pro", 4, [["10:00", 2], ["11:00", 1], ["12:00", 1], ["13:00", 1], ["23:00", 1]]],
		// Out of the visitors the other filters keep (from the events): A alone is from DE.
		["event=signup&country=DE", 1, [["10:00", 1], ["11:00", 1]]],
		["event=signup&page=/next", 1, [["13:00", 1]]],
	] as const)("under %s: the visitors of the other filters, in all and per bucket, for both periods", async ([filter, visitors, buckets], { expect }) => {
		const { token, site } = await ownerWithSite();
		await seedEvents(site.tracking_id, [...DAY, ...E]);
		const { body } = await getJson(`/api/sites/${site.tracking_id}/stats?${RANGE}&${filter}`, token);
		expect(body.conversion_base.visitors).toBe(visitors);
		expect(body.conversion_base.series).toHaveLength(24);
		expect(hours(body.conversion_base.series)).toEqual(buckets);
		const next = await getJson(`/api/sites/${site.tracking_id}/stats?from=2025-03-02T00:00:00Z&to=2025-03-03T00:00:00Z&compare=previous&${filter}`, token);
		expect(next.body.previous.conversion_base.visitors).toBe(visitors);
		expect(hours(next.body.previous.conversion_base.series)).toEqual(buckets);
	});

	it("is left out without a goal's filter", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await seedEvents(site.tracking_id, DAY);
		for (const filter of ["", "&country=DE"]) {
			const { body } = await getJson(`/api/sites/${site.tracking_id}/stats?${RANGE}&compare=previous${filter}`, token);
			expect(body).not.toHaveProperty("conversion_base");
			expect(body.previous).not.toHaveProperty("conversion_base");
		}
	});
});
