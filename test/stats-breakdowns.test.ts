import { describe, expect, it } from "vitest";
import { BREAKDOWN_COLUMNS, type BreakdownName } from "../domain/analytics/siteStats";
import { collect, getJson, ownerWithSite, pageview } from "./analytics-helpers";
import { call, uniqueIp } from "./helpers";
import { at, DAY, RANGE, type Seed, seedEvents } from "./statsData";

/*
 * The breakdowns beyond the seeded day's hand count (stats.test.ts): a source's referrer URLs,
 * `ref`, the custom-event property filter, and every breakdown's CSV export.
 */

/**
 * The seeded day and two more visitors from Hacker News: R through an item page, with every
 * campaign parameter, a ref, a custom event with properties and an engagement report; S from HN's
 * search (a referrer without a path).
 */
const MORE: Seed[] = [
	...DAY,
	{
		visitor: "R",
		ts: at("12:00"),
		path: "/landing",
		referrer: "https://news.ycombinator.com/item?id=1",
		referrer_host: "news.ycombinator.com",
		source: "Hacker News",
		utm: { source: "hn", medium: "social", campaign: "launch", content: "top", term: "analytics" },
		ref: "hn-front",
		country: "FR",
	},
	{ visitor: "R", ts: at("12:01"), name: "signup", path: "/landing", country: "FR", data: '{"plan":"team","from":"https://x.example/a:b"}' },
	{ visitor: "R", ts: at("12:02"), name: "_leave", path: "/landing", engaged_ms: 20_000, scroll_depth: 50, country: "FR" },
	{ visitor: "S", ts: at("13:00"), path: "/", referrer: "https://hn.algolia.com?q=svc", referrer_host: "hn.algolia.com", source: "Hacker News" },
];

const stats = async (token: string, trackingId: string, query: string) => {
	const { status, body } = await getJson(`/api/sites/${trackingId}/stats?${RANGE}&${query}`, token);
	expect(status, JSON.stringify(body)).toBe(200);
	return body;
};

describe("a source's referrer URLs (referrer_urls, with the source filter)", () => {
	it("lists the referrers of that source's visits by host and path, without query or fragment", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await seedEvents(site.tracking_id, MORE);
		const hn = await stats(token, site.tracking_id, "source=Hacker%20News");
		expect(hn.referrer_urls).toEqual([
			{ referrer_url: "news.ycombinator.com/item", visitors: 2, pageviews: 2 },
			{ referrer_url: "hn.algolia.com/", visitors: 1, pageviews: 1 },
		]);
		expect((await stats(token, site.tracking_id, "source=Google")).referrer_urls).toEqual([{ referrer_url: "www.google.com/", visitors: 1, pageviews: 1 }]);
		// No source, no referrer: an empty list, and none at all without the source filter.
		expect((await stats(token, site.tracking_id, "source=Direct%20%2F%20None")).referrer_urls).toEqual([]);
		expect(await stats(token, site.tracking_id, "country=DE")).not.toHaveProperty("referrer_urls");
	});

	it("reads the referrers trackers send: a search's query, a fragment, another country's host each land on host and path", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		for (const referrer of ["https://www.google.com/", "https://www.google.com/search?q=svc", "https://www.google.de/url?sa=t&url=x", "https://www.google.com#top"]) {
			expect((await collect(pageview(site.tracking_id, { referrer }), { ip: uniqueIp() })).status).toBe(204);
		}
		const { body } = await getJson(`/api/sites/${site.tracking_id}/stats?source=Google`, token);
		expect(body.referrer_urls).toEqual([
			{ referrer_url: "www.google.com/", visitors: 2, pageviews: 2 },
			{ referrer_url: "www.google.com/search", visitors: 1, pageviews: 1 },
			{ referrer_url: "www.google.de/url", visitors: 1, pageviews: 1 },
		]);
	});
});

describe("ref: its own breakdown and filter", () => {
	it("counts each visit's landing ref, and filters to the visits that arrived with it", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await seedEvents(site.tracking_id, MORE);
		expect((await stats(token, site.tracking_id, "")).campaigns.ref).toEqual([
			{ ref: "digest", visitors: 1, visits: 1 },
			{ ref: "hn-front", visitors: 1, visits: 1 },
		]);
		const body = await stats(token, site.tracking_id, "ref=hn-front");
		expect(body).toMatchObject({ pageviews: 1, visitors: 1, events: 1, sessions: 1 });
		expect(body.campaigns.utm_term).toEqual([{ utm_term: "analytics", visitors: 1, visits: 1 }]);
	});
});

