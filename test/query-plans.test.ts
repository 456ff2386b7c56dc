import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { crawlerStatsQueries } from "../workers/stats/crawlerStats";
import { LIST_EVENTS } from "../workers/stats/listEvents";
import { siteStatsQueries } from "../workers/stats/siteStats";

/** SQLite's plan for a statement, one line per step. */
async function plan(sql: string): Promise<string> {
	const binds = ["s_x", 0, 1, 10].slice(0, sql.includes("?4") ? 4 : 3);
	const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(...binds).all<{ detail: string }>();
	return results.map((row) => row.detail).join("\n");
}

describe("statistics queries use the (tracking_id, ts) indexes, never a table scan", () => {
	const cases = [
		...Object.entries(siteStatsQueries(3_600_000)).map(([name, sql]) => [`stats ${name}`, sql, "analytics_events_site_ts_idx"]),
		...Object.entries(crawlerStatsQueries(3_600_000)).map(([name, sql]) => [`crawlers ${name}`, sql, "crawler_visits_site_ts_idx"]),
		["events list", LIST_EVENTS, "analytics_events_site_ts_idx"],
	];

	it.for(cases)("%s", async ([, sql, index], { expect }) => {
		const steps = await plan(sql);
		expect(steps).toMatch(new RegExp(`SEARCH \\w+ USING (COVERING )?INDEX ${index} \\(tracking_id=\\? AND ts>\\? AND ts<\\?\\)`));
		expect(steps).not.toMatch(/SCAN (analytics_events|crawler_visits)\b/);
	});
});
