import { describe, expect, it } from "vitest";
import { siteStatsQueries } from "../domain/analytics/eventStats";
import { compileFilters } from "../domain/analytics/filters";
import { STATS_FILTER_PARAMS } from "../domain/api/sites";
import { getJson, ownerWithSite } from "./analytics-helpers";
import { call } from "./helpers";
import { at, DAY, RANGE, type Seed, seedEvents } from "./statsData";

/** A site holding the seeded day (statsData.ts), and its statistics under a query. */
async function seededSite(events: Seed[] = DAY) {
	const { token, site } = await ownerWithSite();
	await seedEvents(site.tracking_id, events);
	const stats = async (query: string) => {
		const { status, body } = await getJson(`/api/sites/${site.tracking_id}/stats?${RANGE}&${query}`, token);
		expect(status, JSON.stringify(body)).toBe(200);
		return body;
	};
	const csv = async (file: string, query: string) => {
		const res = await call(`/api/sites/${site.tracking_id}/stats/${file}?${RANGE}&${query}`, { token });
		return { status: res.status, text: await res.text() };
	};
	return { token, site, stats, csv };
}

/** An answer but the filters it echoes and the one source's referrers `source=` lists: what two queries must agree on. */
const figuresOf = ({ filters: _filters, referrer_urls: _urls, ...figures }: Record<string, unknown>) => figures;

