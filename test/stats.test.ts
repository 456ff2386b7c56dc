import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { computeSiteStats } from "../domain/analytics/siteStats";
import { collect, getJson, ownerWithSite, pageview } from "./analytics-helpers";
import { call, signUp, uniqueIp } from "./helpers";
import { at, DAY, RANGE, seedEvents } from "./statsData";

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
			avg_duration: 56.3,
			filters: {},
		});
		// Per page: the deepest point each visitor reported, and the engaged time each reported, averaged over them.
		expect(body.top_pages).toEqual([
			{ path: "/", pageviews: 3, visitors: 2, scroll_depth: null, time_on_page: 60 },
			{ path: "/blog", pageviews: 1, visitors: 1, scroll_depth: 85, time_on_page: 45 },
			{ path: "/pricing", pageviews: 1, visitors: 1, scroll_depth: null, time_on_page: 120 },
		]);
		expect(body.entry_pages).toEqual([
			{ path: "/", visitors: 2, visits: 3 },
			{ path: "/blog", visitors: 1, visits: 1 },
		]);
		expect(body.exit_pages).toEqual([
			{ path: "/", visitors: 2, visits: 2 },
			{ path: "/blog", visitors: 1, visits: 1 },
			{ path: "/pricing", visitors: 1, visits: 1 },
		]);
		expect(body.sources).toEqual([
			{ source: "Direct / None", visitors: 1, visits: 1 },
			{ source: "Google", visitors: 1, visits: 1 },
			{ source: "Hacker News", visitors: 1, visits: 1 },
			{ source: "newsletter", visitors: 1, visits: 1 },
		]);
		expect(body.campaigns).toEqual({
			utm_source: [{ utm_source: "newsletter", visitors: 1, visits: 1 }],
			utm_medium: [{ utm_medium: "email", visitors: 1, visits: 1 }],
			utm_campaign: [{ utm_campaign: "spring", visitors: 1, visits: 1 }],
			utm_content: [],
			utm_term: [],
			ref: [{ ref: "digest", visitors: 1, visits: 1 }],
		});
		expect(body).not.toHaveProperty("previous");
		// A source's referrer URLs come with the source filter only (stats-breakdowns.test.ts).
		expect(body).not.toHaveProperty("referrer_urls");
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
		// Scalar members of the data objects only: a nested object and data that is not JSON are left out.
		expect(body.event_properties).toEqual([
			{ name: "signup", property: "plan", value: "pro", events: 2 },
			{ name: "signup", property: "seats", value: "2", events: 1 },
		]);

		// Hourly series over the day: 24 buckets, zeros included.
		expect(body.series).toHaveLength(24);
		// A bucket where no visit began has no bounce rate or visit duration: null, not 0.
		expect(body.series[0]).toEqual({ t: "2025-03-01T00:00:00.000Z", pageviews: 0, visitors: 0, sessions: 0, bounce_rate: null, avg_duration: null });
		const nonZero = body.series.filter((b: { pageviews: number; visitors: number }) => b.pageviews > 0 || b.visitors > 0);
		expect(nonZero).toEqual([
			{ t: "2025-03-01T10:00:00.000Z", pageviews: 3, visitors: 2, sessions: 2, bounce_rate: 0.5, avg_duration: 90 },
			{ t: "2025-03-01T11:00:00.000Z", pageviews: 1, visitors: 1, sessions: 1, bounce_rate: 1, avg_duration: 0 },
			{ t: "2025-03-01T23:00:00.000Z", pageviews: 1, visitors: 1, sessions: 1, bounce_rate: 0, avg_duration: 45 },
		]);
	});

	it("narrows to the range asked for, with daily buckets beyond three days", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await seedEvents(site.tracking_id, DAY);
		const morning = await getJson(`/api/sites/${site.tracking_id}/stats?from=2025-03-01T10:00:00Z&to=2025-03-01T11:00:00Z`, token);
		// A's first session (two views, the custom event, the 120 s _leave: no bounce) and B's (a bounce of 60 s).
		expect(morning.body).toMatchObject({ pageviews: 3, visitors: 2, sessions: 2, events: 1, bounce_rate: 0.5, avg_duration: 90 });
		// Statistics count whole hours: 10:15 to 10:20 is the hour from 10:00, and says so.
		const minutes = await getJson(`/api/sites/${site.tracking_id}/stats?from=2025-03-01T10:15:00Z&to=2025-03-01T10:20:00Z`, token);
		expect(minutes.body).toMatchObject({ from: "2025-03-01T10:00:00.000Z", to: "2025-03-01T11:00:00.000Z", pageviews: 3 });

		const week = await getJson(`/api/sites/${site.tracking_id}/stats?from=2025-02-26T00:00:00Z&to=2025-03-05T00:00:00Z`, token);
		expect(week.body.series).toHaveLength(7);
		expect(week.body.series.find((b: { t: string }) => b.t === "2025-03-01T00:00:00.000Z")).toEqual({
			t: "2025-03-01T00:00:00.000Z",
			pageviews: 5,
			visitors: 3,
			sessions: 4,
			bounce_rate: 0.5,
			avg_duration: 56.3,
		});
		expect(week.body.series.find((b: { t: string }) => b.t === "2025-02-28T00:00:00.000Z")).toEqual({
			t: "2025-02-28T00:00:00.000Z",
			pageviews: 1,
			visitors: 1,
			sessions: 1,
			bounce_rate: 1,
			avg_duration: 0,
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
		expect(body.top_pages).toEqual([{ path: "/", pageviews: 3, visitors: 2, scroll_depth: null, time_on_page: 60 }]);
		expect(body.custom_events).toHaveLength(1);
		expect(body.entry_pages).toEqual([{ path: "/", visitors: 2, visits: 3 }]);
		expect(body.exit_pages).toEqual([{ path: "/", visitors: 2, visits: 2 }]);
		expect(body.sources).toEqual([{ source: "Direct / None", visitors: 1, visits: 1 }]);
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
		expect(body).toMatchObject({ pageviews: 1, visitors: 1, sessions: 1, bounce_rate: 1, visitors_now: 1 });
		expect(body.top_pages).toEqual([{ path: "/now", pageviews: 1, visitors: 1, scroll_depth: null, time_on_page: null }]);
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
		// Every statistics answer counts the range's whole hours.
		const counted = new Date(Math.floor(Date.parse(expected) / 3_600_000) * 3_600_000).toISOString();
		for (const report of ["stats", "crawlers", "pages"]) {
			const { status, body } = await getJson(`/api/sites/${site.tracking_id}/${report}?from=${from}&to=2025-03-02T00:00:00Z`, token);
			expect(status).toBe(200);
			expect(body.from).toBe(counted);
		}
	});

	it("every owner read refuses a parameter it does not take, naming it, instead of answering unfiltered", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		const base = `/api/sites/${site.tracking_id}`;
		const refusals: Array<[path: string, message: RegExp]> = [
			["/stats?foo=bar", /^Invalid request: unknown parameter foo$/],
			["/crawlers?country=DE", /^Invalid request: unknown parameter country$/],
			["/pages?page=/docs", /^Invalid request: unknown parameter page$/],
			["/events?page=/docs&exact=true", /^Invalid request: unknown parameter page, exact$/],
			["/identities?from=2025-03-01", /^Invalid request: unknown parameter from$/],
			["/stats/pages.csv?compare=previous", /^Invalid request: unknown parameter compare$/],
			["/stats?page=/a&page=/b", /^Invalid request: page: must be given once$/],
			["/crawlers?limit=abc", /^Invalid request: limit: must be a whole number from 1 to 100$/],
			["/events?limit=%201", /^Invalid request: limit: must be a whole number from 1 to 1000$/],
			["/identities?limit=1001", /^Invalid request: limit: must be a whole number from 1 to 1000$/],
		];
		for (const [path, message] of refusals) {
			const { status, body } = await getJson(base + path, token);
			expect(status, path).toBe(400);
			expect(body.error, path).toMatch(message);
		}
		for (const path of ["/events?limit=1000", "/identities?limit=1000", "/crawlers?limit=100", "/stats/pages.csv?limit=10000"]) {
			expect((await call(base + path, { token })).status, path).toBe(200);
		}
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

describe("GET /api/sites/:tracking_id/events", () => {
	it("lists the raw events newest first, with a limit", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await seedEvents(site.tracking_id, DAY);
		const { status, body } = await getJson(`/api/sites/${site.tracking_id}/events?${RANGE}&limit=3`, token);
		expect(status).toBe(200);
		expect(body.events.map((e: { ts: string; name: string }) => [e.ts, e.name])).toEqual([
			["2025-03-01T23:58:00.000Z", "_leave"],
			["2025-03-01T23:57:00.000Z", "_identify"],
			["2025-03-01T23:56:00.000Z", "download"],
		]);
		expect(body.events[0]).toMatchObject({ engaged_ms: 15_000, scroll_depth: 85, duration: null });
		expect((await getJson(`/api/sites/${site.tracking_id}/events?limit=1001`, token)).status).toBe(400);
	});
});

describe("visitors_now", () => {
	it("counts the visitors active in the last 5 minutes: one exactly 5 minutes ago counts, one a millisecond earlier does not", async ({ expect }) => {
		const { site } = await ownerWithSite();
		const now = Date.parse("2025-03-01T12:00:00Z");
		await seedEvents(site.tracking_id, [
			{ visitor: "edge", ts: now - 300_000 },
			{ visitor: "gone", ts: now - 300_001 },
			{ visitor: "reading", ts: now, name: "_leave", engaged_ms: 5_000 },
		]);
		const at = (ms: number) => computeSiteStats(env, site.tracking_id, { range: rangeAround(ms), filters: {}, comparePrevious: false, now: ms });
		expect((await at(now)).visitors_now).toBe(2);
		expect((await at(now + 1)).visitors_now).toBe(1);
	});
});

const rangeAround = (now: number) => ({ from: now - 86_400_000, to: now, bucketMs: 3_600_000, limit: 10 });

describe("GET /api/sites/:tracking_id/stats/:breakdown.csv", () => {
	const csv = (token: string, trackingId: string, file: string, query = RANGE) => call(`/api/sites/${trackingId}/stats/${file}?${query}`, { token });

	it("names the file after the site and the first and last day of the range", async ({ expect }) => {
		const { token, site } = await ownerWithSite({ name: "Shop: \"spring\" / 2025" });
		const name = async (query: string) => (await csv(token, site.tracking_id, "pages.csv", query)).headers.get("content-disposition");
		// No domain: the name, with what a file system or the quoted header cannot take made dashes.
		expect(await name("from=2025-03-01T00:00:00Z&to=2025-04-01T00:00:00Z")).toBe('attachment; filename="Shop-spring-2025-pages-2025-03-01-2025-03-31.csv"');
		// A range that ends within a day counts that day; one that ends a millisecond past midnight too.
		expect(await name("from=2025-03-01T00:00:00Z&to=2025-03-02T00:00:00.001Z")).toBe('attachment; filename="Shop-spring-2025-pages-2025-03-01-2025-03-02.csv"');
	});

	it("answers one breakdown as CSV: a header row, CRLF, a file name with the range", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await seedEvents(site.tracking_id, DAY);
		const res = await csv(token, site.tracking_id, "sources.csv");
		expect(res.status).toBe(200);
		expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
		// The range ends at the exclusive midnight after its one day: the file names that day alone.
		expect(res.headers.get("content-disposition")).toBe('attachment; filename="example.com-sources-2025-03-01.csv"');
		expect(await res.text()).toBe("source,visitors,visits\r\nDirect / None,1,1\r\nGoogle,1,1\r\nHacker News,1,1\r\nnewsletter,1,1\r\n");
		// A missing figure is an empty field; filters apply as in the JSON answer.
		expect(await (await csv(token, site.tracking_id, "pages.csv", `${RANGE}&country=DE`)).text()).toBe(
			"path,pageviews,visitors,scroll_depth,time_on_page\r\n/,2,1,,\r\n/pricing,1,1,,120\r\n",
		);
		expect(await (await csv(token, site.tracking_id, "utm_campaign.csv")).text()).toBe("utm_campaign,visitors,visits\r\nspring,1,1\r\n");
	});

	it("quotes what needs quoting and keeps spreadsheet formulas as text", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await seedEvents(site.tracking_id, [
			{ visitor: "A", ts: at("10:00"), name: 'say "hi", then leave' },
			{ visitor: "A", ts: at("10:01"), name: "two\nlines" },
			{ visitor: "A", ts: at("10:02"), name: '=HYPERLINK("https://evil.example")' },
			{ visitor: "A", ts: at("10:03"), name: "plain" },
		]);
		const text = await (await csv(token, site.tracking_id, "custom_events.csv")).text();
		expect(text).toBe(
			[
				"name,events,visitors",
				`"'=HYPERLINK(""https://evil.example"")",1,1`,
				"plain,1,1",
				`"say ""hi"", then leave",1,1`,
				'"two\nlines",1,1',
				"",
			].join("\r\n"),
		);
	});

	it("takes up to 10,000 rows (limit=), all of them by default", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await seedEvents(
			site.tracking_id,
			Array.from({ length: 120 }, (_, i) => ({ visitor: `v${i}`, ts: at("10:00") + i, path: `/p${String(i).padStart(3, "0")}` })),
		);
		const all = (await (await csv(token, site.tracking_id, "pages.csv")).text()).trimEnd().split("\r\n");
		expect(all).toHaveLength(121);
		expect((await (await csv(token, site.tracking_id, "pages.csv", `${RANGE}&limit=2`)).text()).trimEnd().split("\r\n")).toHaveLength(3);
		expect((await csv(token, site.tracking_id, "pages.csv", `${RANGE}&limit=10000`)).status).toBe(200);
		expect((await csv(token, site.tracking_id, "pages.csv", `${RANGE}&limit=10001`)).status).toBe(400);
	});

	it.for(["nothing.csv", "sources.json", "sources", "SOURCES.csv", "constructor.csv", "__proto__.csv", "toString.csv"])("answers 404 naming the breakdowns for %s", async (file, { expect }) => {
		const { token, site } = await ownerWithSite();
		const res = await csv(token, site.tracking_id, file);
		expect(res.status).toBe(404);
		expect((await res.json<{ error: string }>()).error).toMatch(/^No such breakdown: use one of pages\.csv, entry_pages\.csv, /);
	});

	it("is the owner's only", async ({ expect }) => {
		const { site } = await ownerWithSite();
		const stranger = await signUp();
		expect((await csv(stranger.token, site.tracking_id, "sources.csv")).status).toBe(404);
	});
});

describe("engagement, as trackers report it", () => {
	it("sums the current tracker's reports per hide, and counts an older tracker's single _leave the same way", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		const reader = uniqueIp();
		const oldTracker = uniqueIp();
		const page = pageview(site.tracking_id, { url_path: "/essay" });
		await collect(page, { ip: reader });
		await collect({ ...page, event_name: "_leave", engaged_ms: 4_000, scroll_depth: 30 }, { ip: reader });
		await collect({ ...page, event_name: "_leave", engaged_ms: 6_500, scroll_depth: 70 }, { ip: reader });
		await collect(page, { ip: oldTracker });
		await collect({ ...page, event_name: "_leave", duration: 20 }, { ip: oldTracker });
		const { body } = await getJson(`/api/sites/${site.tracking_id}/stats`, token);
		// Visits: 4 + 6.5 = 10.5 s and 20 s → 15.25 → 15.3; per page the same, and 70 % the one depth reported.
		expect(body).toMatchObject({ pageviews: 2, visitors: 2, sessions: 2, avg_duration: 15.3 });
		expect(body.top_pages).toEqual([{ path: "/essay", pageviews: 2, visitors: 2, scroll_depth: 70, time_on_page: 15.3 }]);
	});
});
