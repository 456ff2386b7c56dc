// The realtime view: the last 30 minutes by minute, read from the events (the rollups have no
// minutes), with the dashboard's filters, and the visitors on the site now.
import { afterEach, describe, it, vi } from "vitest";
import { OWNER_LIMITS } from "../domain/limits";
import { collect, getJson, ownerWithSite, pageview } from "./analytics-helpers";
import { signUp } from "./helpers";
import { seedEvents } from "./statsData";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const LIMIT = OWNER_LIMITS.statsSampleEvents;
const iso = (ms: number) => new Date(ms).toISOString();
const realtime = (trackingId: string, query = "") => `/api/sites/${trackingId}/stats/realtime${query ? `?${query}` : ""}`;

/**
 * Holds the clock (the Worker's and the objects' too: they run in this isolate) 20 seconds into a
 * minute, so that the minute each event falls in is known while the test runs. Answers now and
 * the start of its minute.
 */
function holdClock() {
	const minute = Math.floor(Date.now() / MINUTE) * MINUTE - 10 * MINUTE;
	const now = minute + 20_000;
	vi.useFakeTimers({ toFake: ["Date"] });
	vi.setSystemTime(now);
	return { now, minute };
}

afterEach(() => {
	vi.useRealTimers();
});

describe("GET /api/sites/:tracking_id/stats/realtime", () => {
	it("counts the minute under way and the 29 whole minutes before it, an event 30 minutes old out of them", async ({ expect }) => {
		const { now, minute } = holdClock();
		const { token, site } = await ownerWithSite();
		const first = minute - 29 * MINUTE;
		await seedEvents(site.tracking_id, [
			{ visitor: "thirty-minutes-ago", ts: now - 30 * MINUTE },
			{ visitor: "just-before", ts: first - 1 },
			{ visitor: "first-minute", ts: first },
			{ visitor: "five-minutes-and-a-ms-ago", ts: now - 5 * MINUTE - 1 },
			{ visitor: "five-minutes-ago", ts: now - 5 * MINUTE },
			{ visitor: "now", ts: now },
		]);
		const { status, body } = await getJson(realtime(site.tracking_id), token);
		expect(status).toBe(200);
		expect(body).toMatchObject({ from: iso(first), to: iso(minute + MINUTE), pageviews: 4, visitors: 4, visitors_now: 2, sample_percent: 100 });
		expect(body.previous).toBeUndefined();
		// Every minute of the window, the last the one under way.
		const starts = body.series.map((b: { t: string }) => b.t);
		expect(starts).toHaveLength(30);
		expect(starts[0]).toBe(iso(first));
		expect(starts.at(-1)).toBe(iso(minute));
		expect(body.series[0]).toMatchObject({ pageviews: 1, visitors: 1, sessions: 1 });
		expect(body.series.at(-1)).toMatchObject({ pageviews: 1, visitors: 1, sessions: 1 });
		expect(body.series.at(-6)).toMatchObject({ pageviews: 2, visitors: 2 });
		expect(body.series.slice(1, -6).every((b: { pageviews: number }) => b.pageviews === 0)).toBe(true);
		expect(body.sessions).toBe(4);
	});

	it("counts an event the collector accepted a moment ago, in the minute under way", async ({ expect }) => {
		const { minute } = holdClock();
		const { token, site } = await ownerWithSite();
		expect((await collect(pageview(site.tracking_id, { url_path: "/live" }))).status).toBe(204);
		const { body } = await getJson(realtime(site.tracking_id), token);
		expect(body).toMatchObject({ visitors: 1, pageviews: 1, visitors_now: 1, top_pages: [{ path: "/live", visitors: 1, pageviews: 1 }] });
		expect(body.series.at(-1)).toMatchObject({ t: iso(minute), pageviews: 1 });
	});

	it("applies the dashboard's filters, is and is not, to every figure, the visitors now and the lists", async ({ expect }) => {
		const { now } = holdClock();
		const { token, site } = await ownerWithSite();
		await seedEvents(site.tracking_id, [
			// Came from Google 20 minutes ago and is still reading: a visit of the window from Google.
			{ visitor: "g", ts: now - 20 * MINUTE, country: "DE", source: "Google", referrer_host: "www.google.com", path: "/" },
			{ visitor: "g", ts: now - 2 * MINUTE, country: "DE", path: "/pricing" },
			{ visitor: "u", ts: now - 10 * MINUTE, country: "US", path: "/" },
			{ visitor: "u", ts: now - 1 * MINUTE, country: "US", path: "/signup", name: "signup" },
			{ visitor: "f", ts: now - 25 * MINUTE, country: "FR", path: "/" },
			// Before the window: in no figure and no list.
			{ visitor: "old", ts: now - 40 * MINUTE, country: "JP", path: "/old" },
		]);
		const all = (await getJson(realtime(site.tracking_id), token)).body;
		expect(all).toMatchObject({ visitors: 3, pageviews: 4, events: 1, visitors_now: 2 });
		expect(all.countries.map((c: { country: string }) => c.country).sort()).toEqual(["DE", "FR", "US"]);

		const germany = (await getJson(realtime(site.tracking_id, "country=DE"), token)).body;
		expect(germany).toMatchObject({ visitors: 1, pageviews: 2, visitors_now: 1, filters: { country: "DE" }, countries: [{ country: "DE", visitors: 1 }] });

		const notGermany = (await getJson(realtime(site.tracking_id, "country_not=DE"), token)).body;
		expect(notGermany).toMatchObject({ visitors: 2, pageviews: 2, visitors_now: 1 });

		// A filter of the visit keeps the whole visit, its page view now too.
		const google = (await getJson(realtime(site.tracking_id, "source=Google"), token)).body;
		expect(google).toMatchObject({ visitors: 1, pageviews: 2, visitors_now: 1, sources: [{ source: "Google", visitors: 1, visits: 1 }] });
		expect(google.top_pages.map((p: { path: string }) => p.path).sort()).toEqual(["/", "/pricing"]);

		const notGoogle = (await getJson(realtime(site.tracking_id, "source_not=Google&page_not=/signup"), token)).body;
		expect(notGoogle).toMatchObject({ visitors: 2, visitors_now: 0 });

		// A goal: its conversion rate is out of the window's visitors, by minute too (from the events).
		const goal = (await getJson(realtime(site.tracking_id, "event=signup"), token)).body;
		expect(goal).toMatchObject({ visitors: 1, events: 1, conversion_base: { visitors: 3 } });
		expect(goal.conversion_base.series).toHaveLength(30);
		// Each minute's own visitors: five minutes with one each.
		expect(goal.conversion_base.series.reduce((sum: number, b: { visitors: number }) => sum + b.visitors, 0)).toBe(5);
	});

	it("takes a limit from 1 to 100 and refuses a range, a comparison and any other parameter with a 400", async ({ expect }) => {
		holdClock();
		const { token, site } = await ownerWithSite();
		for (const ok of ["limit=1", "limit=100", "exact=true", "country=DE&source_not=Google", "property=plan:pro"]) {
			expect((await getJson(realtime(site.tracking_id, ok), token)).status, ok).toBe(200);
		}
		const refusals: Array<[string, string]> = [
			["limit=0", "Invalid request: limit: must be a whole number from 1 to 100"],
			["limit=101", "Invalid request: limit: must be a whole number from 1 to 100"],
			["from=2026-01-01", "Invalid request: unknown parameter from"],
			["to=2026-01-01", "Invalid request: unknown parameter to"],
			["compare=previous", "Invalid request: unknown parameter compare"],
			["exact=yes", 'Invalid request: exact: must be "true"'],
			["country=", "Invalid request: country: must not be empty"],
			["property=plan", "Invalid request: property: must be a property name, a colon and its value, as plan:pro"],
			["countri=DE", "Invalid request: unknown parameter countri"],
		];
		for (const [query, error] of refusals) {
			const { status, body } = await getJson(realtime(site.tracking_id, query), token);
			expect({ query, status, body }).toEqual({ query, status: 400, body: { error } });
		}
	});

	it("counts a sample of the visitors over 7,000 events in the hours the window touches, as a filtered answer does; exact=true every one", async ({ expect }) => {
		// 40 minutes into an hour: the window (its 11th to its 41st minute) touches that hour alone.
		const now = Math.floor(Date.now() / HOUR) * HOUR - HOUR + 40 * MINUTE + 20_000;
		vi.useFakeTimers({ toFake: ["Date"] });
		vi.setSystemTime(now);
		const { token, site } = await ownerWithSite();
		// Visitor ids of 32 hex digits, as the collector's hashes are: the sample keeps their first two.
		const visitorId = () => crypto.randomUUID().replaceAll("-", "");
		await seedEvents(
			site.tracking_id,
			Array.from({ length: LIMIT }, (_, i) => ({ visitor: visitorId(), ts: now - (i % 25) * MINUTE })),
		);
		expect((await getJson(realtime(site.tracking_id), token)).body).toMatchObject({ pageviews: LIMIT, sample_percent: 100 });
		// One more in the same hour, before the window: the hour holds one past the limit.
		await seedEvents(site.tracking_id, [{ visitor: visitorId(), ts: now - 35 * MINUTE }]);
		const sampled = (await getJson(realtime(site.tracking_id), token)).body;
		expect(sampled.sample_percent).toBe(Math.round((255 / 256) * 1000) / 10);
		const exact = (await getJson(realtime(site.tracking_id, "exact=true"), token)).body;
		expect(exact).toMatchObject({ pageviews: LIMIT, sample_percent: 100 });
	});

	it("answers 404 for another owner's site", async ({ expect }) => {
		const { site } = await ownerWithSite();
		const other = await signUp();
		expect((await getJson(realtime(site.tracking_id), other.token)).status).toBe(404);
	});
});