describe('"contains" and "does not contain" filters (page_contains=blog), as Plausible\'s dashboard has them', () => {
	it("keeps what the filter's is (or is not) keeps when the text is part of one label alone, letter case aside", async ({ expect }) => {
		const { stats } = await seededSite();
		// [contains query, the "is" query it must answer as] on the seeded day's labels.
		const cases = [
			["page_contains=PRIC", "page=/pricing"],
			["page_contains_not=PRIC", "page_not=/pricing"],
			["entry_page_contains=Blo", "entry_page=/blog"],
			["entry_page_contains_not=Blo", "entry_page_not=/blog"],
			["exit_page_contains=ricin", "exit_page=/pricing"],
			["exit_page_contains_not=ricin", "exit_page_not=/pricing"],
			["browser_contains=fire", "browser=Firefox"],
			["browser_contains_not=fire", "browser_not=Firefox"],
			["os_contains=WIN", "os=Windows"],
			["os_contains_not=WIN", "os_not=Windows"],
			["source_contains=hacker", "source=Hacker%20News"],
			["source_contains_not=GOOG", "source_not=Google"],
			// The label Sources shows for the visits from no source.
			["source_contains=direct", "source=Direct%20%2F%20None"],
			["source_contains_not=direct", "source_not=Direct%20%2F%20None"],
			["referrer_contains=GOOGLE", "referrer=www.google.com"],
			["referrer_contains_not=GOOGLE", "referrer_not=www.google.com"],
			["utm_source_contains=LETTER", "utm_source=newsletter"],
			["utm_source_contains_not=LETTER", "utm_source_not=newsletter"],
			["utm_medium_contains=mai", "utm_medium=email"],
			["utm_medium_contains_not=mai", "utm_medium_not=email"],
			["utm_campaign_contains=Spr", "utm_campaign=spring"],
			["utm_campaign_contains_not=Spr", "utm_campaign_not=spring"],
			["utm_content_contains=x", "utm_content=x"],
			["utm_content_contains_not=x", "utm_content_not=x"],
			["utm_term_contains=x", "utm_term=x"],
			["utm_term_contains_not=x", "utm_term_not=x"],
			["ref_contains=IGES", "ref=digest"],
			["ref_contains_not=IGES", "ref_not=digest"],
			["event_contains=SIGN", "event=signup"],
			["event_contains_not=SIGN", "event_not=signup"],
			// The engagement reports and identifications are no custom events, whatever their names hold.
			["event_contains=leave", "event=nothing"],
			["event_contains=identify", "event=nothing"],
			// A property's name whole, its value containing the text.
			["property_contains=plan:PR", "property=plan:pro"],
			["property_contains_not=plan:PR", "property_not=plan:pro"],
			["property_contains=seats:", "property=seats:2"],
			["property_contains=PLAN:pro", "property=nothing:x"],
			["property_contains=pla:pro", "property=nothing:x"],
		];
		for (const [contains, is] of cases) {
			const [containing, being] = [await stats(contains), await stats(is)];
			expect({ contains, figures: figuresOf(containing) }).toEqual({ contains, figures: figuresOf(being) });
			expect(containing.filters).toEqual(Object.fromEntries(new URLSearchParams(contains)));
		}
	});

	it.for([
		// [query, figures, sources] worked out by hand from the seeded day (statsData.ts).
		// "news" is part of Hacker News and of newsletter: A's first visit and C's.
		["source_contains=news", { pageviews: 3, visitors: 2, events: 3, sessions: 2 }, ["Hacker News", "newsletter"]],
		["source_contains_not=news", { pageviews: 2, visitors: 2, events: 0, sessions: 2 }, ["Direct / None", "Google"]],
		// "/" is part of every path: every page view.
		["page_contains=/", { pageviews: 5, visitors: 3, events: 3, sessions: 4 }, ["Direct / None", "Google", "Hacker News", "newsletter"]],
		["page_contains_not=/", { pageviews: 0, visitors: 0, events: 0, sessions: 0 }, []],
		// With the other operators of the same filter, every one must hold.
		["source_contains=news&source_contains_not=hacker", { pageviews: 1, visitors: 1, sessions: 1 }, ["newsletter"]],
		["source_contains=news&source_not=newsletter", { pageviews: 2, visitors: 1, sessions: 1 }, ["Hacker News"]],
		["source_contains=news&source=Google", { pageviews: 0, visitors: 0, sessions: 0 }, []],
		// No page view is on a page and off it, but A's first visit had both, as with page=/pricing&page_not=/pricing.
		["page_contains=pricing&page_contains_not=pricing", { pageviews: 0, visitors: 0, sessions: 1 }, ["Hacker News"]],
		// And with other filters: C's visit is the one from a source with "news" outside DE.
		["source_contains=news&country_not=DE", { pageviews: 1, visitors: 1, sessions: 1 }, ["newsletter"]],
	] as const)("%s", async ([query, figures, sources], { expect }) => {
		const { stats } = await seededSite();
		const body = await stats(query);
		expect(body).toMatchObject(figures);
		expect(body.sources.map((s: { source: string }) => s.source)).toEqual(sources);
		expect(body.filters).toEqual(Object.fromEntries(new URLSearchParams(query)));
	});

	it("matches %, _ and \\ as the characters they are, never as a pattern", async ({ expect }) => {
		const paths = ["/100%", "/1000", "/snake_case", "/snake-case", "/back\\slash", "/backslash"];
		const { stats } = await seededSite(paths.map((path, i) => ({ visitor: `V${i}`, ts: at("12:00"), path })));
		const pagesOf = async (text: string) =>
			(await stats(`page_contains=${encodeURIComponent(text)}`)).top_pages.map((p: { path: string }) => p.path).sort();
		expect(await pagesOf("%")).toEqual(["/100%"]);
		expect(await pagesOf("0%")).toEqual(["/100%"]);
		expect(await pagesOf("_")).toEqual(["/snake_case"]);
		expect(await pagesOf("e_c")).toEqual(["/snake_case"]);
		expect(await pagesOf("\\")).toEqual(["/back\\slash"]);
		expect(await pagesOf("k\\s")).toEqual(["/back\\slash"]);
		const notPercent = await stats(`page_contains_not=${encodeURIComponent("%")}`);
		expect(notPercent.top_pages.map((p: { path: string }) => p.path).sort()).toEqual(["/1000", "/back\\slash", "/backslash", "/snake-case", "/snake_case"]);
	});

	it("applies to the period before (compare=previous) and the CSV exports", async ({ expect }) => {
		const { stats, csv } = await seededSite();
		// D's page view of / at 23:59 the day before is the period before's only one.
		expect((await stats("page_contains=/&compare=previous")).previous).toMatchObject({ pageviews: 1, visitors: 1 });
		expect((await stats("page_contains=blog&compare=previous")).previous).toMatchObject({ pageviews: 0, visitors: 0 });
		expect(await csv("sources.csv", "source_contains=NEWS")).toEqual({ status: 200, text: "source,visitors,visits\r\nHacker News,1,1\r\nnewsletter,1,1\r\n" });
		expect(await csv("pages.csv", "page_contains_not=pricing&event_contains_not=down")).toEqual({
			status: 200,
			text: "path,pageviews,visitors,scroll_depth,time_on_page\r\n/,3,2,,60\r\n",
		});
	});

	it("a custom event's contains is a goal: the conversion rate is out of the other filters' visitors", async ({ expect }) => {
		const { stats } = await seededSite();
		expect(await stats("event_contains=sign")).toMatchObject({ visitors: 2, conversion_base: { visitors: 3 } });
		expect(await stats("property_contains=plan:pro&browser_contains=fire")).toMatchObject({ visitors: 1, conversion_base: { visitors: 1 } });
		expect((await stats("event_contains_not=sign")).conversion_base).toBeUndefined();
	});

	it("takes any text of 1 to 2,000 characters, quotes, SQL and colons included", async ({ expect }) => {
		const { stats } = await seededSite();
		for (const query of [
			`page_contains=/${"p".repeat(1_999)}`,
			`property_contains=plan:${"p".repeat(1_995)}`,
			`source_contains_not=${encodeURIComponent("'; DROP TABLE analytics_events; --")}`,
			`referrer_contains=${encodeURIComponent('"%_\\')}`,
			"property_contains=:",
			"property_contains_not=::",
			`event_contains=${encodeURIComponent("Ünïcödé 🎉")}`,
		]) {
			expect((await stats(query)).filters).toEqual(Object.fromEntries(new URLSearchParams(query)));
		}
	});

	it("takes 34 filters at once, the longest statements' included, and answers 400 to 35", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		// The filters whose SQL is longest first (those of the visit: a visitor list and a cut of the sessions each).
		const length = (param: string) => siteStatsQueries(3_600_000, compileFilters({ [param]: "x" })).stats.length;
		const longestFirst = [...STATS_FILTER_PARAMS].sort((a, b) => length(b) - length(a));
		const query = (n: number) => longestFirst.slice(0, n).map((param) => `${param}=${param.startsWith("property") ? "plan:pro" : "x"}`).join("&");
		// The realtime view takes no range: its window is the last 30 minutes.
		for (const path of [`stats?${RANGE}&`, `stats/sources.csv?${RANGE}&`, "stats/realtime?"]) {
			expect((await call(`/api/sites/${site.tracking_id}/${path}${query(34)}`, { token })).status).toBe(200);
			const refused = await getJson(`/api/sites/${site.tracking_id}/${path}${query(35)}`, token);
			expect(refused.status).toBe(400);
			expect(refused.body.error).toMatch(/at most 34 filters at once, 35 given/);
		}
	});

	it.for([
		["an empty value", "page_contains=", /page_contains: must not be empty/],
		["an empty negated value", "source_contains_not=", /source_contains_not: must not be empty/],
		["a value of 2,001 characters", `page_contains=/${"p".repeat(2_000)}`, /page_contains: must be at most 2000 characters/],
		["a repeated one", "page_contains=a&page_contains=b", /page_contains/],
		["a property without a colon", "property_contains=plan", /property_contains: must be a property name, a colon and its value/],
		["a country's, which only is or is not", "country_contains=D", /unknown parameter country_contains/],
		["a device's", "device_contains_not=mobile", /unknown parameter device_contains_not/],
		["the operators the other way round", "page_not_contains=blog", /unknown parameter page_not_contains/],
	])("answers 400 to %s", async ([, query, message], { expect }) => {
		const { token, site } = await ownerWithSite();
		const { status, body } = await getJson(`/api/sites/${site.tracking_id}/stats?${query}`, token);
		expect(status).toBe(400);
		expect(body.error).toMatch(message);
		const csv = await call(`/api/sites/${site.tracking_id}/stats/pages.csv?${query}`, { token });
		expect(csv.status).toBe(400);
	});
});
