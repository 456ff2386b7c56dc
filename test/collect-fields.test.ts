import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { collect, GOOGLEBOT, HEADLESS, ownerWithSite, pageview, storedEvents, storedWith } from "./analytics-helpers";
import { uniqueIp } from "./helpers";

const x = (n: number) => "x".repeat(n);
const hex = (n: number) => "a".repeat(n);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("browser event field rules, each at its boundary and one past it", () => {
	it.for([
		["8 hex characters", hex(8), hex(8)],
		["64 hex characters", hex(64), hex(64)],
		["hex with hyphens", "0123abcd-ef01-4567-89ab-cdef01234567", "0123abcd-ef01-4567-89ab-cdef01234567"],
		["upper-case hex (stored lower-case)", "ABCDEF12", "abcdef12"],
	])("event_id: keeps %s", async ([, sent, stored], { expect }) => {
		expect((await storedWith({ event_id: sent })).event_id).toBe(stored);
	});

	it.for([
		["7 characters", hex(7)],
		["65 characters", hex(65)],
		["non-hex characters", "zzzzzzzz"],
		["a number", 12345678],
		["an empty string", ""],
	])("event_id: replaces %s with a new UUID", async ([, sent], { expect }) => {
		expect((await storedWith({ event_id: sent })).event_id).toMatch(UUID);
	});

	it("event_id: absent → a new UUID", async ({ expect }) => {
		expect((await storedWith({})).event_id).toMatch(UUID);
	});

	it.for([
		[0, 0],
		[-1, 0],
		[7, 7],
		[3.9, 3],
		[4_294_967_295, 4_294_967_295],
		[4_294_967_296, 4_294_967_295],
		["12", 12],
		["abc", 0],
		[null, 0],
	] as const)("seq: %s is stored as %i", async ([sent, stored], { expect }) => {
		expect((await storedWith({ seq: sent })).seq).toBe(stored);
	});

	it("seq: 1e999 (Infinity once parsed) is clamped to 4294967295", async ({ expect }) => {
		const { site } = await ownerWithSite();
		const raw = JSON.stringify(pageview(site.tracking_id)).replace(/}$/, ',"seq":1e999}');
		expect((await collect(null, { raw })).status).toBe(204);
		expect((await storedEvents(site.tracking_id))[0].seq).toBe(4_294_967_295);
	});

	it.for([
		[0, 0],
		[-5, 0],
		[42, 42],
		[3_600, 3_600],
		[3_601, 3_600],
		[86_400, 3_600],
		["oops", null],
	] as const)("duration: %s is stored as %s", async ([sent, stored], { expect }) => {
		expect((await storedWith({ event_name: "_leave", duration: sent })).duration).toBe(stored);
	});

	it.for([
		[0, 0],
		[-1, 0],
		[1_234.9, 1_234],
		[3_600_000, 3_600_000],
		[3_600_001, 3_600_000],
		["oops", null],
	] as const)("engaged_ms: %s is stored as %s", async ([sent, stored], { expect }) => {
		expect((await storedWith({ event_name: "_leave", engaged_ms: sent })).engaged_ms).toBe(stored);
	});

	it.for([
		[0, 0],
		[-1, 0],
		[100, 100],
		[101, 100],
		["oops", null],
	] as const)("scroll_depth: %s is stored as %s", async ([sent, stored], { expect }) => {
		expect((await storedWith({ event_name: "_leave", scroll_depth: sent })).scroll_depth).toBe(stored);
	});

	it("campaign values: 200 characters are kept, one more is cut to 200", async ({ expect }) => {
		const query = `?utm_source=${x(200)}&utm_medium=${x(201)}&utm_campaign=%20spring%20&utm_content=${x(200)}&utm_term=${x(201)}`;
		expect(await storedWith({ url_query: query })).toMatchObject({
			utm_source: x(200),
			utm_medium: x(200),
			utm_campaign: "spring",
			utm_content: x(200),
			utm_term: x(200),
			source: x(200),
		});
		// ref likewise: at its limit, and one past it.
		expect(await storedWith({ url_query: `?ref=${x(200)}` })).toMatchObject({ ref: x(200), source: x(200) });
		expect(await storedWith({ url_query: `?ref=${x(201)}` })).toMatchObject({ ref: x(200), source: x(200) });
	});

	it.for([
		["event_name", 200, "name"],
		["url_path", 2_000, "url_path"],
		["url_query", 2_000, "url_query"],
		["title", 500, "title"],
		["language", 20, "language"],
		["screen", 20, "screen"],
		["distinct_id", 200, "distinct_id"],
		["session_id", 200, "session_id"],
	] as const)("%s: %i characters are kept, one more is cut to %i", async ([field, limit, column], { expect }) => {
		expect((await storedWith({ [field]: x(limit) }))[column]).toBe(x(limit));
		expect((await storedWith({ [field]: x(limit + 1) }))[column]).toBe(x(limit));
	});

	it("visitor_id: 200 characters are kept, one more is cut to 200, before it is hashed", async ({ expect }) => {
		const { site } = await ownerWithSite();
		for (const length of [199, 200, 201]) {
			expect((await collect({ ...pageview(site.tracking_id), url_path: `/${length}`, visitor_id: x(length) }, { ip: uniqueIp() })).status).toBe(204);
		}
		const idOf = new Map((await storedEvents(site.tracking_id)).map((e) => [e.url_path, e.visitor_id]));
		expect(idOf.get("/201")).toBe(idOf.get("/200"));
		expect(idOf.get("/199")).not.toBe(idOf.get("/200"));
	});

	it("url_host: 500 characters are kept, one more is cut to 500 (after host authorization on the whole)", async ({ expect }) => {
		const host = (length: number) => `${x(length - ".example.com".length)}.example.com`;
		expect((await storedWith({ url_host: host(500) })).url_host).toBe(host(500));
		expect((await storedWith({ url_host: host(501) })).url_host).toBe(host(501).slice(0, 500));
		// A fully qualified name's trailing dot is no part of the host.
		expect((await storedWith({ url_host: "WWW.Example.com." })).url_host).toBe("www.example.com");
		// Stored as the host check read it: no spaces, port, or trailing dot before the port.
		expect((await storedWith({ url_host: "  WWW.Example.com.:8443 " })).url_host).toBe("www.example.com");
		expect((await storedWith({ url_host: "example.com:" })).url_host).toBe("example.com");
	});

	it("event_data: 8,000 characters are kept, 8,001 become {}", async ({ expect }) => {
		const data = (length: number) => JSON.stringify({ k: x(length - 8) });
		expect(data(8_000)).toHaveLength(8_000);
		expect((await storedWith({ event_name: "e", event_data: data(8_000) })).data).toBe(data(8_000));
		expect((await storedWith({ event_name: "e", event_data: data(8_001) })).data).toBe("{}");
	});

	it("event_data: an object is stored serialized; absent is null", async ({ expect }) => {
		expect((await storedWith({ event_name: "e", event_data: { plan: "pro", n: 2 } })).data).toBe('{"plan":"pro","n":2}');
		expect((await storedWith({ event_name: "e" })).data).toBeNull();
	});

	it("v: stored as sent; the current tracker sends 2", async ({ expect }) => {
		expect((await storedWith({ v: "2" })).v).toBe("2");
		expect((await storedWith({ v: 2 })).v).toBe("2");
	});

	it("url_path: absent or empty is /", async ({ expect }) => {
		expect((await storedWith({ url_path: undefined })).url_path).toBe("/");
		expect((await storedWith({ url_path: "" })).url_path).toBe("/");
	});

	it("referrer: stored; an external one is grouped by host, internal navigation is not a referrer", async ({ expect }) => {
		const external = await storedWith({ referrer: "https://News.ycombinator.com/item?id=1" });
		expect(external).toMatchObject({ referrer: "https://News.ycombinator.com/item?id=1", referrer_host: "news.ycombinator.com" });
		expect((await storedWith({ referrer: "https://example.com/pricing" })).referrer_host).toBe("");
		expect((await storedWith({ referrer: "not a url" })).referrer_host).toBe("");
	});

	it("url_query and referrer: secrets are filtered before they are stored; campaigns and the referrer's host are kept", async ({ expect }) => {
		const stored = await storedWith({
			url_query: "?utm_source=newsletter&reset_token=abc123&card=4111%201111%201111%201111&q=shoes",
			// A single-page app's previous page, the tracker's referrer for the next view: an OAuth callback's.
			referrer: "https://example.com/callback?code=1&state=2&password=hunter2#access_token=XYZ&token_type=bearer",
		});
		expect(stored).toMatchObject({
			url_query: "?utm_source=newsletter&reset_token=[Filtered]&card=[Filtered]&q=shoes",
			utm_source: "newsletter",
			referrer: "https://example.com/callback?code=1&state=2&password=[Filtered]#access_token=[Filtered]&token_type=[Filtered]",
		});
		expect(await storedWith({ url_query: "sid=1&a=2", referrer: "https://mail.example.org/inbox?session=s3cr3t" })).toMatchObject({
			url_query: "sid=[Filtered]&a=2",
			referrer: "https://mail.example.org/inbox?session=[Filtered]",
			referrer_host: "mail.example.org",
		});
	});

	it.for([
		["www to the apex", "example.com", "https://www.example.com/a"],
		["the apex to www", "www.example.com", "https://example.com/a"],
		["a port on url_host", "example.com:8443", "https://example.com:8443/a"],
		["no url_host: the site's domain", undefined, "https://example.com/a"],
		["no url_host: www of the site's domain", undefined, "https://WWW.example.com/a"],
	] as const)("referrer: the site's own pages are no referrer (%s)", async ([, urlHost, referrer], { expect }) => {
		expect((await storedWith({ url_host: urlHost, referrer })).referrer_host).toBe("");
	});

	it("referrer: another subdomain of the site is still a referrer, as another host is", async ({ expect }) => {
		expect((await storedWith({ url_host: "example.com", referrer: "https://blog.example.com/" })).referrer_host).toBe("blog.example.com");
		expect((await storedWith({ url_host: undefined, referrer: "https://duck.com/" })).referrer_host).toBe("duck.com");
	});

	it("identity values of the wrong type are absent, not an error", async ({ expect }) => {
		const event = await storedWith({ distinct_id: { id: 1 }, session_id: ["a"], title: { t: 1 }, language: true });
		expect(event).toMatchObject({ distinct_id: null, session_id: null, title: "", language: "true" });
	});
});


