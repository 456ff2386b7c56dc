import { uniformFloat64 } from "pure-rand/distribution/uniformFloat64";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import { describe, it } from "vitest";
import { SAMPLE_BUCKETS, sampleFor } from "../domain/analytics/sampling";
import { OWNER_LIMITS } from "../domain/limits";
import { getJson, ownerWithSite } from "./analytics-helpers";
import { call } from "./helpers";
import { RANGE, seedEvents, at } from "./statsData";

const LIMIT = OWNER_LIMITS.statsSampleEvents;

interface Visit {
	visitor: string;
	ts: number;
	path: string;
	country: string;
}

/**
 * `pageviews` page views of the statistics' day, four per visitor a minute apart (one session),
 * the visitors' ids 32 hex digits like the collector's hashes, half of them from DE.
 */
function day(pageviews: number, seed: number): Visit[] {
	const rng = xoroshiro128plus(seed);
	const hex32 = () => Array.from({ length: 4 }, () => Math.floor(uniformFloat64(rng) * 2 ** 32).toString(16).padStart(8, "0")).join("");
	const visits: Visit[] = [];
	for (let n = 0; visits.length < pageviews; n++) {
		const visitor = hex32();
		const start = at("00:00") + Math.floor(uniformFloat64(rng) * 1_400) * 60_000;
		for (let i = 0; i < 4 && visits.length < pageviews; i++) {
			visits.push({ visitor, ts: start + i * 60_000, path: i < 2 ? "/a" : "/b", country: n % 2 === 0 ? "DE" : "US" });
		}
	}
	return visits;
}

/** What a sample of `buckets` reports for the visits: its own counts scaled up, as the answer does. */
function estimate(visits: Visit[], buckets: number) {
	const sampled = visits.filter((v) => Number.parseInt(v.visitor.slice(0, 2), 16) < buckets);
	const scaled = (n: number) => Math.round((n * SAMPLE_BUCKETS) / buckets);
	const visitors = scaled(new Set(sampled.map((v) => v.visitor)).size);
	// Each visitor's four page views are one session.
	return { pageviews: scaled(sampled.length), visitors, sessions: visitors };
}

const exactly = (visits: Visit[]) => estimate(visits, SAMPLE_BUCKETS);
const ofCountry = (visits: Visit[], country: string) => visits.filter((v) => v.country === country);

