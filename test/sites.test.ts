import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import linksTrackerScript from "../clients/tracker/dist/t-links.txt";
import trackerScript from "../clients/tracker/dist/t.txt";
import { collect, crawlIngest, createSite, getJson, ownerWithSite, pageview, storedEvents } from "./analytics-helpers";
import { call, setPlan, signUp, uniqueIp } from "./helpers";

const GPTBOT = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)";

describe("analytics sites (owner)", () => {
	it("creates a site: 201 with a random 128-bit tracking ID, active, Attack Mode off", async ({ expect }) => {
		const { token } = await signUp();
		const res = await call("/api/sites", { method: "POST", token, json: { domain: "example.com", name: "Blog" } });
		expect(res.status).toBe(201);
		const site = await res.json<any>();
		expect(Object.keys(site).sort()).toEqual(["active", "attack_mode", "created_at", "domain", "name", "refused_at", "refused_host", "stats_from", "tracking_id"]);
		expect(site).toMatchObject({ name: "Blog", domain: "example.com", active: true, attack_mode: false });
		expect(site.tracking_id).toMatch(/^s_[A-Za-z0-9_-]{22}$/);
		expect(Date.parse(site.created_at)).not.toBeNaN();
		const another = await createSite(token);
		expect(another.tracking_id).not.toBe(site.tracking_id);
	});

	it.for([
		["example.com", "example.com"],
		["https://www.Example.COM:8080/some/path?q=1", "example.com"],
		["WWW.shop.example.co.uk.", "shop.example.co.uk"],
		["blog.example.com", "blog.example.com"],
		["localhost", "localhost"],
		["127.0.0.1", "127.0.0.1"],
		["bücher.de", "xn--bcher-kva.de"],
		["www.example.com.au", "example.com.au"],
		["https://www.shop.example.co.jp/", "shop.example.co.jp"],
		["user.github.io", "user.github.io"],
		["www.user.github.io", "user.github.io"],
		["foo.blogspot.com", "foo.blogspot.com"],
		// www.co.uk is a name registered under co.uk: its www. is no alias of a suffix.
		["www.co.uk", "www.co.uk"],
		["myapp.test", "myapp.test"],
	])("normalizes the domain %j to %j", async ([domain, stored], { expect }) => {
		const { token } = await signUp();
		expect((await createSite(token, { domain })).domain).toBe(stored);
	});

	it.for([
		["com", "com"],
		["co.uk", "co.uk"],
		["www.co.uk", null],
		["http://COM.AU./", "com.au"],
		["github.io", "github.io"],
		["blogspot.com", "blogspot.com"],
		["s3.amazonaws.com", "s3.amazonaws.com"],
	] as const)("refuses the public suffix %j with 400 saying so", async ([domain, suffix], { expect }) => {
		const { token } = await signUp();
		const res = await call("/api/sites", { method: "POST", token, json: { domain } });
		if (suffix === null) {
			expect(res.status).toBe(201);
			return;
		}
		expect(res.status).toBe(400);
		expect((await res.json<any>()).error).toBe(
			`Invalid request: domain: ${suffix} is a public suffix, under which unrelated sites register their own names: use the site's own domain, such as example.${suffix}`,
		);
	});

	it("refuses a public suffix on update too", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		const res = await call(`/api/sites/${site.tracking_id}`, { method: "PATCH", token, json: { domain: "github.io" } });
		expect(res.status).toBe(400);
		expect((await res.json<any>()).error).toMatch(/github\.io is a public suffix/);
	});

	it.for([
		// [site domain, url_host, authorized]
		["example.com", "example.com", true],
		["example.com", "www.example.com", true],
		["example.com", "blog.example.com", true],
		["example.com", "a.b.example.com", true],
		["example.com", "EXAMPLE.com:8443", true],
		["example.com", "evil-example.com", false],
		["example.com", "example.com.evil.net", false],
		["example.co.uk", "shop.example.co.uk", true],
		["example.co.uk", "other.co.uk", false],
		["shop.example.co.uk", "www.shop.example.co.uk", true],
		["shop.example.co.uk", "example.co.uk", false],
		["user.github.io", "user.github.io", true],
		["user.github.io", "other.github.io", false],
		["foo.blogspot.com", "bar.blogspot.com", false],
	] as const)("site %s: url_host %s is authorized: %s", async ([domain, urlHost, authorized], { expect }) => {
		const { site } = await ownerWithSite({ domain });
		expect((await collect(pageview(site.tracking_id, { url_host: urlHost }))).status).toBe(authorized ? 204 : 403);
	});

	it("a site stored as a public suffix before they were refused authorizes no host", async ({ expect }) => {
		const { site } = await ownerWithSite();
		await env.DB.prepare("UPDATE sites SET domain = 'github.io' WHERE tracking_id = ?").bind(site.tracking_id).run();
		await env.SITE_COLLECTOR.get(env.SITE_COLLECTOR.idFromName(site.tracking_id)).siteChanged({ deleted: false });
		expect((await collect(pageview(site.tracking_id, { url_host: "anyone.github.io" }))).status).toBe(403);
	});

	it("allows no domain (null or empty) and names the site after the domain by default", async ({ expect }) => {
		const { token } = await signUp();
		expect(await createSite(token, { domain: null })).toMatchObject({ domain: null, name: "Untitled site" });
		expect((await createSite(token, { domain: "" })).domain).toBeNull();
		expect((await createSite(token, {})).domain).toBeNull();
		expect((await createSite(token, { domain: "example.org" })).name).toBe("example.org");
	});

	it.for([
		["a sentence", { domain: "not a domain" }],
		["a leading hyphen", { domain: "-bad.example.com" }],
		["an empty label", { domain: "a..b.com" }],
		["a numeric top-level label", { domain: "1.2.3" }],
		["a number", { domain: 42 }],
		["a 301-character domain", { domain: "a".repeat(301) }],
		["an empty name", { domain: "example.com", name: " " }],
		["a 101-character name", { domain: "example.com", name: "n".repeat(101) }],
	])("refuses %s with 400", async ([, body], { expect }) => {
		const { token } = await signUp();
		const res = await call("/api/sites", { method: "POST", token, json: body });
		expect(res.status).toBe(400);
		expect((await res.json<any>()).error).toMatch(/^Invalid request: /);
	});

	it("lists only the owner's own sites, newest first", async ({ expect }) => {
		const { token } = await signUp();
		const first = await createSite(token, { domain: "one.example" });
		const second = await createSite(token, { domain: "two.example" });
		await ownerWithSite({ domain: "stranger.example" });
		const { status, body } = await getJson("/api/sites", token);
		expect(status).toBe(200);
		expect(body.sites.map((s: { tracking_id: string }) => s.tracking_id)).toEqual([second.tracking_id, first.tracking_id]);
	});

	it("reads and updates name, domain, active and Attack Mode", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		expect((await getJson(`/api/sites/${site.tracking_id}`, token)).body).toEqual(site);
		const res = await call(`/api/sites/${site.tracking_id}`, {
			method: "PATCH",
			token,
			json: { name: "Shop", domain: "https://Shop.Example.org", active: false, attack_mode: true },
		});
		expect(res.status).toBe(200);
		expect(await res.json()).toEqual({ ...site, name: "Shop", domain: "shop.example.org", active: false, attack_mode: true });
		const cleared = await call(`/api/sites/${site.tracking_id}`, { method: "PATCH", token, json: { domain: null } });
		expect((await cleared.json<any>()).domain).toBeNull();
	});

	it("takes a domain change at once: events for the old domain become 403", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		expect((await collect(pageview(site.tracking_id))).status).toBe(204);
		await call(`/api/sites/${site.tracking_id}`, { method: "PATCH", token, json: { domain: "example.org" } });
		expect((await collect(pageview(site.tracking_id))).status).toBe(403);
		expect((await collect(pageview(site.tracking_id, { url_host: "www.example.org" }))).status).toBe(204);
	});

	it.for([
		["an empty patch", {}],
		["a string for active", { active: "yes" }],
		["a bad domain", { domain: "exa mple.com" }],
	])("refuses %s with 400", async ([, patch], { expect }) => {
		const { token, site } = await ownerWithSite();
		const res = await call(`/api/sites/${site.tracking_id}`, { method: "PATCH", token, json: patch });
		expect(res.status).toBe(400);
	});

	it("names a member it does not know on create and on update, and changes nothing", async ({ expect }) => {
		const { token } = await signUp();
		const created = await call("/api/sites", { method: "POST", token, json: { domain: "example.com", title: "Blog" } });
		expect(created.status).toBe(400);
		expect((await created.json<any>()).error).toBe("Invalid request: unknown member title");
		expect((await getJson("/api/sites", token)).body.sites).toEqual([]);
		const site = await createSite(token);
		// Misspelt: taken without it, Attack Mode would stay off while the owner thinks it on.
		const patched = async (patch: Record<string, unknown>) => {
			const res = await call(`/api/sites/${site.tracking_id}`, { method: "PATCH", token, json: patch });
			expect(res.status).toBe(400);
			return (await res.json<any>()).error;
		};
		expect(await patched({ name: "Shop", attackMode: true })).toBe("Invalid request: unknown member attackMode");
		// Alone, it is no change either: the answer names the members there are.
		expect(await patched({ attackMode: true })).toBe("Invalid request: unknown member attackMode; name, domain, active or attack_mode is required");
		expect((await getJson(`/api/sites/${site.tracking_id}`, token)).body).toEqual(site);
	});

	it("deletes a site with its events, crawler visits and their rollups; collection then answers 404", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await collect(pageview(site.tracking_id));
		await crawlIngest({ tracking_id: site.tracking_id, ua: GPTBOT });
		expect(await storedEvents(site.tracking_id)).toHaveLength(1);
		expect(await env.DB.prepare("SELECT count(*) AS n FROM analytics_rollups WHERE tracking_id = ?").bind(site.tracking_id).first("n")).toBeGreaterThan(0);
		expect(await env.DB.prepare("SELECT count(*) AS n FROM crawler_rollups WHERE tracking_id = ?").bind(site.tracking_id).first("n")).toBeGreaterThan(0);
		// One more accepted but not yet flushed: the delete must not leave it behind.
		await collect(pageview(site.tracking_id));

		const res = await call(`/api/sites/${site.tracking_id}`, { method: "DELETE", token });
		expect(res.status).toBe(204);
		expect((await getJson(`/api/sites/${site.tracking_id}`, token)).status).toBe(404);
		expect((await collect(pageview(site.tracking_id))).status).toBe(404);
		expect((await crawlIngest({ tracking_id: site.tracking_id, ua: GPTBOT })).status).toBe(404);
		const counts = await env.DB.prepare(
			`SELECT (SELECT count(*) FROM analytics_events WHERE tracking_id = ?1) AS events,
				(SELECT count(*) FROM analytics_rollups WHERE tracking_id = ?1) AS rollups,
				(SELECT count(*) FROM crawler_visits WHERE tracking_id = ?1) AS visits,
				(SELECT count(*) FROM crawler_rollups WHERE tracking_id = ?1) AS crawler_rollups`,
		)
			.bind(site.tracking_id)
			.first();
		expect(counts).toEqual({ events: 0, rollups: 0, visits: 0, crawler_rollups: 0 });
		expect(await storedEvents(site.tracking_id)).toHaveLength(0);
	});

	it("keeps other owners out: read, update and delete of their site are 404", async ({ expect }) => {
		const { site } = await ownerWithSite();
		const { token } = await signUp();
		expect((await call(`/api/sites/${site.tracking_id}`, { token })).status).toBe(404);
		expect((await call(`/api/sites/${site.tracking_id}`, { method: "PATCH", token, json: { name: "mine" } })).status).toBe(404);
		expect((await call(`/api/sites/${site.tracking_id}`, { method: "DELETE", token })).status).toBe(404);
		expect((await collect(pageview(site.tracking_id))).status).toBe(204);
	});

	it("needs a session (401) with Pro or a running trial (402)", async ({ expect }) => {
		expect((await call("/api/sites")).status).toBe(401);
		const { token, email } = await signUp();
		await setPlan(email, "free", new Date(Date.now() - 1000).toISOString());
		expect((await call("/api/sites", { token })).status).toBe(402);
		expect((await call("/api/sites", { method: "POST", token, json: { domain: "example.com" } })).status).toBe(402);
	});

	it("refuses invalid JSON with 400", async ({ expect }) => {
		const { token } = await signUp();
		const res = await call("/api/sites", { method: "POST", token, body: "{", headers: { "content-type": "application/json" } });
		expect(res.status).toBe(400);
	});
});

