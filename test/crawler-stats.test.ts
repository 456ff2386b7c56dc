import { describe, it } from "vitest";
import { crawlIngest, getJson, ownerWithSite } from "./analytics-helpers";
import { signUp } from "./helpers";
import { DAY, RANGE, seedEvents, seedVisits } from "./statsData";

describe("GET /api/sites/:tracking_id/crawlers", () => {
	it("computes visits per crawler with operator and purpose, paths, statuses, series and recent visits", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await seedVisits(site.tracking_id, [
			["GPTBot", "/a", 200, 60], // 01:00
			["GPTBot", "/a", 200, 61],
			["GPTBot", "/b", 404, 62],
			["ClaudeBot", "/a", 200, 120], // 02:00
			["PerplexityBot", "/c", 301, 121],
			["ChatGPT-User", "/a", 200, 600], // 10:00
			["GPTBot", "/a", 200, -5], // the day before: outside
		]);
		const { status, body } = await getJson(`/api/sites/${site.tracking_id}/crawlers?${RANGE}`, token);
		expect(status).toBe(200);
		expect(body.visits).toBe(6);
		expect(body.crawlers).toEqual([
			// Seeded without an address: none could be checked against published ranges.
			{ name: "GPTBot", operator: "OpenAI", category: "training", visits: 3, verified: 0, unverified: 0 },
			{ name: "ChatGPT-User", operator: "OpenAI", category: "user_fetch", visits: 1, verified: 0, unverified: 0 },
			{ name: "ClaudeBot", operator: "Anthropic", category: "training", visits: 1, verified: 0, unverified: 0 },
			{ name: "PerplexityBot", operator: "Perplexity", category: "search", visits: 1, verified: 0, unverified: 0 },
		]);
		expect(body.categories).toEqual([
			{ category: "training", visits: 4 },
			{ category: "user_fetch", visits: 1 },
			{ category: "search", visits: 1 },
		]);
		expect(body.top_paths).toEqual([
			{ path: "/a", visits: 4 },
			{ path: "/b", visits: 1 },
			{ path: "/c", visits: 1 },
		]);
		expect(body.statuses).toEqual([
			{ status: 200, visits: 4 },
			{ status: 301, visits: 1 },
			{ status: 404, visits: 1 },
		]);
		expect(body.series).toHaveLength(24);
		expect(body.series.filter((b: { visits: number }) => b.visits > 0)).toEqual([
			{ t: "2025-03-01T01:00:00.000Z", visits: 3 },
			{ t: "2025-03-01T02:00:00.000Z", visits: 2 },
			{ t: "2025-03-01T10:00:00.000Z", visits: 1 },
		]);
		// Each crawler's own visits, in the order of `crawlers`, bucketed as `series`.
		expect(body.crawler_series.map((c: { name: string }) => c.name)).toEqual(["GPTBot", "ChatGPT-User", "ClaudeBot", "PerplexityBot"]);
		for (const crawler of body.crawler_series) expect(crawler.series).toHaveLength(24);
		expect(body.crawler_series[0].series.filter((b: { visits: number }) => b.visits > 0)).toEqual([{ t: "2025-03-01T01:00:00.000Z", visits: 3 }]);
		expect(body.crawler_series[2].series.filter((b: { visits: number }) => b.visits > 0)).toEqual([{ t: "2025-03-01T02:00:00.000Z", visits: 1 }]);
		expect(body.recent).toHaveLength(6);
		expect(body.recent[0]).toEqual({
			crawler: "ChatGPT-User",
			url_host: "example.com",
			url_path: "/a",
			country: "US",
			status: 200,
			verified: null,
			ts: "2025-03-01T10:00:00.000Z",
		});
		expect(body.recent.map((v: { ts: string }) => v.ts)).toEqual([...body.recent.map((v: { ts: string }) => v.ts)].sort().reverse());
	});

	it("gives the five busiest crawlers a series each, by UTC day over a longer range, the partial days from their hours", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		const DAY_MINUTES = 1440;
		const visits = (crawler: string, minutes: number[]) => minutes.map((minute): [string, string, number, number] => [crawler, "/", 200, minute]);
		await seedVisits(site.tracking_id, [
			// 03-01 12:05 (the range's first, partial day), 03-02 twice, 03-06 11:00 (its last, partial day) three times;
			// 03-06 13:00 is past the range.
			...visits("GPTBot", [12 * 60 + 5, DAY_MINUTES + 10, DAY_MINUTES + 20, 5 * DAY_MINUTES + 660, 5 * DAY_MINUTES + 661, 5 * DAY_MINUTES + 662, 5 * DAY_MINUTES + 780]),
			...visits("ClaudeBot", [DAY_MINUTES * 2, DAY_MINUTES * 2 + 1, DAY_MINUTES * 2 + 2, DAY_MINUTES * 2 + 3, DAY_MINUTES * 2 + 4]),
			...visits("PerplexityBot", [DAY_MINUTES * 3, DAY_MINUTES * 3 + 1, DAY_MINUTES * 3 + 2, DAY_MINUTES * 3 + 3]),
			...visits("ChatGPT-User", [DAY_MINUTES * 3, DAY_MINUTES * 3 + 1, DAY_MINUTES * 3 + 2]),
			...visits("CCBot", [DAY_MINUTES * 4, DAY_MINUTES * 4 + 1]),
			...visits("Bytespider", [DAY_MINUTES * 4]),
		]);
		const { body } = await getJson(`/api/sites/${site.tracking_id}/crawlers?from=2025-03-01T12:00:00Z&to=2025-03-06T12:00:00Z`, token);
		expect(body.crawlers.map((c: { name: string }) => c.name)).toEqual(["GPTBot", "ClaudeBot", "PerplexityBot", "ChatGPT-User", "CCBot", "Bytespider"]);
		expect(body.crawler_series.map((c: { name: string }) => c.name)).toEqual(["GPTBot", "ClaudeBot", "PerplexityBot", "ChatGPT-User", "CCBot"]);
		const days = ["01", "02", "03", "04", "05", "06"].map((day) => `2025-03-${day}T00:00:00.000Z`);
		expect(body.crawler_series[0].series).toEqual([1, 2, 0, 0, 0, 3].map((visits, i) => ({ t: days[i], visits })));
		expect(body.crawler_series[4].series).toEqual([0, 0, 0, 0, 2, 0].map((visits, i) => ({ t: days[i], visits })));
		// Every crawler's buckets add up to the total series where all are charted.
		expect(body.series.map((b: { visits: number }) => b.visits)).toEqual([1, 2, 5, 7, 3, 3]);
	});

	it("shows a visit reported a moment ago", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		const ua = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)";
		await crawlIngest({ tracking_id: site.tracking_id, url_host: "example.com", url_path: "/docs", ua, country: "FR", status: 404 });
		const { body } = await getJson(`/api/sites/${site.tracking_id}/crawlers`, token);
		expect(body.visits).toBe(1);
		expect(body.crawlers).toEqual([{ name: "ClaudeBot", operator: "Anthropic", category: "training", visits: 1, verified: 0, unverified: 0 }]);
		expect(body.recent[0]).toMatchObject({ crawler: "ClaudeBot", url_path: "/docs", country: "FR", status: 404 });
	});

	it("draws no bucket that starts after now, in the series and each crawler's", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await crawlIngest({ tracking_id: site.tracking_id, url_host: "example.com", url_path: "/", ua: "GPTBot/1.2" });
		const HOUR = 3_600_000;
		const before = Date.now();
		const from = new Date(Math.floor(before / HOUR) * HOUR - HOUR).toISOString();
		const to = new Date(Math.floor(before / HOUR) * HOUR + 48 * HOUR).toISOString();
		const { body } = await getJson(`/api/sites/${site.tracking_id}/crawlers?from=${from}&to=${to}`, token);
		for (const series of [body.series, body.crawler_series[0].series]) {
			const starts = series.map((b: { t: string }) => Date.parse(b.t));
			expect(starts[0]).toBe(Date.parse(from));
			expect(starts.at(-1)).toBeGreaterThanOrEqual(Math.floor(before / HOUR) * HOUR);
			expect(starts.at(-1)).toBeLessThanOrEqual(Date.now());
		}
		expect(body.to).toBe(to);
	});
});

