import { describe, expect, it } from "vitest";
import { STATS_FILTER_PARAMS } from "../domain/api/sites";
import { getJson, ownerWithSite } from "./analytics-helpers";
import { call } from "./helpers";
import { DAY, RANGE, seedEvents } from "./statsData";

/** The statistics of the seeded day (statsData.ts) under `query`. */
async function statsOfDay(query: string) {
	const { token, site } = await ownerWithSite();
	await seedEvents(site.tracking_id, DAY);
	const { status, body } = await getJson(`/api/sites/${site.tracking_id}/stats?${RANGE}&${query}`, token);
	expect(status, JSON.stringify(body)).toBe(200);
	return body;
}

describe('"is not" filters (country_not=DE), as Plausible has them', () => {
	it.for([
		// [query, figures, sources] worked out by hand from the seeded day (statsData.ts).
		// Of the event: the events the filter does not keep. C, whose country is unknown, is not DE.
		["country_not=DE", { pageviews: 2, visitors: 2, events: 2, sessions: 2, bounce_rate: 0.5, avg_duration: 52.5 }, ["Google", "newsletter"]],
		["country_not=Unknown", { pageviews: 4, visitors: 2, events: 1, sessions: 3 }, ["Direct / None", "Google", "Hacker News"]],
		["device_not=desktop", { pageviews: 1, visitors: 1, events: 0, sessions: 1 }, ["Google"]],
		["browser_not=Chrome", { pageviews: 2, visitors: 2, events: 2, sessions: 2 }, ["Google", "newsletter"]],
		["os_not=Windows", { pageviews: 2, visitors: 2, events: 2, sessions: 2 }, ["Google", "newsletter"]],
		// Of the visit: every visit the filter does not keep, with all its events. A visit from no
		// source is not from Google; one without a campaign has not this campaign.
		["source_not=Google", { pageviews: 4, visitors: 2, events: 3, sessions: 3, bounce_rate: 0.3333, avg_duration: 55 }, ["Direct / None", "Hacker News", "newsletter"]],
		["source_not=Direct%20%2F%20None", { pageviews: 4, visitors: 3, events: 3, sessions: 3 }, ["Google", "Hacker News", "newsletter"]],
		["referrer_not=www.google.com", { pageviews: 4, visitors: 2, events: 3, sessions: 3 }, ["Direct / None", "Hacker News", "newsletter"]],
		["utm_source_not=newsletter", { pageviews: 4, visitors: 2, events: 1, sessions: 3 }, ["Direct / None", "Google", "Hacker News"]],
		["utm_campaign_not=spring", { pageviews: 4, visitors: 2, events: 1, sessions: 3 }, ["Direct / None", "Google", "Hacker News"]],
		["ref_not=digest", { pageviews: 4, visitors: 2, events: 1, sessions: 3 }, ["Direct / None", "Google", "Hacker News"]],
		["entry_page_not=/", { pageviews: 1, visitors: 1, events: 2, sessions: 1 }, ["newsletter"]],
		["exit_page_not=/", { pageviews: 3, visitors: 2, events: 3, sessions: 2 }, ["Hacker News", "newsletter"]],
		// The visits that did not convert (Plausible's "has not done"): A's second and B's.
		["event_not=signup", { pageviews: 2, visitors: 2, events: 0, sessions: 2, bounce_rate: 1 }, ["Direct / None", "Google"]],
		["property_not=seats:2", { pageviews: 4, visitors: 2, events: 1, sessions: 3 }, ["Direct / None", "Google", "Hacker News"]],
		// Page: the events off the page, and the visits that had one: A's first (its / and /pricing)
		// and C's; B and A's second saw / alone.
		["page_not=/", { pageviews: 2, visitors: 2, events: 3, sessions: 2, bounce_rate: 0, avg_duration: 82.5 }, ["Hacker News", "newsletter"]],
		["page_not=/pricing", { pageviews: 4, visitors: 3, events: 2, sessions: 4 }, ["Direct / None", "Google", "Hacker News", "newsletter"]],
		// With "is" filters, every one must hold: A's desktop visits not from Hacker News, and C's.
		["source_not=Hacker%20News&device=desktop", { pageviews: 2, visitors: 2, events: 2, sessions: 2 }, ["Direct / None", "newsletter"]],
		["country=DE&source_not=Direct%20%2F%20None", { pageviews: 2, visitors: 1, events: 1, sessions: 1 }, ["Hacker News"]],
		["event=signup&country_not=DE", { pageviews: 1, visitors: 1, events: 2, sessions: 1 }, ["newsletter"]],
		// "Is" and "is not" of one filter both hold, or nothing does.
		["country=DE&country_not=US", { pageviews: 3, visitors: 1, sessions: 2 }, ["Direct / None", "Hacker News"]],
		["country=DE&country_not=DE", { pageviews: 0, visitors: 0, sessions: 0 }, []],
		["source=Google&source_not=Google", { pageviews: 0, visitors: 0, sessions: 0 }, []],
	] as const)("%s", async ([query, figures, sources], { expect }) => {
		const body = await statsOfDay(query);
		expect(body).toMatchObject(figures);
		expect(body.sources.map((s: { source: string }) => s.source)).toEqual(sources);
		expect(body.filters).toEqual(Object.fromEntries(new URLSearchParams(query)));
	});

	it("a visit filter's is and is not split the visits between them, whatever its value; an event filter's the page views", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await seedEvents(site.tracking_id, DAY);
		const figures = async (query: string) => {
			const { body } = await getJson(`/api/sites/${site.tracking_id}/stats?${RANGE}&${query}`, token);
			return { pageviews: body.pageviews as number, sessions: body.sessions as number };
		};
		const cases = [
			["source", "Hacker News"],
			["entry_page", "/blog"],
			["exit_page", "/pricing"],
			["utm_medium", "email"],
			["event", "download"],
			["property", "plan:pro"],
			["country", "US"],
			["browser", "Firefox"],
		];
		for (const [name, value] of cases) {
			const is = await figures(`${name}=${encodeURIComponent(value)}`);
			const isNot = await figures(`${name}_not=${encodeURIComponent(value)}`);
			const event = ["country", "browser"].includes(name);
			expect({ name, split: event ? is.pageviews + isNot.pageviews : is.sessions + isNot.sessions }).toEqual({ name, split: event ? 5 : 4 });
		}
	});

	it("the lists under a negated filter: countries without DE, entry pages of the visits not from Google", async ({ expect }) => {
		const countries = await statsOfDay("country_not=DE");
		expect(countries.countries).toEqual([
			{ country: "US", visitors: 1, pageviews: 1 },
			{ country: "Unknown", visitors: 1, pageviews: 1 },
		]);
		const notGoogle = await statsOfDay("source_not=Google");
		expect(notGoogle.entry_pages).toEqual([
			{ path: "/", visitors: 1, visits: 2 },
			{ path: "/blog", visitors: 1, visits: 1 },
		]);
		// No source filter names the referrers to list: none.
		expect(notGoogle.referrer_urls).toBeUndefined();
	});

	it("CSV exports count as the dashboard does under negated filters", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await seedEvents(site.tracking_id, DAY);
		const csv = async (file: string, query: string) => {
			const res = await call(`/api/sites/${site.tracking_id}/stats/${file}?${RANGE}&${query}`, { token });
			return { status: res.status, text: await res.text() };
		};
		expect(await csv("sources.csv", "source_not=Google")).toEqual({
			status: 200,
			text: "source,visitors,visits\r\nDirect / None,1,1\r\nHacker News,1,1\r\nnewsletter,1,1\r\n",
		});
		expect(await csv("countries.csv", "country_not=DE")).toEqual({ status: 200, text: "country,visitors,pageviews\r\nUS,1,1\r\nUnknown,1,1\r\n" });
		expect(await csv("pages.csv", "page_not=/&event_not=download")).toEqual({
			status: 200,
			text: "path,pageviews,visitors,scroll_depth,time_on_page\r\n/pricing,1,1,,120\r\n",
		});
		// The referrer URLs are one source's: "is not" names none.
		const urls = await csv("referrer_urls.csv", "source_not=Google");
		expect(urls.status).toBe(400);
		expect(urls.text).toMatch(/give it source=<a source>/);
	});

	it.for([
		["an empty value", "country_not=", /country_not: must not be empty/],
		["a value of 2,001 characters", `page_not=/${"p".repeat(2_000)}`, /page_not: must be at most 2000 characters/],
		["a repeated negated filter", "country_not=DE&country_not=US", /country_not/],
		["a property without a colon", "property_not=plan", /property_not: must be a property name, a colon and its value, as plan:pro/],
		["an operator spelt otherwise", "country_is_not=DE", /unknown parameter country_is_not/],
		["a negation in front", "not_country=DE", /unknown parameter not_country/],
		["a negated parameter that is no filter", "compare_not=previous", /unknown parameter compare_not/],
	])("answers 400 to %s", async ([, query, message], { expect }) => {
		const { token, site } = await ownerWithSite();
		const { status, body } = await getJson(`/api/sites/${site.tracking_id}/stats?${query}`, token);
		expect(status).toBe(400);
		expect(body.error).toMatch(message);
		const csv = await call(`/api/sites/${site.tracking_id}/stats/pages.csv?${query}`, { token });
		expect(csv.status).toBe(400);
	});

	it("takes every filter and every negation at once in one statement (nothing is all of them)", async ({ expect }) => {
		const query = STATS_FILTER_PARAMS.filter((param) => !param.includes("_contains")).map((param) => `${param}=${param.startsWith("property") ? "plan:pro" : "x"}`).join("&");
		const body = await statsOfDay(query);
		expect(body).toMatchObject({ pageviews: 0, visitors: 0, sessions: 0, events: 0 });
		expect(Object.keys(body.filters)).toHaveLength(34);
	});

	it("takes a value of 2,000 characters", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		expect((await getJson(`/api/sites/${site.tracking_id}/stats?page_not=/${"p".repeat(1_999)}`, token)).status).toBe(200);
		expect((await getJson(`/api/sites/${site.tracking_id}/stats?property_not=plan:${"p".repeat(1_995)}`, token)).status).toBe(200);
	});
});
