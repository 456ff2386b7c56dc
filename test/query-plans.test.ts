import { env } from "cloudflare:workers";
import { beforeAll, describe, type ExpectStatic, it } from "vitest";
import { DELETE_EXPIRED_SESSIONS } from "../domain/accounts/userStore";
import { compileFilters, type Filters } from "../domain/analytics/filters";
import { STATS_FILTER_PARAMS as FILTER_NAMES } from "../domain/api/sites";
import {
	DELETE_EXPIRED_EVENTS,
	DELETE_EXPIRED_IDENTITIES,
	DELETE_EXPIRED_ROLLUPS,
	LIST_EVENTS,
	PROPERTY_ADDITIONS,
	LIST_IDENTITIES,
} from "../domain/analytics/eventStore";
import { PAGES_QUERIES } from "../domain/analytics/pagesReport";
import { siteStatsQueries, VISITORS_NOW } from "../domain/analytics/eventStats";
import { BREAKDOWN_COLUMNS, type BreakdownName, breakdownQuery } from "../domain/analytics/siteStats";
import { OWNER_SITES_HOURS, ROLLUP_EVENT_COUNT, rollupQueries } from "../domain/analytics/rollups";
import { LOAD_VISITOR_DAYS, ROLLUP_ADDITIONS } from "../domain/analytics/rollupWriter";
import { CRAWLER_ROLLUP_ADDITIONS, crawlerStatsQueries, DELETE_EXPIRED_CRAWLER_ROLLUPS, DELETE_EXPIRED_VISITS } from "../domain/crawl/visitStore";
import { DELETE_EXPIRED_ISSUE_TAGS } from "../domain/logs/issueTags";
import { DELETE_EXPIRED_ISSUES, DELETE_EXPIRED_LOG_EVENTS, KEY_WITH_EXPIRED_ISSUES } from "../domain/logs/logStore";
import { artifactLookup, STALE_CHUNKS, UNUSED_ARTIFACTS } from "../domain/sourcemaps/artifactStore";
import { describeTables, forgetStatistics } from "./plannerStatistics";

/**
 * The planner is checked in two conditions. A big site: statistics as ANALYZE writes them for a
 * site with 1,000,000 events (and as many crawler visits), one site holding every row, so a plan
 * that would fall back to another index or a scan at that size shows here. A database never
 * analyzed (a new one, or one D1 has not analyzed yet): the planner guesses from the indexes
 * alone, and with the rows still there a wrong guess costs as much. The log issues' reads, at the
 * 10,000 issues a key holds, are checked in issue-query-plans.test.ts.
 */
function seedBigSiteStatistics() {
	return describeTables([
		["analytics_events", "analytics_events_site_ts_idx", "1000000 1000000 1"],
		["analytics_events", "sqlite_autoindex_analytics_events_1", "1000000 1000000 1"],
		// About 125,000 visitors, eight events each.
		["analytics_events", "analytics_events_visitor_idx", "1000000 1000000 8 1"],
		// 256 buckets of visitors by their id's first two hex digits.
		["analytics_events", "analytics_events_sample_idx", "1000000 1000000 3907 1"],
		// The rollups of such a site over a year: hours and days, a few hundred labels each.
		["analytics_rollups", "sqlite_autoindex_analytics_rollups_1", "3000000 3000000 300000 150000 200 1"],
		["analytics_rollups", "analytics_rollups_start_idx", "3000000 200"],
		["crawler_rollups", "sqlite_autoindex_crawler_rollups_1", "3000000 3000000 600000 150000 200 1"],
		["crawler_rollups", "crawler_rollups_start_idx", "3000000 200"],
		["crawler_visits", "crawler_visits_site_ts_idx", "1000000 1000000 1"],
		["crawler_visits", "sqlite_autoindex_crawler_visits_1", "1000000 1"],
	]);
}