describe("what is stored and what is only answered", () => {
	it.for([
		["Googlebot", GOOGLEBOT],
		["GPTBot", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)"],
		["a headless browser", HEADLESS],
		["curl", "curl/8.5.0"],
		["an uptime monitor", "Mozilla/5.0 (compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)"],
		["an empty user agent", ""],
	])("answers %s with 204 and does not count it", async ([, ua], { expect }) => {
		const { site } = await ownerWithSite();
		const res = await collect(pageview(site.tracking_id), { ua });
		expect(res.status).toBe(204);
		expect(await storedEvents(site.tracking_id)).toHaveLength(0);
	});

	it("answers a request without any user agent with 204 and does not count it", async ({ expect }) => {
		const { site } = await ownerWithSite();
		expect((await collect(pageview(site.tracking_id), { ua: null })).status).toBe(204);
		expect(await storedEvents(site.tracking_id)).toHaveLength(0);
	});

	it.for([["sec-purpose", "prefetch"], ["sec-purpose", "prefetch;prerender"], ["purpose", "prefetch"]])(
		"answers excluded traffic (%s: %s) with 204 and does not count it",
		async ([header, value], { expect }) => {
			const { site } = await ownerWithSite();
			const res = await collect(pageview(site.tracking_id), { headers: { [header]: value } });
			expect(res.status).toBe(204);
			expect(await storedEvents(site.tracking_id)).toHaveLength(0);
		},
	);

	it("stores a repeated event_id once, before and after the outbox reached D1", async ({ expect }) => {
		const { site } = await ownerWithSite();
		const event = pageview(site.tracking_id, { event_id: "0123456789abcdef" });
		expect((await collect(event)).status).toBe(204);
		expect((await collect(event)).status).toBe(204);
		expect(await storedEvents(site.tracking_id)).toHaveLength(1);
		expect((await collect(event)).status).toBe(204);
		expect(await storedEvents(site.tracking_id)).toHaveLength(1);
	});

	it("page view, custom event, _leave with duration, _identify linking distinct_id to the visitor", async ({ expect }) => {
		const { site } = await ownerWithSite();
		const ip = uniqueIp();
		const base = pageview(site.tracking_id, { url_path: "/pricing" });
		await collect({ ...base, seq: 0 }, { ip });
		await collect({ ...base, seq: 1, event_name: "signup", event_data: '{"plan":"pro"}' }, { ip });
		await collect({ ...base, seq: 2, event_name: "_identify", distinct_id: "user-42" }, { ip });
		await collect({ ...base, seq: 3, event_name: "_leave", duration: 95, distinct_id: "user-42" }, { ip });
		const events = await storedEvents(site.tracking_id);
		expect(events.map((e) => [e.seq, e.name, e.data, e.duration, e.distinct_id])).toEqual([
			[0, "", null, null, null],
			[1, "signup", '{"plan":"pro"}', null, null],
			[2, "_identify", null, null, "user-42"],
			[3, "_leave", null, 95, "user-42"],
		]);
		expect(new Set(events.map((e) => e.visitor_id)).size).toBe(1);
		const { results: links } = await env.DB.prepare("SELECT visitor_id, distinct_id FROM analytics_identities WHERE tracking_id = ?")
			.bind(site.tracking_id)
			.all();
		expect(links).toEqual([{ visitor_id: events[0].visitor_id, distinct_id: "user-42" }]);
	});

	it("flushes the outbox to D1 by itself within seconds, without an owner read", async ({ expect }) => {
		const { site } = await ownerWithSite();
		await collect(pageview(site.tracking_id));
		const count = () =>
			env.DB.prepare("SELECT count(*) AS n FROM analytics_events WHERE tracking_id = ?").bind(site.tracking_id).first<number>("n");
		await expect.poll(count, { timeout: 10_000, interval: 100 }).toBe(1);
	});
});