describe("GET /api/sites/:tracking_id/pages: people and AI crawlers page by page", () => {
	it("joins page views and crawler visits on the path, the most read pages first", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await seedEvents(site.tracking_id, DAY);
		await seedVisits(site.tracking_id, [
			["GPTBot", "/", 200, 60],
			["GPTBot", "/", 200, 61],
			["ClaudeBot", "/", 200, 62],
			["GPTBot", "/docs", 200, 63],
			["GPTBot", "/docs", 200, 64],
			["GPTBot", "/docs", 404, 65],
			["GPTBot", "/pricing", 200, -5], // the day before: outside
		]);
		const { status, body } = await getJson(`/api/sites/${site.tracking_id}/pages?${RANGE}`, token);
		expect(status).toBe(200);
		expect(body.pages).toEqual([
			{ path: "/", pageviews: 3, visitors: 2, crawler_visits: 3, crawlers: [{ name: "GPTBot", visits: 2 }, { name: "ClaudeBot", visits: 1 }] },
			{ path: "/docs", pageviews: 0, visitors: 0, crawler_visits: 3, crawlers: [{ name: "GPTBot", visits: 3 }] },
			{ path: "/blog", pageviews: 1, visitors: 1, crawler_visits: 0, crawlers: [] },
			{ path: "/pricing", pageviews: 1, visitors: 1, crawler_visits: 0, crawlers: [] },
		]);
		const limited = await getJson(`/api/sites/${site.tracking_id}/pages?${RANGE}&limit=1`, token);
		expect(limited.body.pages.map((p: { path: string }) => p.path)).toEqual(["/"]);
	});

	it("is the owner's only", async ({ expect }) => {
		const { site } = await ownerWithSite();
		const stranger = await signUp();
		expect((await getJson(`/api/sites/${site.tracking_id}/pages`, stranger.token)).status).toBe(404);
	});
});

