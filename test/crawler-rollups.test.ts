import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { lastMigrationStatement } from "./helpers";
import { pagesWithCrawlers } from "../domain/analytics/pagesReport";
import type { StatsRange } from "../domain/analytics/statsRange";
import { CRAWLER_ROLLUP_BACKFILL, computeCrawlerStats, type StoredVisit, visitInsertStatements } from "../domain/crawl/visitStore";

/*
 * The crawler statistics and the pages report read crawler_rollups. Each visit counts once, in its
 * hour and its day, so for any range of whole hours the rollups must give exactly the counts of
 * the visits inside it, however the visits were batched, and a batch written twice counts once.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const T0 = Date.parse("2025-06-01T00:00:00Z");

const CRAWLERS = ["GPTBot", "ClaudeBot", "PerplexityBot"];
const PATHS = ["/", "/pricing", "/docs/a", "/docs/b"];
const STATUSES = [200, 200, 200, 404, 301];
const VERIFIED = [true, false, null];

let sites = 0;

/** Two days and a bit of visits, a few an hour, every crawler, path, status and verification. */
function visits(trackingId: string): StoredVisit[] {
	const list: StoredVisit[] = [];
	for (let i = 0; i < 400; i++) {
		list.push({
			id: `${trackingId}-${i}`,
			trackingId,
			ts: T0 + Math.floor((i * 53 * DAY) / 400 / 24) + (i % 7) * 1_000,
			crawler: CRAWLERS[i % 3],
			urlHost: "example.com",
			urlPath: PATHS[(i * 7) % 4],
			country: "US",
			status: STATUSES[i % 5],
			ua: "bot",
			verified: VERIFIED[(i * 5) % 3],
		});
	}
	return list;
}

async function store(list: StoredVisit[], size: number) {
	for (let i = 0; i < list.length; i += size) await env.DB.batch(visitInsertStatements(env.DB, list.slice(i, i + size)));
}

const range = (from: number, to: number): StatsRange => ({ from, to, bucketMs: to - from <= 3 * DAY ? HOUR : DAY, limit: 100 });

/** What the statistics must say, counted from the visits themselves. */
function expected(list: StoredVisit[], { from, to, bucketMs }: StatsRange) {
	const inside = list.filter((v) => v.ts >= from && v.ts < to);
	const countBy = <K>(key: (v: StoredVisit) => K) => {
		const counts = new Map<K, number>();
		for (const v of inside) counts.set(key(v), (counts.get(key(v)) ?? 0) + 1);
		return counts;
	};
	const byCount = <K>(counts: Map<K, number>) => [...counts].sort((a, b) => b[1] - a[1] || String(a[0]).localeCompare(String(b[0])));
	return {
		visits: inside.length,
		verified_visits: inside.filter((v) => v.verified === true).length,
		unverified_visits: inside.filter((v) => v.verified === false).length,
		crawlers: byCount(countBy((v) => v.crawler)).map(([name, visits]) => ({
			name,
			visits,
			verified: inside.filter((v) => v.crawler === name && v.verified === true).length,
			unverified: inside.filter((v) => v.crawler === name && v.verified === false).length,
		})),
		top_paths: byCount(countBy((v) => v.urlPath)).map(([path, visits]) => ({ path, visits })),
		statuses: byCount(countBy((v) => v.status))
			.sort((a, b) => b[1] - a[1] || a[0] - b[0])
			.map(([status, visits]) => ({ status, visits })),
		seriesTotal: [...countBy((v) => Math.floor(v.ts / bucketMs) * bucketMs)].filter(([, n]) => n > 0),
		pages: byCount(countBy((v) => v.urlPath)).map(([path, crawlerVisits]) => ({ path, crawler_visits: crawlerVisits })),
	};
}

