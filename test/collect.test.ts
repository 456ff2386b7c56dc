import { describe, it } from "vitest";
import { CHROME, collect, GOOGLEBOT, HEADLESS, IPHONE, ownerWithSite, pageview, patchSite, storedEvents } from "./analytics-helpers";
import { call, setPlan, uniqueIp } from "./helpers";

/** A JSON body of exactly `length` characters: a page view padded with an ignored field. */
function bodyOfLength(trackingId: string, length: number): string {
	const base = JSON.stringify({ ...pageview(trackingId), pad: "" });
	return JSON.stringify({ ...pageview(trackingId), pad: "x".repeat(length - base.length) });
}

describe("POST /api/collect: every documented status", () => {
	it("answers 204 with no body and CORS, and stores the page view", async ({ expect }) => {
		const { site } = await ownerWithSite();
		const res = await collect(pageview(site.tracking_id, { url_path: "/hello" }));
		expect(res.status).toBe(204);
		expect(await res.text()).toBe("");
		expect(res.headers.get("access-control-allow-origin")).toBe("*");
		const [event] = await storedEvents(site.tracking_id);
		expect(event).toMatchObject({ name: "", url_path: "/hello", url_host: "example.com", v: "2" });
	});

	it("answers OPTIONS with 204 and CORS headers", async ({ expect }) => {
		const res = await call("/api/collect", { method: "OPTIONS" });
		expect(res.status).toBe(204);
		expect(res.headers.get("access-control-allow-origin")).toBe("*");
		expect(res.headers.get("access-control-allow-methods")).toContain("POST");
	});

	it.for(["GET", "PUT", "PATCH", "DELETE"])("answers %s with 405", async (method, { expect }) => {
		const res = await call("/api/collect", { method });
		expect(res.status).toBe(405);
		expect(res.headers.get("allow")).toBe("POST, OPTIONS");
		expect(res.headers.get("access-control-allow-origin")).toBe("*");
		expect(Object.keys(await res.json<object>())).toEqual(["error"]);
	});

	it("accepts exactly 10,000 characters and answers 413 to 10,001", async ({ expect }) => {
		const { site } = await ownerWithSite();
		const atLimit = await collect(null, { raw: bodyOfLength(site.tracking_id, 10_000) });
		expect(atLimit.status).toBe(204);
		const over = await collect(null, { raw: bodyOfLength(site.tracking_id, 10_001) });
		expect(over.status).toBe(413);
		expect(await over.json()).toEqual({ error: "Request body exceeds 10000 characters" });
	});

	it.for([
		["invalid JSON", "{nope"],
		["an empty body", ""],
		["a JSON array", "[1,2]"],
		["a JSON string", '"s_x"'],
		["null", "null"],
		["no tracking_id", JSON.stringify({ event_name: "" })],
		["an empty tracking_id", JSON.stringify({ tracking_id: "  " })],
		["a numeric tracking_id", JSON.stringify({ tracking_id: 12345 })],
		["an object tracking_id", JSON.stringify({ tracking_id: { id: "x" } })],
	])("answers 400 to %s", async ([, raw], { expect }) => {
		const res = await collect(null, { raw });
		expect(res.status).toBe(400);
		const body = await res.json<{ error: string }>();
		expect(Object.keys(body)).toEqual(["error"]);
		expect(body.error.length).toBeGreaterThan(5);
	});

	it.for([
		["an unknown tracking ID", "s_AAAAAAAAAAAAAAAAAAAAAA"],
		["a malformed tracking ID", "not-a-tracking-id"],
	])("answers 404 to %s", async ([, trackingId], { expect }) => {
		const res = await collect(pageview(trackingId));
		expect(res.status).toBe(404);
		expect(await res.json()).toEqual({ error: "Unknown tracking ID or inactive site" });
	});

	it("answers 404 while the site is inactive, and 204 again once it is active", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await patchSite(token, site.tracking_id, { active: false });
		expect((await collect(pageview(site.tracking_id))).status).toBe(404);
		await patchSite(token, site.tracking_id, { active: true });
		expect((await collect(pageview(site.tracking_id))).status).toBe(204);
	});

	it("answers 402 when the owner has neither Pro nor a running trial", async ({ expect }) => {
		const { email, site } = await ownerWithSite();
		await setPlan(email, "free", new Date(Date.now() - 1000).toISOString());
		const res = await collect(pageview(site.tracking_id));
		expect(res.status).toBe(402);
		expect(await storedEvents(site.tracking_id)).toHaveLength(0);
	});

	it("answers 403 when the site has no configured domain", async ({ expect }) => {
		const { site } = await ownerWithSite({ domain: null });
		const res = await collect(pageview(site.tracking_id));
		expect(res.status).toBe(403);
		expect(await res.json()).toEqual({ error: "The site has no configured domain" });
		// Without url_host too: a site without a domain collects nothing.
		expect((await collect({ tracking_id: site.tracking_id })).status).toBe(403);
	});

	it.for([
		["another domain", "evil.com", 403],
		["a look-alike suffix", "notexample.com", 403],
		["the domain as a prefix", "example.com.evil.com", 403],
		["an empty host", "", 403],
		["a number", 42, 403],
		["an object", { host: "example.com" }, 403],
		["the domain", "example.com", 204],
		["www", "www.example.com", 204],
		["a deep subdomain", "a.b.example.com", 204],
		["upper case", "Shop.EXAMPLE.com", 204],
		["a port", "example.com:8443", 204],
	] as const)("authorizes url_host against the domain: %s → %i", async ([, host, status], { expect }) => {
		const { site } = await ownerWithSite();
		const res = await collect(pageview(site.tracking_id, { url_host: host }));
		expect(res.status).toBe(status);
		if (status === 403) expect(await res.json()).toEqual({ error: "url_host is not the site's domain or a subdomain of it" });
	});

	it("lets an event without url_host through host authorization and stores no host", async ({ expect }) => {
		const { site } = await ownerWithSite();
		const { url_host, ...withoutHost } = pageview(site.tracking_id);
		expect((await collect(withoutHost)).status).toBe(204);
		expect((await collect({ ...withoutHost, url_host: null })).status).toBe(204);
		const events = await storedEvents(site.tracking_id);
		expect(events.map((e) => e.url_host)).toEqual([null, null]);
	});
});

