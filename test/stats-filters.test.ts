import { describe, expect, it } from "vitest";
import { getJson, ownerWithSite } from "./analytics-helpers";
import { call } from "./helpers";
import { at, DAY, RANGE, seedEvents } from "./statsData";

describe("statistics filters, combinable in one request", () => {
	const stats = async (token: string, trackingId: string, query: string) => {
		const { status, body } = await getJson(`/api/sites/${trackingId}/stats?${RANGE}&${query}`, token);
		expect(status, JSON.stringify(body)).toBe(200);
		return body;
	};

	it.for([
		// [query, figures, sources] worked out by hand from the seeded day
		["country=DE", { pageviews: 3, visitors: 1, sessions: 2, events: 1, bounce_rate: 0.5, avg_duration: 60 }, ["Direct / None", "Hacker News"]],
		["country=Unknown", { pageviews: 1, visitors: 1, sessions: 1, events: 2 }, ["newsletter"]],
		["device=mobile", { pageviews: 1, visitors: 1, sessions: 1 }, ["Google"]],
		["browser=Firefox", { pageviews: 1, visitors: 1, events: 2 }, ["newsletter"]],
		["os=iOS", { pageviews: 1, visitors: 1 }, ["Google"]],
		["source=Google", { pageviews: 1, visitors: 1, sessions: 1, bounce_rate: 1, avg_duration: 60 }, ["Google"]],
		// A source, a campaign value or ref keeps the visits that came with it, as its row counts them.
		["source=Hacker%20News", { pageviews: 2, visitors: 1, sessions: 1, events: 1 }, ["Hacker News"]],
		["referrer=www.google.com", { pageviews: 1, visitors: 1 }, ["Google"]],
		["utm_source=newsletter", { pageviews: 1, visitors: 1, events: 2 }, ["newsletter"]],
		["utm_medium=email", { pageviews: 1, visitors: 1 }, ["newsletter"]],
		["utm_campaign=spring", { pageviews: 1, visitors: 1 }, ["newsletter"]],
		// A custom event or its property keeps the visits that had it (that converted): A's first and C's.
		["event=signup", { pageviews: 3, visitors: 2, events: 3, sessions: 2 }, ["Hacker News", "newsletter"]],
		["ref=digest", { pageviews: 1, visitors: 1, events: 2 }, ["newsletter"]],
		// A custom event's property, as event_properties lists it (name:value): A's and C's signup had plan pro, C's alone seats 2.
		["property=plan:pro", { pageviews: 3, visitors: 2, events: 3, sessions: 2 }, ["Hacker News", "newsletter"]],
		["property=seats:2", { pageviews: 1, visitors: 1, events: 2 }, ["newsletter"]],
		["property=plan:pro&country=DE", { pageviews: 2, visitors: 1, events: 1 }, ["Hacker News"]],
		["property=plan:free", { pageviews: 0, visitors: 0 }, []],
		// A nested object is no property.
		["property=extra:%7B%22a%22%3A1%7D", { pageviews: 0, visitors: 0 }, []],
		// Event figures count the page's own events; visit figures the visits that had one of them.
		["page=/pricing", { pageviews: 1, visitors: 1, events: 1, sessions: 1, bounce_rate: 0, avg_duration: 120 }, ["Hacker News"]],
		["page=/&country=US", { pageviews: 1, visitors: 1, sessions: 1 }, ["Google"]],
		// Sessions that entered (or left) on the page: their events, from the first to the last.
		["entry_page=/", { pageviews: 4, visitors: 2, events: 1, sessions: 3, bounce_rate: 0.6667, avg_duration: 60 }, ["Direct / None", "Google", "Hacker News"]],
		["entry_page=/blog", { pageviews: 1, visitors: 1, events: 2, identified_visitors: 1, sessions: 1, bounce_rate: 0, avg_duration: 45 }, ["newsletter"]],
		["entry_page=/pricing", { pageviews: 0, visitors: 0, sessions: 0 }, []],
		["exit_page=/pricing", { pageviews: 2, visitors: 1, events: 1, sessions: 1, bounce_rate: 0, avg_duration: 120 }, ["Hacker News"]],
		["exit_page=/", { pageviews: 2, visitors: 2, events: 0, sessions: 2, bounce_rate: 1, avg_duration: 30 }, ["Direct / None", "Google"]],
		["entry_page=/&exit_page=/pricing", { pageviews: 2, visitors: 1, events: 1, sessions: 1 }, ["Hacker News"]],
		["entry_page=/&country=US", { pageviews: 1, visitors: 1, sessions: 1 }, ["Google"]],
		// The page's own events in sessions that entered on /; the visits with the page that did.
		["page=/pricing&entry_page=/", { pageviews: 1, visitors: 1, events: 1, sessions: 1 }, ["Hacker News"]],
		["page=/pricing&entry_page=/blog", { pageviews: 0, visitors: 0, events: 0, sessions: 0 }, []],
		["event=signup&entry_page=/", { pageviews: 2, visitors: 1, events: 1, sessions: 1 }, ["Hacker News"]],
		["event=signup&browser=Firefox", { pageviews: 1, visitors: 1, events: 2, sessions: 1 }, ["newsletter"]],
		["event=signup&source=Google", { pageviews: 0, visitors: 0, sessions: 0 }, []],
		["source=Direct%20%2F%20None", { pageviews: 1, visitors: 1, sessions: 1, events: 0 }, ["Direct / None"]],
		["country=FR", { pageviews: 0, visitors: 0, sessions: 0, bounce_rate: 0, avg_duration: 0 }, []],
	] as const)("%s", async ([query, figures, sources], { expect }) => {
		const { token, site } = await ownerWithSite();
		await seedEvents(site.tracking_id, DAY);
		const body = await stats(token, site.tracking_id, query);
		expect(body).toMatchObject(figures);
		expect(body.sources.map((s: { source: string }) => s.source)).toEqual(sources);
		expect(body.filters).toEqual(Object.fromEntries(new URLSearchParams(query)));
	});

	it("page=/pricing: its page and custom events, and the visits that had them", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await seedEvents(site.tracking_id, DAY);
		const body = await stats(token, site.tracking_id, "page=/pricing");
		expect(body.top_pages).toEqual([{ path: "/pricing", pageviews: 1, visitors: 1, scroll_depth: null, time_on_page: 120 }]);
		expect(body.custom_events).toEqual([{ name: "signup", events: 1, visitors: 1 }]);
		expect(body.event_properties).toEqual([{ name: "signup", property: "plan", value: "pro", events: 1 }]);
		// A's first visit, not A's second (which never reached /pricing).
		expect(body.entry_pages).toEqual([{ path: "/", visitors: 1, visits: 1 }]);
		expect(body.exit_pages).toEqual([{ path: "/pricing", visitors: 1, visits: 1 }]);
	});

	it("page=/pricing: a visitor whose only event there is a custom event is counted in visitors and in visits", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		// F views / and clicks on /pricing without a page view of it (a single-page app's route).
		await seedEvents(site.tracking_id, [...DAY, { visitor: "F", ts: at("13:00") }, { visitor: "F", ts: at("13:01"), name: "signup", path: "/pricing" }]);
		const body = await stats(token, site.tracking_id, "page=/pricing");
		expect(body).toMatchObject({ pageviews: 1, visitors: 2, events: 2, sessions: 2 });
		expect(body.sessions).toBeGreaterThanOrEqual(body.visitors);
	});

	it("entry_page, exit_page, source and referrer count what their row in Entry pages, Exit pages or Sources counts", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		// G enters on /about twice in the day (two visits) and once on /, from Google, before reaching /about.
		const g = (hhmm: string, path: string) => ({ visitor: "G", ts: at(hhmm), path });
		const fromGoogle = { source: "Google", referrer_host: "www.google.com" };
		await seedEvents(site.tracking_id, [...DAY, g("08:00", "/about"), g("09:00", "/about"), g("09:01", "/"), { ...g("12:00", "/"), ...fromGoogle }, g("12:05", "/about")]);
		const unfiltered = await stats(token, site.tracking_id, "limit=100");
		for (const [filter, list, column] of [["entry_page", "entry_pages", "path"], ["exit_page", "exit_pages", "path"], ["source", "sources", "source"]] as const) {
			for (const row of unfiltered[list] as Array<Record<string, string | number>>) {
				const value = row[column];
				const body = await stats(token, site.tracking_id, `${filter}=${encodeURIComponent(value)}`);
				expect({ filter, value, visitors: body.visitors, visits: body.sessions }).toEqual({ filter, value, visitors: row.visitors, visits: row.visits });
				expect(body[list]).toContainEqual(row);
			}
		}
		expect(unfiltered.entry_pages).toContainEqual({ path: "/about", visitors: 1, visits: 2 });
		expect(unfiltered.sources).toContainEqual({ source: "Google", visitors: 2, visits: 2 });
		// The referrer host of a visit's first page view, as the source is: B's visit and G's third.
		const google = await stats(token, site.tracking_id, "referrer=www.google.com");
		expect({ visitors: google.visitors, visits: google.sessions }).toEqual({ visitors: 2, visits: 2 });
	});

	it("event=: the visits that converted, their other events, and the properties of that event alone (as Plausible narrows a goal's)", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		// C also downloaded a file in the visit that signed up.
		await seedEvents(site.tracking_id, [...DAY, { visitor: "C", ts: at("23:54"), name: "File Download", path: "/blog", data: '{"url":"https://shop.example/price-list.pdf"}' }]);
		const signup = await stats(token, site.tracking_id, "event=signup");
		expect(signup.custom_events.map((e: { name: string }) => e.name).sort()).toEqual(["File Download", "download", "signup"]);
		expect(signup.event_properties).toEqual([
			{ name: "signup", property: "plan", value: "pro", events: 2 },
			{ name: "signup", property: "seats", value: "2", events: 1 },
		]);
		const downloads = await stats(token, site.tracking_id, "event=File%20Download");
		expect(downloads.event_properties).toEqual([{ name: "File Download", property: "url", value: "https://shop.example/price-list.pdf", events: 1 }]);
		// As its CSV lists them too.
		const csv = await (await call(`/api/sites/${site.tracking_id}/stats/event_properties.csv?${RANGE}&event=signup`, { token })).text();
		expect(csv.trim().split(/\r?\n/)).toEqual(["name,property,value,events", "signup,plan,pro,2", "signup,seats,2,1"]);
		// Without the filter, every event's.
		expect((await stats(token, site.tracking_id, "limit=10")).event_properties.map((r: { name: string }) => r.name)).toContain("File Download");
	});

	it("source=Direct / None keeps the visits that came from no source, whatever the visitor's other visits", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await seedEvents(site.tracking_id, [...DAY, { visitor: "E", ts: at("12:00"), path: "/typed" }, { visitor: "E", ts: at("12:01"), path: "/next" }]);
		const body = await stats(token, site.tracking_id, "source=Direct%20%2F%20None");
		// E's visit, and A's second (A's first came from Hacker News).
		expect(body).toMatchObject({ pageviews: 3, visitors: 2, sessions: 2 });
		expect(body.sources).toEqual([{ source: "Direct / None", visitors: 2, visits: 2 }]);
	});

	it("a property whose name holds a colon or is empty is a filter as its row reads; one set to null is no property", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await seedEvents(site.tracking_id, [
			{ visitor: "A", ts: at("10:00"), path: "/" },
			{ visitor: "A", ts: at("10:01"), name: "signup", data: '{"plan:tier":"pro","":"blank","coupon":null}' },
			{ visitor: "B", ts: at("11:00"), path: "/" },
			{ visitor: "B", ts: at("11:01"), name: "signup", data: '{"plan":"tier:pro"}' },
		]);
		const rows = [
			{ name: "signup", property: "", value: "blank", events: 1 },
			{ name: "signup", property: "plan", value: "tier:pro", events: 1 },
			{ name: "signup", property: "plan:tier", value: "pro", events: 1 },
		];
		// From the rollups, and from the events (a filter that keeps all of them).
		expect((await stats(token, site.tracking_id, "limit=10")).event_properties).toEqual(rows);
		expect((await stats(token, site.tracking_id, "country=Unknown")).event_properties).toEqual(rows);
		const visitors = async (property: string) => (await stats(token, site.tracking_id, `property=${encodeURIComponent(property)}`)).visitors;
		expect(await visitors(":blank")).toBe(1);
		expect(await visitors("plan:tier:pro")).toBe(2);
		expect(await visitors("coupon:null")).toBe(0);
		expect(await visitors("coupon:")).toBe(0);
	});

	it.for([
		["a misspelt filter", "contry=DE", /contry/],
		["an empty value", "page=", /page: must not be empty/],
		["a value of 2,001 characters", `page=/${"p".repeat(2_000)}`, /page: must be at most 2000 characters/],
		["an entry page of 2,001 characters", `entry_page=/${"p".repeat(2_000)}`, /entry_page: must be at most 2000 characters/],
		["a repeated filter", "country=DE&country=US", /country/],
		["compare=next", "compare=next", /compare: must be "previous"/],
		["a property without a colon", "property=plan", /property: must be a property name, a colon and its value, as plan:pro/],
		["an empty property", "property=", /property: must not be empty/],
		["a property of 2,001 characters", `property=plan:${"p".repeat(1_996)}`, /property: must be at most 2000 characters/],
	])("answers 400 to %s", async ([, query, message], { expect }) => {
		const { token, site } = await ownerWithSite();
		const { status, body } = await getJson(`/api/sites/${site.tracking_id}/stats?${query}`, token);
		expect(status).toBe(400);
		expect(body.error).toMatch(message);
	});

	it("takes a value of 2,000 characters", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		expect((await getJson(`/api/sites/${site.tracking_id}/stats?page=/${"p".repeat(1_999)}`, token)).status).toBe(200);
		expect((await getJson(`/api/sites/${site.tracking_id}/stats?exit_page=/${"p".repeat(1_999)}`, token)).status).toBe(200);
		expect((await getJson(`/api/sites/${site.tracking_id}/stats?property=plan:${"p".repeat(1_995)}`, token)).status).toBe(200);
	});
});