describe("crawler statistics from the rollups equal the counts of the visits", () => {
	const ranges: Array<[string, number, number]> = [
		["the whole span (daily buckets)", T0 - DAY, T0 + 5 * DAY],
		["one UTC day", T0 + DAY, T0 + 2 * DAY],
		["whole hours across midnight", T0 + 20 * HOUR, T0 + DAY + 5 * HOUR],
		["a few hours inside one day", T0 + 2 * DAY + 3 * HOUR, T0 + 2 * DAY + 7 * HOUR],
	];

	it.for(ranges)("%s", async ([, from, to], { expect }) => {
		const trackingId = `crawl-rollups-${sites++}`;
		const list = visits(trackingId);
		await store(list, 37);
		const r = range(from, to);
		const want = expected(list, r);
		expect(want.visits).toBeGreaterThan(0);
		const stats = await computeCrawlerStats(env, trackingId, r, Date.now());
		expect(stats).toMatchObject({
			visits: want.visits,
			verified_visits: want.verified_visits,
			unverified_visits: want.unverified_visits,
			top_paths: want.top_paths,
			statuses: want.statuses,
		});
		expect(stats.crawlers.map(({ name, visits, verified, unverified }) => ({ name, visits, verified, unverified }))).toEqual(want.crawlers);
		expect(stats.series.filter((bucket) => bucket.visits > 0).map((bucket) => [Date.parse(bucket.t), bucket.visits])).toEqual(
			want.seriesTotal.sort((a, b) => a[0] - b[0]),
		);
		const pages = await pagesWithCrawlers(env, trackingId, r);
		expect(pages.pages.map(({ path, crawler_visits }) => ({ path, crawler_visits }))).toEqual(want.pages);
		for (const page of pages.pages) expect(page.crawlers.reduce((sum, c) => sum + c.visits, 0)).toBe(page.crawler_visits);
	});
});

describe("writing the crawler rollups", () => {
	const rowsOf = async (trackingId: string) =>
		(
			await env.DB.prepare("SELECT dim, span, start, value, visits, verified, unverified FROM crawler_rollups WHERE tracking_id = ? ORDER BY dim, span, start, value")
				.bind(trackingId)
				.all()
		).results;

	it("the same rows however the visits are batched, and a batch written twice (a crash after D1 committed) counts once", async ({ expect }) => {
		const one = `crawl-rollups-${sites++}`;
		const two = `crawl-rollups-${sites++}`;
		await store(visits(one), 500);
		await store(visits(two), 3);
		await store(visits(two), 50);
		const rows = await rowsOf(two);
		expect(rows.length).toBeGreaterThan(100);
		expect(rows).toEqual(await rowsOf(one));
	});

	it("the migration's backfill computes exactly what the writes added", async ({ expect }) => {
		const trackingId = `crawl-rollups-${sites++}`;
		await store(visits(trackingId), 41);
		const written = await rowsOf(trackingId);
		await env.DB.batch([env.DB.prepare("DELETE FROM crawler_rollups"), env.DB.prepare(CRAWLER_ROLLUP_BACKFILL)]);
		expect(await rowsOf(trackingId)).toEqual(written);
	});

	it("the migrations' backfill, then their removal of the paths breakdown, leave exactly what the writes added", async ({ expect }) => {
		const trackingId = `crawl-rollups-${sites++}`;
		await store(visits(trackingId), 41);
		const written = await rowsOf(trackingId);
		await env.DB.batch(
			["DELETE FROM crawler_rollups", lastMigrationStatement("_crawler_rollups.sql"), lastMigrationStatement("_crawler_rollup_paths.sql")].map((sql) => env.DB.prepare(sql)),
		);
		expect(await rowsOf(trackingId)).toEqual(written);
	});

	it("no rows of the paths breakdown are written: the top paths are summed from page_crawlers", async ({ expect }) => {
		const trackingId = `crawl-rollups-${sites++}`;
		await store(visits(trackingId), 100);
		const dims = (await env.DB.prepare("SELECT DISTINCT dim FROM crawler_rollups WHERE tracking_id = ? ORDER BY dim").bind(trackingId).all()).results;
		expect(dims.map((row) => row.dim)).toEqual(["", "crawlers", "page_crawlers", "statuses"]);
	});
});