// Seeding tens of thousands of events takes seconds alone and many times that on a loaded machine.
describe("filtered statistics over many events: a sample of the visitors, counts scaled up", { timeout: 60_000 }, () => {
	const stats = async (token: string, trackingId: string, query: string) => {
		const { status, body } = await getJson(`/api/sites/${trackingId}/stats?${RANGE}&${query}`, token);
		if (status !== 200) throw new Error(`${status}: ${JSON.stringify(body)}`);
		return body;
	};

	it(`${LIMIT} events in the range are all counted; one more, and a sample of 255 in 256 buckets is, scaled up`, async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		const visits = day(LIMIT, 1);
		await seedEvents(site.tracking_id, visits);
		const de = ofCountry(visits, "DE");

		const atLimit = await stats(token, site.tracking_id, "country=DE");
		expect(atLimit.sample_percent).toBe(100);
		expect(atLimit).toMatchObject(exactly(de));

		const extra: Visit = { visitor: "ff".padEnd(32, "0"), ts: at("12:00"), path: "/a", country: "DE" };
		await seedEvents(site.tracking_id, [extra]);
		const past = await stats(token, site.tracking_id, "country=DE");
		expect(past.sample_percent).toBe(99.6);
		expect(past).toMatchObject(estimate([...de, extra], 255));
		// The last bucket ("ff...") is not in the sample, so the extra visitor is not counted.
		expect(past.pageviews).toBe(estimate(de, 255).pageviews);

		// exact=true counts every event.
		const exact = await stats(token, site.tracking_id, "country=DE&exact=true");
		expect(exact.sample_percent).toBe(100);
		expect(exact).toMatchObject(exactly([...de, extra]));

		// The CSV export counts as the dashboard does, and says so in a header.
		const csv = (query: string) => call(`/api/sites/${site.tracking_id}/stats/countries.csv?${RANGE}&country=DE${query}`, { token });
		const sampledCsv = await csv("");
		expect(sampledCsv.headers.get("x-sample-percent")).toBe("99.6");
		expect(await sampledCsv.text()).toBe(`country,visitors,pageviews\r\nDE,${past.countries[0].visitors},${past.countries[0].pageviews}\r\n`);
		const exactCsv = await csv("&exact=true");
		expect(exactCsv.headers.get("x-sample-percent")).toBe("100");
		expect(await exactCsv.text()).toBe(`country,visitors,pageviews\r\nDE,${exactly([...de, extra]).visitors},${de.length + 1}\r\n`);

		// Without filters the rollups answer, exact at any size.
		expect(await stats(token, site.tracking_id, "")).toMatchObject({ sample_percent: 100, pageviews: LIMIT + 1 });
	});

	it("four times the limit: a quarter of the visitors, every count and list within a few percent of the truth; the previous period from the same sample", async ({
		expect,
	}) => {
		const { token, site } = await ownerWithSite();
		const visits = day(4 * LIMIT, 2);
		const dayBefore = day(LIMIT / 2, 3).map((v) => ({ ...v, ts: v.ts - 86_400_000 }));
		await seedEvents(site.tracking_id, [...dayBefore, ...visits]);
		const body = await stats(token, site.tracking_id, "page=/a&compare=previous");
		const buckets = Math.floor((SAMPLE_BUCKETS * LIMIT) / (4 * LIMIT));
		expect(body.sample_percent).toBe(Math.round((buckets / SAMPLE_BUCKETS) * 1000) / 10);

		const onA = visits.filter((v) => v.path === "/a");
		const expected = estimate(onA, buckets);
		expect(body).toMatchObject({ pageviews: expected.pageviews, visitors: expected.visitors });
		expect(body.top_pages).toEqual([expect.objectContaining({ path: "/a", pageviews: expected.pageviews, visitors: expected.visitors })]);
		// Visit figures: the sessions that had a view of /a, here every one.
		expect(body.sessions).toBe(estimate(visits, buckets).sessions);
		expect(body.bounce_rate).toBe(0);
		// The estimate is close to the truth: a quarter of 5,000 visitors.
		expect(Math.abs(body.pageviews - onA.length) / onA.length).toBeLessThan(0.05);
		expect(Math.abs(body.visitors - exactly(onA).visitors) / exactly(onA).visitors).toBeLessThan(0.05);
		expect(body.countries.map((c: { country: string }) => c.country).sort()).toEqual(["DE", "US"]);
		// The day before holds fewer events than the limit, and is still counted from the same sample.
		expect(body.previous).toMatchObject({ pageviews: estimate(dayBefore.filter((v) => v.path === "/a"), buckets).pageviews });		// "Contains" is counted from the same sample: /a is the one path that holds an A, letter case aside.
		const containing = await stats(token, site.tracking_id, "page_contains=A&compare=previous");
		expect({ ...containing, filters: undefined }).toEqual({ ...body, filters: undefined });
	});

	it("with compare=previous the busier period decides: a quiet day after a busy one is counted from the busy one's sample", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		const busyDayBefore = day(LIMIT + 1_000, 4).map((v) => ({ ...v, ts: v.ts - 86_400_000 }));
		const quietDay = day(400, 5);
		await seedEvents(site.tracking_id, [...busyDayBefore, ...quietDay]);
		expect(await stats(token, site.tracking_id, "country=DE")).toMatchObject({ sample_percent: 100, ...exactly(ofCountry(quietDay, "DE")) });

		const buckets = Math.floor((SAMPLE_BUCKETS * LIMIT) / (LIMIT + 1_000));
		const compared = await stats(token, site.tracking_id, "country=DE&compare=previous");
		expect(compared.sample_percent).toBe(Math.round((buckets / SAMPLE_BUCKETS) * 1000) / 10);
		expect(compared.pageviews).toBe(estimate(ofCountry(quietDay, "DE"), buckets).pageviews);
		expect(compared.previous.pageviews).toBe(estimate(ofCountry(busyDayBefore, "DE"), buckets).pageviews);
	});

	it("a custom event's property and a source's referrer URLs are counted from the sample too, and every one with exact=true", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		// Past the limit by the four events below: the sample is 255 buckets of 256, which leaves out "ff...".
		const inSample = "00".padEnd(32, "1");
		const outOfSample = "ff".padEnd(32, "1");
		const arrivals = [inSample, outOfSample].flatMap((visitor, i) => [
			{ visitor, ts: at("13:00") + i * 60_000, path: "/launch", source: "Hacker News", referrer_host: "news.ycombinator.com", referrer: "https://news.ycombinator.com/item?id=42#top" },
			{ visitor, ts: at("13:00") + i * 60_000 + 1_000, name: "signup", path: "/launch", data: JSON.stringify({ plan: "pro" }) },
		]);
		const visits = day(LIMIT, 6);
		await seedEvents(site.tracking_id, [...visits, ...arrivals]);

		const property = await stats(token, site.tracking_id, "property=plan:pro");
		expect(property.sample_percent).toBe(99.6);
		expect(property).toMatchObject({ visitors: 1, events: 1 });
		expect(property.custom_events).toEqual([{ name: "signup", events: 1, visitors: 1 }]);
		expect(await stats(token, site.tracking_id, "property=plan:pro&exact=true")).toMatchObject({ sample_percent: 100, visitors: 2, events: 2 });

		const source = await stats(token, site.tracking_id, "source=Hacker+News");
		expect(source.sample_percent).toBe(99.6);
		expect(source.referrer_urls).toEqual([{ referrer_url: "news.ycombinator.com/item", visitors: 1, pageviews: 1 }]);
		const exact = await stats(token, site.tracking_id, "source=Hacker+News&exact=true");
		expect(exact.referrer_urls).toEqual([{ referrer_url: "news.ycombinator.com/item", visitors: 2, pageviews: 2 }]);

		// "Is not" of a visit filter, from the same sample: every visit but the two from Hacker News
		// (one in the sample) and those with a signup, the same ones.
		for (const query of ["source_not=Hacker+News", "event_not=signup"]) {
			expect(await stats(token, site.tracking_id, query)).toMatchObject({ sample_percent: 99.6, events: 0, ...estimate(visits, 255) });
			expect(await stats(token, site.tracking_id, `${query}&exact=true`)).toMatchObject({ sample_percent: 100, events: 0, ...exactly(visits) });
		}
	});

	it("the sample never narrows below one bucket of 256, however many events the range holds", ({ expect }) => {
		expect(sampleFor(LIMIT)).toBeUndefined();
		expect(sampleFor(LIMIT + 1)).toEqual({ buckets: 255 });
		expect(sampleFor(128 * LIMIT)).toEqual({ buckets: 2 });
		expect(sampleFor(128 * LIMIT + 1)).toEqual({ buckets: 1 });
		expect(sampleFor(1_000 * LIMIT)).toEqual({ buckets: 1 });
	});

	it("exact must be true", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		const { status, body } = await getJson(`/api/sites/${site.tracking_id}/stats?${RANGE}&country=DE&exact=yes`, token);
		expect(status).toBe(400);
		expect(JSON.stringify(body)).toContain('must be \\"true\\"');
	});
});