describe("comparison with the previous period (compare=previous)", () => {
	it("adds the same figures for the period of equal length just before", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await seedEvents(site.tracking_id, DAY);
		const { status, body } = await getJson(`/api/sites/${site.tracking_id}/stats?from=2025-03-02T00:00:00Z&to=2025-03-03T00:00:00Z&compare=previous`, token);
		expect(status).toBe(200);
		// 2025-03-02 holds D's one view; the day before it is the seeded day.
		expect(body).toMatchObject({ pageviews: 1, visitors: 1, sessions: 1 });
		const { series, ...previous } = body.previous;
		expect(previous).toEqual({
			from: "2025-03-01T00:00:00.000Z",
			to: "2025-03-02T00:00:00.000Z",
			pageviews: 5,
			visitors: 3,
			events: 3,
			identified_visitors: 1,
			sessions: 4,
			bounce_rate: 0.5,
			avg_duration: 56.3,
		});
		expect(series).toHaveLength(24);
		expect(series[10]).toEqual({ t: "2025-03-01T10:00:00.000Z", pageviews: 3, visitors: 2, sessions: 2, bounce_rate: 0.5, avg_duration: 90 });
	});

	it("applies the filters to both periods", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await seedEvents(site.tracking_id, DAY);
		const { body } = await getJson(`/api/sites/${site.tracking_id}/stats?from=2025-03-02T00:00:00Z&to=2025-03-03T00:00:00Z&compare=previous&country=DE`, token);
		expect(body).toMatchObject({ pageviews: 0, previous: { pageviews: 3, visitors: 1, sessions: 2 } });
	});
});