/** SQLite's plan for a statement, one line per step, its parameters bound as far as it uses them. */
async function plan(sql: string): Promise<string> {
	const highest = Math.max(0, ...[...sql.matchAll(/\?(\d+)/g)].map((m) => Number(m[1])));
	// After the filters' values, a time (the realtime statement's visitors now since).
	const binds = ["s_x", 0, 1, 10, ...FILTER_NAMES.map((name) => `value of ${name}`), 0].slice(0, highest);
	const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(...binds).all<{ detail: string }>();
	return results.map((row) => row.detail).join("\n");
}

/** A read of one site's rollup rows of one breakdown and span, over a range of starts. */
const ROLLUP_SEARCH = /SEARCH \w+ USING PRIMARY KEY \(tracking_id=\? AND dim=\? AND span=\? AND start>\? AND start<\?\)/;

describe.each([
	["a site with 1,000,000 events", seedBigSiteStatistics],
	["a database never analyzed", forgetStatistics],
] as const)("%s", (_, prepareStatistics) => {
	beforeAll(prepareStatistics);

	const searchOf = (index: string) => new RegExp(`SEARCH \\w+ USING (COVERING )?INDEX ${index} \\(tracking_id=\\? AND ts>\\? AND ts<\\?\\)`);
	const EVENTS_INDEX = "analytics_events_site_ts_idx";

	// Every filter at once, as many as a request takes: "is" and "is not", then "contains" and "does not
	// contain". Each adds its own conditions (and, for acquisition, a visitor subquery).
	const valuesOf = (params: string[]) => Object.fromEntries(params.map((name) => [name, `value of ${name}`])) as Filters;
	const EVERY_FILTER: Array<[string, Filters]> = [
		["every is and is not", valuesOf(FILTER_NAMES.filter((name) => !name.includes("_contains")))],
		["every contains and does not contain", valuesOf(FILTER_NAMES.filter((name) => name.includes("_contains")))],
	];
	const direct = compileFilters({ source: "Direct / None" });

	describe("statistics queries use the (tracking_id, ts) indexes, never a table scan", () => {
		const cases = [
			...Object.entries(siteStatsQueries(3_600_000)).map(([name, sql]) => [`stats ${name}`, sql, EVENTS_INDEX]),
			...EVERY_FILTER.flatMap(([every, filters]) =>
				Object.entries(siteStatsQueries(3_600_000, compileFilters(filters))).map(([name, sql]) => [`stats ${name}, ${every}`, sql, EVENTS_INDEX]),
			),
			...Object.entries(siteStatsQueries(3_600_000, direct)).map(([name, sql]) => [`stats ${name}, source=Direct / None`, sql, EVENTS_INDEX]),
			["events list", LIST_EVENTS, EVENTS_INDEX],
		];

		it.for(cases)("%s", async ([, sql, index], { expect }) => {
			const steps = await plan(sql);
			expect(steps).toMatch(searchOf(index));
			expect(steps).not.toMatch(/SCAN (analytics_events|crawler_visits)\b/);
			// Every read of a statistics table is such a search (or, for the events of a filter's list of
			// visitors, a search of each one's events in the range): a subquery or a second table included.
			for (const line of steps.split("\n").filter((l) => /\b(analytics_events|crawler_visits)\b/.test(l))) {
				expect(line).toMatch(
					/SEARCH \w+ USING (COVERING )?INDEX (\w+_site_ts_idx \(tracking_id=\? AND ts>\? AND ts<\?\)|analytics_events_visitor_idx \(tracking_id=\? AND visitor_id=\? AND ts>\? AND ts<\?\))/,
				);
			}
		});

	});

	describe("each filter on its own, and every CSV export, unfiltered, with each filter and with all: index searches only", () => {
		const EVENT_SEARCH =
			/SEARCH \w+ USING (COVERING )?INDEX (analytics_events_site_ts_idx \(tracking_id=\? AND ts>\? AND ts<\?\)|analytics_events_visitor_idx \(tracking_id=\? AND visitor_id=\? AND ts>\? AND ts<\?\))/;
		const SAMPLE_SEARCH = /SEARCH \w+ USING INDEX analytics_events_sample_idx \(tracking_id=\? AND <expr>=\? AND ts>\? AND ts<\?\)/;
		const sample = { buckets: 6 };
		/** Each filter alone (the referrer URLs always with a source), and all of them. */
		const filterSets = (needsSource: boolean): Array<[string, Filters]> => [
			...FILTER_NAMES.map((name): [string, Filters] => [name, { ...(needsSource ? { source: "value of source" } : {}), [name]: `value of ${name}` }]),
			...EVERY_FILTER.map(([every, filters]): [string, Filters] => [every, { ...(needsSource ? { source: "value of source" } : {}), ...filters }]),
		];
		/** Every line of the plan that reads the events is such a search, and there is at least one. */
		const expectEventSearches = async (expect: ExpectStatic, sql: string, search: RegExp, what: string) => {
			const steps = await plan(sql);
			expect(steps, what).not.toMatch(/SCAN (analytics_events|analytics_rollups)\b/);
			const reads = steps.split("\n").filter((l) => /\banalytics_events\b/.test(l));
			expect(reads.length, what).toBeGreaterThan(0);
			for (const line of reads) expect(line, what).toMatch(search);
		};

		// "Is not" of a visit filter (source_not) cuts every visitor's events, each read once by the (tracking_id, ts) index.
		it.for(FILTER_NAMES)("the statistics with %s alone, counted and sampled", async (name, { expect }) => {
			for (const [conditions, search] of [[undefined, EVENT_SEARCH], [sample, SAMPLE_SEARCH]] as const) {
				const filters = compileFilters({ [name]: `value of ${name}` }, conditions);
				for (const [part, sql] of Object.entries(siteStatsQueries(3_600_000, filters)).filter(([, sql]) => sql !== VISITORS_NOW)) {
					await expectEventSearches(expect, sql, search, `${part}${conditions ? ", sampled" : ""}`);
				}
			}
		});

		it.for(Object.keys(BREAKDOWN_COLUMNS) as BreakdownName[])("%s.csv", async (name, { expect }) => {
			if (name !== "referrer_urls") {
				const steps = await plan(breakdownQuery(name, 86_400_000));
				expect(steps).toMatch(ROLLUP_SEARCH);
				for (const line of steps.split("\n").filter((l) => /\b(analytics_rollups|analytics_events)\b/.test(l))) expect(line).toMatch(ROLLUP_SEARCH);
			}
			for (const [what, filters] of filterSets(name === "referrer_urls")) {
				await expectEventSearches(expect, breakdownQuery(name, 86_400_000, compileFilters(filters)), EVENT_SEARCH, what);
				await expectEventSearches(expect, breakdownQuery(name, 86_400_000, compileFilters(filters, sample)), SAMPLE_SEARCH, `${what}, sampled`);
			}
		});
	});

	describe("a sample of the visitors: every read of the events one search of the sample index per bucket, whatever the filters", () => {
		const sample = { buckets: 6 };
		const cases = [
			...EVERY_FILTER.map(([every, filters]) => [every, compileFilters(filters, sample)] as const),
			["source=Direct / None", compileFilters({ source: "Direct / None" }, sample)],
			["page", compileFilters({ page: "/pricing" }, sample)],
			["country", compileFilters({ country: "DE" }, sample)],
		] as const;
		it.for(cases)("%s", async ([, filters], { expect }) => {
			for (const sql of Object.values(siteStatsQueries(86_400_000, filters)).filter((sql) => sql !== VISITORS_NOW)) {
				const reads = (await plan(sql)).split("\n").filter((l) => /\banalytics_events\b/.test(l));
				expect(reads.length).toBeGreaterThan(0);
				for (const line of reads) {
					expect(line).toMatch(/SEARCH \w+ USING INDEX analytics_events_sample_idx \(tracking_id=\? AND <expr>=\? AND ts>\? AND ts<\?\)/);
				}
			}
		});
		it("the count that decides on a sample reads the site's whole-range rollup rows", async ({ expect }) => {
			for (const line of (await plan(ROLLUP_EVENT_COUNT)).split("\n").filter((l) => /analytics_rollups/.test(l))) expect(line).toMatch(ROLLUP_SEARCH);
		});
		it("the sites list's last 24 hours: the owner's sites by their index, then each site's hour rows by key", async ({ expect }) => {
			const steps = await plan(OWNER_SITES_HOURS);
			expect(steps).toMatch(/SEARCH sites USING (COVERING )?INDEX sites_user_idx \(user_id=\?\)/);
			const reads = steps.split("\n").filter((l) => /analytics_rollups/.test(l));
			expect(reads.length).toBeGreaterThan(0);
			for (const line of reads) expect(line).toMatch(/SEARCH \w+ USING PRIMARY KEY \(tracking_id=\? AND dim=\? AND span=\? AND start>\? AND start<\?\)/);
		});
	});

	describe("crawler statistics and the pages report read rollups: a search per piece of the range", () => {
		const { recent, ...fromRollups } = crawlerStatsQueries(3_600_000);

		const pages = Object.entries(PAGES_QUERIES).map(([params, sql]) => [`pages with crawler visits, ${params}`, sql]);
		const daily = ["crawlerSeries by day", crawlerStatsQueries(86_400_000).crawlerSeries];
		it.for([...Object.entries(fromRollups), daily, ...pages])("%s", async ([, sql], { expect }) => {
			const steps = await plan(sql);
			expect(steps).toMatch(ROLLUP_SEARCH);
			// The pages' two sides are put together by a grouping: a join would search one side for each row of the other.
			expect(steps).not.toMatch(/\bJOIN\b/);
			for (const line of steps.split("\n").filter((l) => /\b(crawler_rollups|analytics_rollups|crawler_visits|analytics_events)\b/.test(l))) {
				expect(line).toMatch(ROLLUP_SEARCH);
			}
		});

		it("the newest visits: a walk of the (tracking_id, ts) index", async ({ expect }) => {
			const steps = await plan(recent);
			expect(steps).toMatch(searchOf("crawler_visits_site_ts_idx"));
			expect(steps).not.toMatch(/SCAN crawler_visits\b/);
		});

		it("a flush counts new visits by looking each up by its key", async ({ expect }) => {
			const steps = await plan(CRAWLER_ROLLUP_ADDITIONS);
			expect(steps).toMatch(/SEARCH c USING (COVERING )?INDEX sqlite_autoindex_crawler_visits_1 \(id=\?\)/);
			expect(steps).not.toMatch(/SCAN (crawler_visits|crawler_rollups|c)\b/);
		});
	});

	describe("the rollups: reads search one site's rows of one breakdown and span, writes one visitor's day", () => {
		const VISITOR_SEARCH = /SEARCH a USING INDEX analytics_events_visitor_idx \(tracking_id=\? AND visitor_id=\? AND ts>\? AND ts<\?\)/;

		it.for(Object.entries(rollupQueries(3_600_000)))("statistics %s", async ([, sql], { expect }) => {
			const steps = await plan(sql);
			expect(steps).toMatch(ROLLUP_SEARCH);
			for (const line of steps.split("\n").filter((l) => /\b(analytics_rollups|analytics_events)\b/.test(l))) expect(line).toMatch(ROLLUP_SEARCH);
		});

		it("a collector that does not hold a visitor's day reads it: each day one search of the visitor index", async ({ expect }) => {
			const steps = await plan(LOAD_VISITOR_DAYS);
			expect(steps).toMatch(VISITOR_SEARCH);
			expect(steps).not.toMatch(/SCAN (analytics_events|analytics_rollups|a)\b/);
			expect(steps).not.toMatch(/analytics_events_ts_idx|AUTOMATIC/);
		});

		it("a flush counts new events' properties by looking each event up by its key, and adds to rollup rows by theirs", async ({ expect }) => {
			expect(await plan(PROPERTY_ADDITIONS)).toMatch(/SEARCH a USING (COVERING )?INDEX sqlite_autoindex_analytics_events_1 \(tracking_id=\? AND event_id=\?\)/);
			for (const sql of [PROPERTY_ADDITIONS, ROLLUP_ADDITIONS]) expect(await plan(sql)).not.toMatch(/SCAN (analytics_events|analytics_rollups|a)\b/);
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
			["analytics rollups", DELETE_EXPIRED_ROLLUPS, "analytics_rollups_start_idx", "start<?"],
			["crawler visits", DELETE_EXPIRED_VISITS, "crawler_visits_ts_idx", "ts<?"],
			["crawler rollups", DELETE_EXPIRED_CRAWLER_ROLLUPS, "crawler_rollups_start_idx", "start<?"],
			["log events", DELETE_EXPIRED_LOG_EVENTS, "log_events_timestamp_idx", "timestamp<?"],
			["issues' tag values", DELETE_EXPIRED_ISSUE_TAGS, "log_issue_tags_last_seen_idx", "last_seen<?"],
			["the key of the oldest expired issue", KEY_WITH_EXPIRED_ISSUES, "log_issues_last_seen_idx", "last_seen<?"],
			["one key's expired issues", DELETE_EXPIRED_ISSUES, "log_issues_key_last_seen_idx", "key_id=? AND last_seen<?"],
			["unused source-map artifacts", UNUSED_ARTIFACTS, "artifacts_used_idx", "used_at<?"],
			["chunks never assembled", STALE_CHUNKS, "upload_chunks_created_idx", "created_at<?"],
		];

		it.for(cases)("%s", async ([, sql, index, search], { expect }) => {
			const binds = [0, 1000, "k"].slice(0, sql.includes("?3") ? 3 : sql.includes("?2") ? 2 : 1);
			const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(...binds).all<{ detail: string }>();
			const steps = results.map((row) => row.detail).join("\n");
			const name = table(sql);
			expect(steps).toMatch(new RegExp(`SEARCH ${name} USING (COVERING )?INDEX ${index} `));
			expect(steps).toContain(`INDEX ${index} (${search})`);
			if (sql.startsWith("DELETE")) {
				// A table without rowid (analytics_rollups, log_issue_tags) finds each row by its whole primary key.
				expect(steps).toMatch(
					new RegExp(
						`SEARCH ${name} USING (INTEGER PRIMARY KEY \\(rowid=\\?\\)|PRIMARY KEY \\((tracking_id=\\? AND dim=\\? AND span=\\? AND start=\\?|key_id=\\? AND group_hash=\\? AND environment=\\? AND tag_key=\\?) AND value=\\?\\))`,
					),
				);
			}
			expect(steps).not.toMatch(new RegExp(`SCAN ${name}\\b`));
			expect(steps).not.toMatch(/TEMP B-TREE/);
		});
	});

	it("symbolication's lookup of artifacts: a search of each unique index, never a walk through the project's artifacts", async ({ expect }) => {
		const query = artifactLookup(env, "k", { debugIds: ["e1e8570f-7c42-515d-a5d5-d407b0da4295"], release: "1.0.0", urls: ["~/assets/app.js"] });
		const { sql, params } = query!.toSQL();
		const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(...params).all<{ detail: string }>();
		const steps = results.map((row) => row.detail).join("\n");
		expect(steps).toMatch(/SEARCH artifacts USING INDEX artifacts_key_debug_id_type_idx \(key_id=\? AND debug_id=\?\)/);
		expect(steps).toMatch(/SEARCH artifacts USING INDEX artifacts_key_release_url_idx \(key_id=\? AND release=\? AND url=\?\)/);
		expect(steps).not.toMatch(/SCAN artifacts\b/);
	});
});