describe("Attack Mode", () => {
	it.for([
		["a short user agent", "Mozilla/5.0 (X11)", "short"],
		["curl", "curl/8.5.0", "short"],
		["a tool with a long user agent", "python-requests/2.31.0 (long enough to pass the length check)", "tool"],
		["curl with a long user agent", "curl/8.5.0 (x86_64-pc-linux-gnu) libcurl/8.5.0 OpenSSL/3.0.13", "tool"],
		["Apache HttpClient", "Apache-HttpClient/4.5.14 (Java/17.0.2) with some padding here", "tool"],
		["a headless browser", HEADLESS, "headless"],
	])("refuses %s with 403", async ([, ua, reason], { expect }) => {
		const { token, site } = await ownerWithSite();
		await patchSite(token, site.tracking_id, { attack_mode: true });
		const res = await collect(pageview(site.tracking_id), { ua });
		expect(res.status).toBe(403);
		expect(await res.json()).toEqual({ error: `Attack Mode is on: ${reason} user agents are refused` });
	});

	it("draws the short line at 40 characters: 39 are refused, 40 are taken", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await patchSite(token, site.tracking_id, { attack_mode: true });
		const ua = "Mozilla/5.0 (X11; Linux x86_64) Firefox/1.0";
		expect((await collect(pageview(site.tracking_id), { ua: ua.slice(0, 39) })).status).toBe(403);
		expect((await collect(pageview(site.tracking_id), { ua: ua.slice(0, 40) })).status).toBe(204);
	});

	it("refuses a request without a client IP with 403, and takes it once Attack Mode is off", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await patchSite(token, site.tracking_id, { attack_mode: true });
		const res = await collect(pageview(site.tracking_id), { ip: null });
		expect(res.status).toBe(403);
		expect(await res.json()).toEqual({ error: "Attack Mode is on: requests without a client IP are refused" });
		await patchSite(token, site.tracking_id, { attack_mode: false });
		expect((await collect(pageview(site.tracking_id), { ip: null })).status).toBe(204);
	});

	it("takes a real browser with a client IP", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await patchSite(token, site.tracking_id, { attack_mode: true });
		expect((await collect(pageview(site.tracking_id), { ua: IPHONE })).status).toBe(204);
		expect(await storedEvents(site.tracking_id)).toHaveLength(1);
	});

	it("takes a crawler that presents itself as a browser: no tool (answered, not counted)", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await patchSite(token, site.tracking_id, { attack_mode: true });
		expect((await collect(pageview(site.tracking_id), { ua: GOOGLEBOT })).status).toBe(204);
		expect(await storedEvents(site.tracking_id)).toHaveLength(0);
	});

	it("lets headless and tool user agents through (as ignored bots) when it is off", async ({ expect }) => {
		const { site } = await ownerWithSite();
		expect((await collect(pageview(site.tracking_id), { ua: HEADLESS })).status).toBe(204);
		expect((await collect(pageview(site.tracking_id), { ua: "curl/8.5.0" })).status).toBe(204);
		expect(await storedEvents(site.tracking_id)).toHaveLength(0);
	});
});

