import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { collect, crawlIngest, getJson, ownerWithSite, pageview } from "./analytics-helpers";
import { signUp } from "./helpers";

const T0 = Date.parse("2025-03-01T00:00:00Z");
const at = (hhmm: string) => T0 + (Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3))) * 60_000;
const RANGE = "from=2025-03-01T00:00:00Z&to=2025-03-02T00:00:00Z";

const CHROME = { browser: "Chrome", os: "Windows", device: "desktop" };
const IOS = { browser: "Mobile Safari", os: "iOS", device: "mobile" };
const FIREFOX = { browser: "Firefox", os: "Linux", device: "desktop" };

interface Seed {
	visitor: string;
	ts: number;
	name?: string;
	path?: string;
	referrer_host?: string;
	duration?: number;
	distinct_id?: string;
	country?: string;
	ua?: typeof CHROME;
	data?: string;
}

async function seedEvents(trackingId: string, events: Seed[]) {
	await env.DB.batch(
		events.map((e, i) =>
			env.DB.prepare(
				`INSERT INTO analytics_events (tracking_id, event_id, ts, name, url_path, referrer_host, visitor_id, distinct_id, duration,
					browser, os, device, country, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			).bind(
				trackingId,
				`seed-${i}`,
				e.ts,
				e.name ?? "",
				e.path ?? "/",
				e.referrer_host ?? "",
				e.visitor,
				e.distinct_id ?? null,
				e.duration ?? null,
				(e.ua ?? CHROME).browser,
				(e.ua ?? CHROME).os,
				(e.ua ?? CHROME).device,
				e.country ?? "",
				e.data ?? null,
			),
		),
	);
}

/*
 * The seeded day, 2025-03-01 (UTC):
 *   A (Chrome, Windows, DE)  10:00 view /  from news.ycombinator.com
 *                            10:05 view /pricing, 10:06 "signup", 10:07 _leave 120 s
 *                            11:00 view /            (54 min after 10:06: a second session)
 *   B (iPhone, US)           10:30 view /  from www.google.com, 10:31 _leave 60 s
 *   C (Firefox, Linux, ??)   23:50 view /blog, 23:55 "signup", 23:56 "download", 23:57 _identify user-42
 *   D                        23:59 the day before, and 00:00 the day after: outside the range
 *
 * By hand: page views 5 (A 3, B 1, C 1); visitors 3; custom events 3; sessions 4 (A twice,
 * B, C); bounces 2 (A's 11:00 session and B's: one view, no custom event) → 0.5; average
 * duration (120 + 60) / 2 = 90; one identified visitor.
 */
const DAY: Seed[] = [
	{ visitor: "A", ts: at("10:00"), path: "/", referrer_host: "news.ycombinator.com", country: "DE" },
	{ visitor: "A", ts: at("10:05"), path: "/pricing", country: "DE" },
	{ visitor: "A", ts: at("10:06"), name: "signup", path: "/pricing", country: "DE", data: '{"plan":"pro"}' },
	{ visitor: "A", ts: at("10:07"), name: "_leave", path: "/pricing", duration: 120, country: "DE" },
	{ visitor: "A", ts: at("11:00"), path: "/", country: "DE" },
	{ visitor: "B", ts: at("10:30"), path: "/", referrer_host: "www.google.com", country: "US", ua: IOS },
	{ visitor: "B", ts: at("10:31"), name: "_leave", path: "/", duration: 60, country: "US", ua: IOS },
	{ visitor: "C", ts: at("23:50"), path: "/blog", ua: FIREFOX },
	{ visitor: "C", ts: at("23:55"), name: "signup", path: "/blog", ua: FIREFOX, data: '{"plan":"pro","seats":2,"extra":{"a":1}}' },
	{ visitor: "C", ts: at("23:56"), name: "download", path: "/blog", ua: FIREFOX, data: "not json" },
	{ visitor: "C", ts: at("23:57"), name: "_identify", path: "/blog", distinct_id: "user-42", ua: FIREFOX },
	{ visitor: "D", ts: T0 - 60_000, path: "/" },
	{ visitor: "D", ts: T0 + 24 * 3_600_000, path: "/" },
];

describe("GET /api/sites/:tracking_id/stats", () => {
	it("computes every figure of a seeded day as worked out by hand", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await seedEvents(site.tracking_id, DAY);
		// Another site's events in the same hours change nothing.
		const other = await ownerWithSite();
		await seedEvents(other.site.tracking_id, [{ visitor: "A", ts: at("10:00") }]);

		const { status, body } = await getJson(`/api/sites/${site.tracking_id}/stats?${RANGE}`, token);
		expect(status).toBe(200);
		expect(body).toMatchObject({
			from: "2025-03-01T00:00:00.000Z",
			to: "2025-03-02T00:00:00.000Z",
			pageviews: 5,
			visitors: 3,
			sessions: 4,
			events: 3,
			identified_visitors: 1,
			bounce_rate: 0.5,
			avg_duration: 90,
		});
		expect(body.top_pages).toEqual([
			{ path: "/", pageviews: 3, visitors: 2 },
			{ path: "/blog", pageviews: 1, visitors: 1 },
			{ path: "/pricing", pageviews: 1, visitors: 1 },
		]);
		expect(body.top_referrers).toEqual([
			{ referrer: "news.ycombinator.com", visitors: 1, pageviews: 1 },
			{ referrer: "www.google.com", visitors: 1, pageviews: 1 },
		]);
		expect(body.countries).toEqual([
			{ country: "DE", visitors: 1, pageviews: 3 },
			{ country: "US", visitors: 1, pageviews: 1 },
			{ country: "Unknown", visitors: 1, pageviews: 1 },
		]);
		expect(body.browsers).toEqual([
			{ browser: "Chrome", visitors: 1, pageviews: 3 },
			{ browser: "Firefox", visitors: 1, pageviews: 1 },
			{ browser: "Mobile Safari", visitors: 1, pageviews: 1 },
		]);
		expect(body.os).toEqual([
			{ os: "Windows", visitors: 1, pageviews: 3 },
			{ os: "Linux", visitors: 1, pageviews: 1 },
			{ os: "iOS", visitors: 1, pageviews: 1 },
		]);
		expect(body.devices).toEqual([
			{ device: "desktop", visitors: 2, pageviews: 4 },
			{ device: "mobile", visitors: 1, pageviews: 1 },
		]);
		expect(body.custom_events).toEqual([
			{ name: "signup", events: 2, visitors: 2 },
			{ name: "download", events: 1, visitors: 1 },
		]);

		// Hourly series over the day: 24 buckets, zeros included.
		expect(body.series).toHaveLength(24);
		expect(body.series[0]).toEqual({ t: "2025-03-01T00:00:00.000Z", pageviews: 0, visitors: 0 });
		const nonZero = body.series.filter((b: { pageviews: number; visitors: number }) => b.pageviews > 0 || b.visitors > 0);
		expect(nonZero).toEqual([
			{ t: "2025-03-01T10:00:00.000Z", pageviews: 3, visitors: 2 },
			{ t: "2025-03-01T11:00:00.000Z", pageviews: 1, visitors: 1 },
			{ t: "2025-03-01T23:00:00.000Z", pageviews: 1, visitors: 1 },
		]);
	});

	it("entry pages are each session's first page view; event properties count custom events' scalar data", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await seedEvents(site.tracking_id, DAY);
		const { body } = await getJson(`/api/sites/${site.tracking_id}/stats?${RANGE}`, token);
		// Sessions: A at 10:00 and 11:00 and B at 10:30 enter on /, C at 23:50 on /blog.
		expect(body.entry_pages).toEqual([
			{ path: "/", entries: 3, visitors: 2 },
			{ path: "/blog", entries: 1, visitors: 1 },
		]);
		// Nested objects and data that is not JSON are left out.
		expect(body.event_properties).toEqual([
			{ name: "signup", property: "plan", value: "pro", events: 2 },
			{ name: "signup", property: "seats", value: "2", events: 1 },
		]);
	});

	it("narrows every figure to the events matching the filters, Unknown matching an empty value", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await seedEvents(site.tracking_id, DAY);
		const stats = async (filters: string) => (await getJson(`/api/sites/${site.tracking_id}/stats?${RANGE}&${filters}`, token)).body;

		// Germany is A alone: three views in two sessions, the 11:00 one a bounce.
		const germany = await stats("country=DE");
		expect(germany).toMatchObject({ pageviews: 3, visitors: 1, sessions: 2, events: 1, bounce_rate: 0.5, avg_duration: 120 });
		expect(germany.countries).toEqual([{ country: "DE", visitors: 1, pageviews: 3 }]);
		expect(germany.top_pages).toEqual([
			{ path: "/", pageviews: 2, visitors: 1 },
			{ path: "/pricing", pageviews: 1, visitors: 1 },
		]);

		// A page: the events on it (A's view, signup and _leave on /pricing).
		expect(await stats("page=/pricing")).toMatchObject({ pageviews: 1, visitors: 1, sessions: 1, events: 1, bounce_rate: 0 });
		expect(await stats("country=Unknown")).toMatchObject({ pageviews: 1, visitors: 1 });
		expect(await stats("referrer=www.google.com")).toMatchObject({ pageviews: 1, visitors: 1 });
		expect(await stats("device=desktop&browser=Firefox&os=Linux")).toMatchObject({ pageviews: 1, visitors: 1, events: 2 });
		expect(await stats("device=desktop&browser=Mobile%20Safari")).toMatchObject({ pageviews: 0, visitors: 0, sessions: 0 });
	});

	it.for([
		["an empty filter", "country="],
		["a filter over 2,000 characters", `page=${"a".repeat(2_001)}`],
	])("400 for %s", async ([, query], { expect }) => {
		const { token, site } = await ownerWithSite();
		const { status, body } = await getJson(`/api/sites/${site.tracking_id}/stats?${RANGE}&${query}`, token);
		expect(status).toBe(400);
		expect(body.error).toMatch(/^Invalid request: (country|page)/);
	});

	it("narrows to the range asked for, with daily buckets beyond three days", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await seedEvents(site.tracking_id, DAY);
		const morning = await getJson(`/api/sites/${site.tracking_id}/stats?from=2025-03-01T10:00:00Z&to=2025-03-01T10:30:00Z`, token);
		// A alone: two views, the custom event and the 120 s _leave; one session, not a bounce.
		expect(morning.body).toMatchObject({ pageviews: 2, visitors: 1, sessions: 1, events: 1, bounce_rate: 0, avg_duration: 120 });

		const week = await getJson(`/api/sites/${site.tracking_id}/stats?from=2025-02-26T00:00:00Z&to=2025-03-05T00:00:00Z`, token);
		expect(week.body.series).toHaveLength(7);
		expect(week.body.series.find((b: { t: string }) => b.t === "2025-03-01T00:00:00.000Z")).toEqual({
			t: "2025-03-01T00:00:00.000Z",
			pageviews: 5,
			visitors: 3,
		});
		expect(week.body.series.find((b: { t: string }) => b.t === "2025-02-28T00:00:00.000Z")).toEqual({
			t: "2025-02-28T00:00:00.000Z",
			pageviews: 1,
			visitors: 1,
		});
	});

	it("counts reading time as activity: a _leave ends the inactivity that splits sessions, but never makes a session alone", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await seedEvents(site.tracking_id, [
			// E reads /essay for 40 minutes, then follows a link: one session of two page views.
			{ visitor: "E", ts: at("14:00"), path: "/essay" },
			{ visitor: "E", ts: at("14:40"), name: "_leave", path: "/essay", duration: 2_400 },
			{ visitor: "E", ts: at("14:40"), path: "/next" },
			// F viewed a page before the range; only its _leave is inside: no session, no visitor.
			{ visitor: "F", ts: at("00:10"), name: "_leave", path: "/", duration: 900 },
			// G: a _leave 40 minutes after the view, the next view 50 minutes after the _leave.
			{ visitor: "G", ts: at("16:00"), path: "/" },
			{ visitor: "G", ts: at("16:40"), name: "_leave", path: "/", duration: 2_400 },
			{ visitor: "G", ts: at("17:30"), path: "/" },
		]);
		const { body } = await getJson(`/api/sites/${site.tracking_id}/stats?${RANGE}`, token);
		// Sessions: E one (not a bounce), G two (both bounces): 3 sessions, 2 bounces.
		expect(body).toMatchObject({ pageviews: 4, visitors: 2, sessions: 3, bounce_rate: 0.6667 });
	});

	it("limits every list with ?limit=", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await seedEvents(site.tracking_id, DAY);
		const { body } = await getJson(`/api/sites/${site.tracking_id}/stats?${RANGE}&limit=1`, token);
		expect(body.top_pages).toEqual([{ path: "/", pageviews: 3, visitors: 2 }]);
		expect(body.custom_events).toHaveLength(1);
	});

	it("answers zeros, not errors, for a site without events", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		const { status, body } = await getJson(`/api/sites/${site.tracking_id}/stats`, token);
		expect(status).toBe(200);
		expect(body).toMatchObject({ pageviews: 0, visitors: 0, sessions: 0, events: 0, bounce_rate: 0, avg_duration: 0, top_pages: [] });
		expect(body.series.length).toBeGreaterThanOrEqual(24);
	});

	it("shows an event accepted a moment ago (the last 24 hours by default)", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		expect((await collect(pageview(site.tracking_id, { url_path: "/now" }))).status).toBe(204);
		const { body } = await getJson(`/api/sites/${site.tracking_id}/stats`, token);
		expect(body).toMatchObject({ pageviews: 1, visitors: 1, sessions: 1, bounce_rate: 1 });
		expect(body.top_pages).toEqual([{ path: "/now", pageviews: 1, visitors: 1 }]);
		expect(body.browsers).toEqual([{ browser: "Chrome", visitors: 1, pageviews: 1 }]);
	});

	it.for([
		["from after to", "from=2025-03-02T00:00:00Z&to=2025-03-01T00:00:00Z"],
		["equal from and to", "from=2025-03-01T00:00:00Z&to=2025-03-01T00:00:00Z"],
		["a bad time", "from=yesterday"],
		["a bare number (Date.parse reads 1 as the year 2001)", "from=1&to=2"],
		["a bare year", "from=2025&to=2025-03-01T00:00:00Z"],
		["an English date", "from=March%207%202025&to=2025-03-08T00:00:00Z"],
		["an impossible day", "from=2025-02-30T00:00:00Z&to=2025-03-08T00:00:00Z"],
		["an unencoded + offset (read as a space)", "from=2025-03-01T00:00:00+02:00&to=2025-03-02T00:00:00Z"],
		["more than 400 days", "from=2024-01-01T00:00:00Z&to=2025-03-01T00:00:00Z"],
		["a limit of 0", "limit=0"],
		["a limit of 101", "limit=101"],
		["a repeated parameter", "from=2025-03-01T00:00:00Z&from=2025-03-01T01:00:00Z"],
	])("answers 400 to %s", async ([, query], { expect }) => {
		const { token, site } = await ownerWithSite();
		const { status, body } = await getJson(`/api/sites/${site.tracking_id}/stats?${query}`, token);
		expect(status).toBe(400);
		expect(body.error).toMatch(/^Invalid request: /);
	});

	it.for([
		["a UTC time", "2025-03-01T10:00:00Z", "2025-03-01T10:00:00.000Z"],
		["milliseconds", "2025-03-01T10:00:00.250Z", "2025-03-01T10:00:00.250Z"],
		["an offset", "2025-03-01T12:00:00%2B02:00", "2025-03-01T10:00:00.000Z"],
		["a date alone (UTC midnight)", "2025-03-01", "2025-03-01T00:00:00.000Z"],
		["minutes without seconds", "2025-03-01T10:00Z", "2025-03-01T10:00:00.000Z"],
	])("takes ISO 8601 times: %s", async ([, from, expected], { expect }) => {
		const { token, site } = await ownerWithSite();
		const { status, body } = await getJson(`/api/sites/${site.tracking_id}/stats?from=${from}&to=2025-03-02T00:00:00Z`, token);
		expect(status).toBe(200);
		expect(body.from).toBe(expected);
	});

	it("is the owner's only: another owner's site and an unknown one are 404, no session is 401", async ({ expect }) => {
		const { site } = await ownerWithSite();
		const stranger = await signUp();
		expect((await getJson(`/api/sites/${site.tracking_id}/stats`, stranger.token)).status).toBe(404);
		expect((await getJson(`/api/sites/s_AAAAAAAAAAAAAAAAAAAAAA/stats`, stranger.token)).status).toBe(404);
		expect((await getJson(`/api/sites/${site.tracking_id}/crawlers`, stranger.token)).status).toBe(404);
		expect((await getJson(`/api/sites/${site.tracking_id}/events`, stranger.token)).status).toBe(404);
		expect((await getJson(`/api/sites/${site.tracking_id}/stats`, "not-a-session")).status).toBe(401);
	});
});

async function seedVisits(trackingId: string, visits: Array<[crawler: string, path: string, status: number, minute: number]>) {
	await env.DB.batch(
		visits.map(([crawler, path, status, minute], i) =>
			env.DB.prepare(
				`INSERT INTO crawler_visits (id, tracking_id, ts, crawler, url_host, url_path, country, status, ua) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			).bind(`v-${trackingId}-${i}`, trackingId, T0 + minute * 60_000, crawler, "example.com", path, "US", status, `${crawler}/1.0`),
		),
	);
}