describe("property=<name>:<value>: the visits that had a custom event with that property", () => {
	it("splits at the first colon, so a value may hold colons; combines with the other filters", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await seedEvents(site.tracking_id, MORE);
		const from = await stats(token, site.tracking_id, `property=${encodeURIComponent("from:https://x.example/a:b")}`);
		expect(from).toMatchObject({ pageviews: 1, visitors: 1, events: 1, filters: { property: "from:https://x.example/a:b" } });
		expect(from.event_properties).toEqual([
			{ name: "signup", property: "from", value: "https://x.example/a:b", events: 1 },
			{ name: "signup", property: "plan", value: "team", events: 1 },
		]);
		expect(await stats(token, site.tracking_id, "property=plan:team&source=Hacker%20News")).toMatchObject({ visitors: 1, pageviews: 1 });
		expect(await stats(token, site.tracking_id, "property=plan:team&source=Google")).toMatchObject({ visitors: 0, pageviews: 0 });
		// An empty value is a value: no event has one here.
		expect(await stats(token, site.tracking_id, "property=plan:")).toMatchObject({ visitors: 0 });
	});
});

describe("top_pages: the most visitors first, from the rollups and from the events alike", () => {
	// X reloads /a five times; Y and Z read /b once each; W reads /c once and /b not at all.
	const RELOADS: Seed[] = [
		...Array.from({ length: 5 }, (_, i): Seed => ({ visitor: "X", ts: at(`09:0${i}`), path: "/a" })),
		{ visitor: "Y", ts: at("09:10"), path: "/b" },
		{ visitor: "Z", ts: at("09:20"), path: "/b" },
		{ visitor: "W", ts: at("09:30"), path: "/c" },
		{ visitor: "W", ts: at("09:31"), path: "/c" },
	];
	const ranked = [
		["/b", 2, 2],
		["/a", 5, 1],
		["/c", 2, 1],
	];

	it("ranks by visitors, then page views, then path, in the answer and the CSV export", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await seedEvents(site.tracking_id, RELOADS);
		// Unfiltered from the rollups; a filter every event passes counts the same from the events.
		for (const query of ["", "browser=Chrome"]) {
			const body = await stats(token, site.tracking_id, query);
			expect(body.top_pages.map((p: { path: string; pageviews: number; visitors: number }) => [p.path, p.pageviews, p.visitors]), query).toEqual(ranked);
			const csv = await (await call(`/api/sites/${site.tracking_id}/stats/pages.csv?${RANGE}&${query}`, { token })).text();
			expect(csv.split("\r\n").slice(1, 4), query).toEqual(ranked.map(([path, views, visitors]) => `${path},${views},${visitors},,`));
			// A shorter list keeps the pages most people read.
			const top = await stats(token, site.tracking_id, `${query}&limit=1`);
			expect(top.top_pages.map((p: { path: string }) => p.path), query).toEqual(["/b"]);
		}
	});
});

/** The list of the JSON answer that a CSV breakdown exports. */
function listOf(body: any, name: BreakdownName): Array<Record<string, unknown>> {
	if (name === "pages") return body.top_pages;
	if (name === "referrers") return body.top_referrers;
	return body.campaigns[name] ?? body[name];
}

describe("every breakdown's CSV export, unfiltered and filtered", () => {
	const names = Object.keys(BREAKDOWN_COLUMNS) as BreakdownName[];
	const FILTER = "source=Hacker%20News";

	it.for(names)("%s.csv: its header, and its first row as the JSON answer's", async (name, { expect }) => {
		const { token, site } = await ownerWithSite();
		await seedEvents(site.tracking_id, MORE);
		const header = BREAKDOWN_COLUMNS[name].join(",");
		const csv = (query: string) => call(`/api/sites/${site.tracking_id}/stats/${name}.csv?${RANGE}${query}`, { token });
		for (const query of ["", `&${FILTER}`]) {
			const res = await csv(query);
			if (name === "referrer_urls" && query === "") {
				// A source's referrers: without a source there is nothing to list.
				expect(res.status).toBe(400);
				expect((await res.json<{ error: string }>()).error).toMatch(/referrer_urls\.csv lists one source's referrers: give it source=/);
				continue;
			}
			expect(res.status, query).toBe(200);
			const [first, second, ...rest] = (await res.text()).split("\r\n");
			expect(first, query).toBe(header);
			const [row] = listOf(await stats(token, site.tracking_id, query.slice(1)), name);
			expect(row, `${name} ${query}`).toBeDefined();
			expect(second, query).toBe(BREAKDOWN_COLUMNS[name].map((column) => String(row[column] ?? "")).join(","));
			expect(rest.at(-1)).toBe("");
		}
	});

	it("event_properties.csv keeps `limit` rows, though the JSON answer lists five times `limit`", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await seedEvents(site.tracking_id, MORE);
		for (const query of ["", `&${FILTER}`]) {
			const text = await (await call(`/api/sites/${site.tracking_id}/stats/event_properties.csv?${RANGE}&limit=1${query}`, { token })).text();
			expect(text.trimEnd().split("\r\n")).toHaveLength(2);
		}
	});
});
