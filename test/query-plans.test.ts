import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { DELETE_EXPIRED_SESSIONS } from "../domain/accounts/userStore";
import { DELETE_EXPIRED_EVENTS, DELETE_EXPIRED_IDENTITIES, LIST_EVENTS, LIST_IDENTITIES, siteStatsQueries } from "../domain/analytics/eventStore";
import { crawlerStatsQueries, DELETE_EXPIRED_VISITS } from "../domain/crawl/visitStore";
import { DELETE_EXPIRED_ISSUES, DELETE_EXPIRED_LOG_EVENTS, KEY_WITH_EXPIRED_ISSUES } from "../domain/logs/logStore";

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

it("identified users: a search of one site's identities, never a table scan", async ({ expect }) => {
	const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${LIST_IDENTITIES}`).bind("s_x", 10).all<{ detail: string }>();
	const steps = results.map((row) => row.detail).join("\n");
	expect(steps).toMatch(/SEARCH analytics_identities USING (COVERING )?INDEX \w+ \(tracking_id=\?\)/);
	expect(steps).not.toMatch(/SCAN analytics_identities\b/);
});

describe("the clean-up's statements walk an index from the oldest row, never scan or sort", () => {
	const table = (sql: string) => /FROM (\w+)/.exec(sql)?.[1] ?? "";
	const cases = [
		["sessions", DELETE_EXPIRED_SESSIONS, "sessions_expires_idx", "expires_at<?"],
		["analytics events", DELETE_EXPIRED_EVENTS, "analytics_events_ts_idx", "ts<?"],
		["identity links", DELETE_EXPIRED_IDENTITIES, "analytics_identities_last_seen_idx", "last_seen<?"],
		["crawler visits", DELETE_EXPIRED_VISITS, "crawler_visits_ts_idx", "ts<?"],
		["log events", DELETE_EXPIRED_LOG_EVENTS, "log_events_received_idx", "received_at<?"],
		["the key of the oldest expired issue", KEY_WITH_EXPIRED_ISSUES, "log_issues_last_seen_idx", "last_seen<?"],
		["one key's expired issues", DELETE_EXPIRED_ISSUES, "log_issues_key_last_seen_idx", "key_id=? AND last_seen<?"],
	];

	it.for(cases)("%s", async ([, sql, index, search], { expect }) => {
		const binds = [0, 1000, "k"].slice(0, sql.includes("?3") ? 3 : sql.includes("?2") ? 2 : 1);
		const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(...binds).all<{ detail: string }>();
		const steps = results.map((row) => row.detail).join("\n");
		const name = table(sql);
		expect(steps).toMatch(new RegExp(`SEARCH ${name} USING (COVERING )?INDEX ${index} `));
		expect(steps).toContain(`INDEX ${index} (${search})`);
		if (sql.startsWith("DELETE")) expect(steps).toContain(`SEARCH ${name} USING INTEGER PRIMARY KEY (rowid=?)`);
		expect(steps).not.toMatch(new RegExp(`SCAN ${name}\\b`));
		expect(steps).not.toMatch(/TEMP B-TREE/);
	});
});