describe("GET /api/sites/:tracking_id/crawlers", () => {
	it("computes visits per crawler with operator and purpose, paths, statuses, series and recent visits", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await seedVisits(site.tracking_id, [
			["GPTBot", "/a", 200, 60], // 01:00
			["GPTBot", "/a", 200, 61],
			["GPTBot", "/b", 404, 62],
			["ClaudeBot", "/a", 200, 120], // 02:00
			["PerplexityBot", "/c", 301, 121],
			["ChatGPT-User", "/a", 200, 600], // 10:00
			["GPTBot", "/a", 200, -5], // the day before: outside
		]);
		const { status, body } = await getJson(`/api/sites/${site.tracking_id}/crawlers?${RANGE}`, token);
		expect(status).toBe(200);
		expect(body.visits).toBe(6);
		expect(body.crawlers).toEqual([
			{ name: "GPTBot", operator: "OpenAI", category: "training", visits: 3 },
			{ name: "ChatGPT-User", operator: "OpenAI", category: "assistant", visits: 1 },
			{ name: "ClaudeBot", operator: "Anthropic", category: "training", visits: 1 },
			{ name: "PerplexityBot", operator: "Perplexity", category: "search", visits: 1 },
		]);
		expect(body.categories).toEqual([
			{ category: "training", visits: 4 },
			{ category: "assistant", visits: 1 },
			{ category: "search", visits: 1 },
		]);
		expect(body.top_paths).toEqual([
			{ path: "/a", visits: 4 },
			{ path: "/b", visits: 1 },
			{ path: "/c", visits: 1 },
		]);
		expect(body.statuses).toEqual([
			{ status: 200, visits: 4 },
			{ status: 301, visits: 1 },
			{ status: 404, visits: 1 },
		]);
		expect(body.series).toHaveLength(24);
		expect(body.series.filter((b: { visits: number }) => b.visits > 0)).toEqual([
			{ t: "2025-03-01T01:00:00.000Z", visits: 3 },
			{ t: "2025-03-01T02:00:00.000Z", visits: 2 },
			{ t: "2025-03-01T10:00:00.000Z", visits: 1 },
		]);
		expect(body.recent).toHaveLength(6);
		expect(body.recent[0]).toEqual({
			crawler: "ChatGPT-User",
			url_host: "example.com",
			url_path: "/a",
			country: "US",
			status: 200,
			ts: "2025-03-01T10:00:00.000Z",
		});
		expect(body.recent.map((v: { ts: string }) => v.ts)).toEqual([...body.recent.map((v: { ts: string }) => v.ts)].sort().reverse());
	});

	it("pages: AI-crawler reads beside human page views, the paths most read and the paths most viewed", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await seedEvents(site.tracking_id, DAY); // page views: / 3, /blog 1, /pricing 1
		await seedVisits(site.tracking_id, [
			["GPTBot", "/a", 200, 60],
			["GPTBot", "/a", 200, 61],
			["ClaudeBot", "/a", 200, 62],
			["ClaudeBot", "/a", 200, 63],
			["GPTBot", "/b", 200, 64],
			["GPTBot", "/", 200, 65],
		]);
		const { body } = await getJson(`/api/sites/${site.tracking_id}/crawlers?${RANGE}&limit=2`, token);
		// Most read: /a, then / (ties by path); most viewed: /, then /blog.
		expect(body.pages).toEqual([
			{ path: "/a", crawler_visits: 4, pageviews: 0 },
			{ path: "/", crawler_visits: 1, pageviews: 3 },
			{ path: "/blog", crawler_visits: 0, pageviews: 1 },
		]);
	});

	it("shows a visit reported a moment ago", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		const ua = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)";
		await crawlIngest({ tracking_id: site.tracking_id, url_host: "example.com", url_path: "/docs", ua, country: "FR", status: 404 });
		const { body } = await getJson(`/api/sites/${site.tracking_id}/crawlers`, token);
		expect(body.visits).toBe(1);
		expect(body.crawlers).toEqual([{ name: "ClaudeBot", operator: "Anthropic", category: "training", visits: 1 }]);
		expect(body.recent[0]).toMatchObject({ crawler: "ClaudeBot", url_path: "/docs", country: "FR", status: 404 });
	});
});

describe("GET /api/sites/:tracking_id/events", () => {
	it("lists the raw events newest first, with a limit", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await seedEvents(site.tracking_id, DAY);
		const { status, body } = await getJson(`/api/sites/${site.tracking_id}/events?${RANGE}&limit=3`, token);
		expect(status).toBe(200);
		expect(body.events.map((e: { ts: string; name: string }) => [e.ts, e.name])).toEqual([
			["2025-03-01T23:57:00.000Z", "_identify"],
			["2025-03-01T23:56:00.000Z", "download"],
			["2025-03-01T23:55:00.000Z", "signup"],
		]);
		expect((await getJson(`/api/sites/${site.tracking_id}/events?limit=1001`, token)).status).toBe(400);
	});
});