describe("GET /api/sites/:tracking_id/pages: sort and only, for the pages a list of the busiest hides", () => {
	/** People view / (3), /blog and /pricing (1 each); AI reads / (3) and /docs (3), which nobody viewed. */
	async function seeded() {
		const { token, site } = await ownerWithSite();
		await seedEvents(site.tracking_id, DAY);
		await seedVisits(site.tracking_id, [
			["GPTBot", "/", 200, 60],
			["GPTBot", "/", 200, 61],
			["ClaudeBot", "/", 200, 62],
			["GPTBot", "/docs", 200, 63],
			["ClaudeBot", "/docs", 200, 64],
			["ClaudeBot", "/docs", 200, 65],
		]);
		const paths = async (query: string) => {
			const { status, body } = await getJson(`/api/sites/${site.tracking_id}/pages?${RANGE}&${query}`, token);
			if (status !== 200) throw new Error(`expected 200, got ${status}: ${JSON.stringify(body)}`);
			return (body.pages as Array<{ path: string }>).map((p) => p.path);
		};
		return { token, site, paths };
	}

	it.for([
		["", ["/", "/docs", "/blog", "/pricing"]],
		["sort=total", ["/", "/docs", "/blog", "/pricing"]],
		["sort=ai", ["/", "/docs", "/blog", "/pricing"]],
		["sort=people", ["/", "/blog", "/pricing", "/docs"]],
		["only=ai", ["/docs"]],
		["only=people", ["/blog", "/pricing"]],
		["only=people&sort=ai", ["/blog", "/pricing"]],
		["sort=people&limit=2", ["/", "/blog"]],
	] as const)("?%s → %j", async ([query, expected], { expect }) => {
		const { paths } = await seeded();
		expect(await paths(query)).toEqual(expected);
	});

	it("shows the page only AI reads that the busiest pages push out, and says which selection it answers", async ({ expect }) => {
		const { token, site, paths } = await seeded();
		expect(await paths("limit=1")).toEqual(["/"]);
		expect(await paths("limit=1&only=ai")).toEqual(["/docs"]);
		expect(await paths("limit=1&only=people")).toEqual(["/blog"]);
		const { body } = await getJson(`/api/sites/${site.tracking_id}/pages?${RANGE}&only=ai&sort=ai`, token);
		expect(body).toMatchObject({ sort: "ai", only: "ai", pages: [{ path: "/docs", pageviews: 0, visitors: 0, crawler_visits: 3 }] });
		expect((await getJson(`/api/sites/${site.tracking_id}/pages?${RANGE}`, token)).body).toMatchObject({ sort: "total", only: null });
	});

	it("answers 100 pages at limit=100 and 400 at 101", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await seedVisits(site.tracking_id, Array.from({ length: 101 }, (_, i) => ["GPTBot", `/p${i}`, 200, 60] as [string, string, number, number]));
		const at100 = await getJson(`/api/sites/${site.tracking_id}/pages?${RANGE}&only=ai&limit=100`, token);
		expect(at100.body.pages).toHaveLength(100);
		const at101 = await getJson(`/api/sites/${site.tracking_id}/pages?${RANGE}&only=ai&limit=101`, token);
		expect(at101).toEqual({ status: 400, body: { error: "Invalid request: limit: must be a whole number from 1 to 100" } });
	});

	it.for([
		["sort=busiest", "Invalid request: sort: must be one of total, ai, people"],
		["only=crawlers", "Invalid request: only: must be one of ai, people"],
		["only=ai&only=people", "Invalid request: only: must be given once"],
		["order=ai", "Invalid request: unknown parameter order"],
	])("answers ?%s with 400: %s", async ([query, error], { expect }) => {
		const { token, site } = await ownerWithSite();
		expect(await getJson(`/api/sites/${site.tracking_id}/pages?${query}`, token)).toEqual({ status: 400, body: { error } });
	});
});
