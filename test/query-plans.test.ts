import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { LIST_EVENTS, LIST_IDENTITIES, siteStatsQueries } from "../domain/analytics/eventStore";
import { crawlerStatsQueries } from "../domain/crawl/visitStore";
import { HOURLY_COUNTS, ISSUES_OF_USER } from "../domain/logs/logStore";

/** SQLite's plan for a statement, one line per step. */
async function plan(sql: string): Promise<string> {
	// Site, range and limit, then breakdown filters (null: none), up to the highest parameter used.
	const highest = Math.max(...Array.from(sql.matchAll(/\?(\d+)/g), (m) => Number(m[1])));
	const binds = ["s_x", 0, 1, 10, ...Array(6).fill(null)].slice(0, highest);
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

it("identified users: a search of one site's identities, never a table scan", async ({ expect }) => {
	const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${LIST_IDENTITIES}`).bind("s_x", 10).all<{ detail: string }>();
	const steps = results.map((row) => row.detail).join("\n");
	expect(steps).toMatch(/SEARCH analytics_identities USING (COVERING )?INDEX \w+ \(tracking_id=\?\)/);
	expect(steps).not.toMatch(/SCAN analytics_identities\b/);
});

it("issue list sparklines: one index search per listed issue, never a scan of the key's events", async ({ expect }) => {
	const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${HOURLY_COUNTS}`).bind("k", '["a","b"]', 0).all<{ detail: string }>();
	const steps = results.map((row) => row.detail).join("\n");
	expect(steps).toMatch(/SEARCH log_events USING (COVERING )?INDEX log_events_key_group_received_idx \(key_id=\? AND group_hash=\? AND received_at>\?\)/);
	expect(steps).not.toMatch(/SCAN log_events\b/);
});

it("one person's issues: a search of each user expression index, never a scan of the key's events", async ({ expect }) => {
	const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${ISSUES_OF_USER}`).bind("k", "ana@example.com").all<{ detail: string }>();
	const steps = results.map((row) => row.detail).join("\n");
	expect(steps).toMatch(/SEARCH log_events USING INDEX log_events_key_user_id_idx \(key_id=\? AND <expr>=\?\)/);
	expect(steps).toMatch(/SEARCH log_events USING INDEX log_events_key_user_email_idx \(key_id=\? AND <expr>=\?\)/);
	expect(steps).not.toMatch(/SCAN log_events\b/);
});