describe("bad input of any shape: a 4xx or 204, never a 500", () => {
	const shapes: unknown[] = [null, true, 0, -1, 1e308, "", "x", [], [1], {}, { a: { b: { c: [] } } }, "\ud800", "\u0000"];
	const fields = [
		"event_id",
		"seq",
		"v",
		"event_name",
		"event_data",
		"url_path",
		"url_query",
		"url_host",
		"referrer",
		"title",
		"language",
		"screen",
		"distinct_id",
		"visitor_id",
		"session_id",
		"duration",
		"engaged_ms",
		"scroll_depth",
	];

	it("survives every field given every shape", async ({ expect }) => {
		const { site } = await ownerWithSite();
		const statuses = new Set<number>();
		for (const field of fields) {
			const responses = await Promise.all(
				shapes.map((value) => collect({ ...pageview(site.tracking_id), event_name: "fuzz", [field]: value }, { ip: uniqueIp() })),
			);
			for (const res of responses) {
				statuses.add(res.status);
				expect(res.status, `${field}: ${res.status}`).toBeLessThan(500);
			}
		}
		expect([...statuses].sort()).toEqual([204, 403]);
	});

	it.for([
		["a deeply nested body", `{"tracking_id":"s_AAAAAAAAAAAAAAAAAAAAAA","x":${"[".repeat(3000)}${"]".repeat(3000)}}`],
		["binary garbage", "\u0000\u0001\u0002\uffff"],
		["a huge number", '{"tracking_id": 1e999}'],
		["a duplicate key", '{"tracking_id":"a","tracking_id":"s_AAAAAAAAAAAAAAAAAAAAAA"}'],
	])("answers %s with a 4xx and a message", async ([, raw], { expect }) => {
		const res = await collect(null, { raw });
		expect(res.status).toBeGreaterThanOrEqual(400);
		expect(res.status).toBeLessThan(500);
		expect(typeof (await res.json<{ error: string }>()).error).toBe("string");
	});
});