describe("GET /t.js", () => {
	it("serves the built tracker as JavaScript, cacheable, with an ETag", async ({ expect }) => {
		const res = await call("/t.js");
		expect(res.status).toBe(200);
		expect(res.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
		expect(res.headers.get("cache-control")).toBe("public, max-age=3600, stale-while-revalidate=86400");
		expect(res.headers.get("x-content-type-options")).toBe("nosniff");
		expect(res.headers.get("etag")).toMatch(/^"[0-9a-f]{32}"$/);
		const body = await res.text();
		expect(body).toBe(trackerScript);
		expect(body).toContain('v:"2"');
		expect(body).toContain("api/collect");
	});

	it("answers 304 to a matching If-None-Match, and HEAD without a body", async ({ expect }) => {
		const etag = (await call("/t.js")).headers.get("etag")!;
		const revalidated = await call("/t.js", { headers: { "if-none-match": etag } });
		expect(revalidated.status).toBe(304);
		expect(await revalidated.text()).toBe("");
		const head = await call("/t.js", { method: "HEAD" });
		expect(head.status).toBe(200);
		expect(await head.text()).toBe("");
	});
});

describe("GET /t.links.js", () => {
	it("serves the tracker that counts link clicks, with its own ETag; t.js carries none of that code", async ({ expect }) => {
		const [links, plain] = [await call("/t.links.js"), await call("/t.js")];
		expect(links.status).toBe(200);
		expect(links.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
		expect(links.headers.get("cache-control")).toBe("public, max-age=3600, stale-while-revalidate=86400");
		const body = await links.text();
		expect(body).toBe(linksTrackerScript);
		expect(body).toContain("Outbound Link: Click");
		expect(body).toContain("File Download");
		expect(await plain.text()).not.toContain("Outbound Link");
		const etag = links.headers.get("etag")!;
		expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
		expect(etag).not.toBe(plain.headers.get("etag"));
		expect((await call("/t.links.js", { headers: { "if-none-match": etag } })).status).toBe(304);
		// The other script's tag is not this one's.
		expect((await call("/t.links.js", { headers: { "if-none-match": plain.headers.get("etag")! } })).status).toBe(200);
		const head = await call("/t.links.js", { method: "HEAD" });
		expect([head.status, await head.text()]).toEqual([200, ""]);
	});
});

describe("GET /api/sites/:tracking_id/identities: the users a site identified", () => {
	it("lists each distinct_id once, with how many visitor ids it was seen under, most recent first", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		const t = site.tracking_id;
		// One user on two devices, another on one; the page view without _identify names nobody.
		await collect({ ...pageview(t), visitor_id: "v1" }, { ip: uniqueIp() });
		await collect({ ...pageview(t), event_name: "_identify", visitor_id: "v1", distinct_id: "alice" }, { ip: uniqueIp() });
		await collect({ ...pageview(t), event_name: "_identify", visitor_id: "v2", distinct_id: "alice" }, { ip: uniqueIp() });
		// Events are timed when the Worker accepts them, often several in one millisecond: bob's comes in a later one.
		await new Promise((resolve) => setTimeout(resolve, 5));
		await collect({ ...pageview(t), event_name: "_identify", visitor_id: "v3", distinct_id: "bob" }, { ip: uniqueIp() });

		const { status, body } = await getJson<{ identities: Array<{ distinct_id: string; visitors: number; first_seen: string; last_seen: string }> }>(
			`/api/sites/${t}/identities`,
			token,
		);
		expect(status).toBe(200);
		expect(body.identities.map((i) => [i.distinct_id, i.visitors])).toEqual([
			["bob", 1],
			["alice", 2],
		]);
		expect(Date.parse(body.identities[0].last_seen)).toBeGreaterThanOrEqual(Date.parse(body.identities[1].last_seen));
	});

	it("is the owner's only: another owner gets 404; limit is checked", async ({ expect }) => {
		const { site } = await ownerWithSite();
		const stranger = await signUp();
		expect((await getJson(`/api/sites/${site.tracking_id}/identities`, stranger.token)).status).toBe(404);
		const { token, site: own } = await ownerWithSite();
		expect((await getJson(`/api/sites/${own.tracking_id}/identities?limit=1001`, token)).status).toBe(400);
		expect((await getJson(`/api/sites/${own.tracking_id}/identities?limit=1000`, token)).status).toBe(200);
	});
});

describe("an account holds at most 50 sites", () => {
	it("the 50th is created, the 51st is 403 with a clear message; deleting one makes room", async ({ expect }) => {
		const { token } = await signUp();
		for (let i = 0; i < 48; i++) expect((await call("/api/sites", { method: "POST", token, json: { domain: `s${i}.example.com` } })).status).toBe(201);
		// Three at once for the last two places: never more than 50.
		const raced = await Promise.all([0, 1, 2].map((i) => call("/api/sites", { method: "POST", token, json: { domain: `r${i}.example.com` } }).then((r) => r.status)));
		expect(raced.filter((s) => s === 201).length).toBeLessThanOrEqual(2);
		const { sites } = await call("/api/sites", { token }).then((r) => r.json<any>());
		expect(sites.length).toBeLessThanOrEqual(50);
		while ((await call("/api/sites", { token }).then((r) => r.json<any>())).sites.length < 50) {
			await call("/api/sites", { method: "POST", token, json: { domain: "fill.example.com" } });
		}
		const refused = await call("/api/sites", { method: "POST", token, json: { domain: "one-more.example.com" } });
		expect(refused.status).toBe(403);
		expect(await refused.json()).toEqual({ error: expect.stringContaining("at most 50 sites") });
		expect((await call(`/api/sites/${sites[0].tracking_id}`, { method: "DELETE", token })).status).toBe(204);
		expect((await call("/api/sites", { method: "POST", token, json: { domain: "one-more.example.com" } })).status).toBe(201);
	}, 120_000);
});