describe("rate limits, exact under concurrency", () => {
	async function burst(trackingId: string, count: number, ip: () => string | undefined, ua = CHROME) {
		const responses = await Promise.all(
			Array.from({ length: count }, (_, i) => collect(pageview(trackingId, { url_path: `/${i}` }), { ip: ip(), ua })),
		);
		const statuses = responses.map((r) => r.status);
		return {
			accepted: statuses.filter((s) => s === 204).length,
			limited: responses.filter((r) => r.status === 429),
			statuses,
		};
	}

	it("normal mode: 40 parallel events from one IP → exactly 30 accepted, 10 answered 429 with Retry-After", async ({ expect }) => {
		const { site } = await ownerWithSite();
		const ip = uniqueIp();
		const { accepted, limited } = await burst(site.tracking_id, 40, () => ip);
		expect(accepted).toBe(30);
		expect(limited).toHaveLength(10);
		for (const res of limited) {
			const retryAfter = Number(res.headers.get("retry-after"));
			expect(retryAfter).toBeGreaterThanOrEqual(1);
			expect(retryAfter).toBeLessThanOrEqual(60);
			expect((await res.json<{ error: string }>()).error).toMatch(/^Too many analytics events; retry in \d+ s$/);
			expect(res.headers.get("access-control-allow-origin")).toBe("*");
		}
		expect(await storedEvents(site.tracking_id)).toHaveLength(30);
		// Another IP is not affected.
		expect((await collect(pageview(site.tracking_id))).status).toBe(204);
	});

	it("normal mode: 6,000 events per minute per site, exactly; beyond it 429 from any IP", async ({ expect }) => {
		const { site } = await ownerWithSite();
		// 210 IPs × 30 events = 6,300 attempts, none over the per-IP limit: exactly 6,000 pass the site window.
		const attempts = Array.from({ length: 210 }, () => uniqueIp()).flatMap((ip) => Array<string>(30).fill(ip));
		const statuses: number[] = [];
		for (let i = 0; i < attempts.length; i += 700) {
			const wave = attempts.slice(i, i + 700);
			const responses = await Promise.all(wave.map((ip, j) => collect(pageview(site.tracking_id, { url_path: `/${i + j}` }), { ip })));
			statuses.push(...responses.map((r) => r.status));
		}
		expect(statuses.filter((s) => s === 204)).toHaveLength(6_000);
		expect(statuses.filter((s) => s === 429)).toHaveLength(300);
		const fresh = await collect(pageview(site.tracking_id), { ip: uniqueIp() });
		expect(fresh.status).toBe(429);
		expect(Number(fresh.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
		expect(await storedEvents(site.tracking_id)).toHaveLength(6_000);
	}, 120_000);

	it("Attack Mode: 5 parallel events from one IP → exactly 3 accepted", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await patchSite(token, site.tracking_id, { attack_mode: true });
		const ip = uniqueIp();
		const { accepted, limited } = await burst(site.tracking_id, 5, () => ip);
		expect(accepted).toBe(3);
		expect(limited).toHaveLength(2);
		expect(Number(limited[0].headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
	});

	it("Attack Mode counts what normal mode already let through: an IP at 10 events is blocked at once", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		const ip = uniqueIp();
		expect((await burst(site.tracking_id, 10, () => ip)).accepted).toBe(10);
		await patchSite(token, site.tracking_id, { attack_mode: true });
		expect((await collect(pageview(site.tracking_id), { ip })).status).toBe(429);
		expect((await collect(pageview(site.tracking_id), { ip: uniqueIp() })).status).toBe(204);
	});

	it("Attack Mode: 600 events per minute per site, exactly, over many IPs in parallel", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await patchSite(token, site.tracking_id, { attack_mode: true });
		// 250 IPs × 3 = 750 attempts, all within the per-IP limit: exactly 600 pass the site window.
		const ips = Array.from({ length: 250 }, () => uniqueIp());
		const responses = await Promise.all(
			ips.flatMap((ip) => [0, 1, 2].map((i) => collect(pageview(site.tracking_id, { url_path: `/${i}` }), { ip }))),
		);
		const statuses = responses.map((r) => r.status);
		expect(statuses.filter((s) => s === 204)).toHaveLength(600);
		expect(statuses.filter((s) => s === 429)).toHaveLength(150);
		expect(await storedEvents(site.tracking_id)).toHaveLength(600);
	});
});

describe("a plan change reaches collection at once", () => {
	it("the next event after the trial is ended and the plan is free answers 402, and 204 again once it is pro", async ({ expect }) => {
		const { site, email } = await ownerWithSite();
		expect((await collect(pageview(site.tracking_id))).status).toBe(204); // the collector caches the site now
		await setPlan(email, "free", "2020-01-01T00:00:00Z");
		expect((await collect(pageview(site.tracking_id))).status).toBe(402);
		await setPlan(email, "pro");
		expect((await collect(pageview(site.tracking_id))).status).toBe(204);
	});
});
