import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { beforeAll, describe, it } from "vitest";
import { ISSUE_SORTS } from "../domain/api/issues";
import { database } from "../domain/db";
import { eventsByIdQuery } from "../domain/logs/eventById";
import { DELETE_SEEDED_USERS, ENVIRONMENT_ADDITIONS, SEEDED_USERS } from "../domain/logs/issueEnvironments";
import { ISSUES_OF_USER, issueListQuery } from "../domain/logs/issueList";
import { issueEventSearchQuery } from "../domain/logs/issueEventSearch";
import { DELETES, ENVIRONMENT_RECOUNT, MERGED_FINGERPRINTS, MOVE_BACK, MOVES, SET_ENVIRONMENT_USERS, STORED_QUERIES, UNHANDLED_RECOUNT } from "../domain/logs/issueMerge";
import { ISSUE_FEEDBACK } from "../domain/logs/issueFeedback";
import { ISSUE_RELEASES, ISSUE_TAGS, TAG_ADDITIONS, TAG_RECOUNT } from "../domain/logs/issueTags";
import {
	DELETE_EXPIRED_ISSUE_ENVIRONMENTS,
	DELETE_EXPIRED_ISSUE_NAMES,
	HOURLY_COUNTS,
	findIssueQuery,
	HOURLY_COUNTS_IN_ENVIRONMENT,
	ISSUE_NAMES,
	issueEvents,
} from "../domain/logs/logStore";
import { describeTables, forgetStatistics } from "./plannerStatistics";

/**
 * The log issues' reads and writes, as query-plans.test.ts checks the rest, in two conditions: a
 * project key with 10,000 issues (the most one holds) in three statuses and three environments
 * and 100,000 events, as ANALYZE would describe it, so a plan that would fall back to a sort or a
 * scan at that size shows here; and a database never analyzed, the planner guessing from the
 * indexes alone. The clean-up's deletes of expired issues and events are in query-plans.test.ts.
 */
function seedIssueStatistics() {
	return describeTables([
		["log_issues", "sqlite_autoindex_log_issues_1", "10000 10000 1"],
		...["last_seen", "first_seen"].flatMap((order) => [
			["log_issues", `log_issues_key_${order}_idx`, "10000 10000 1 1"],
			["log_issues", `log_issues_key_status_${order}_idx`, "10000 10000 3334 1 1"],
			["log_issue_environments", `log_issue_environments_key_env_${order}_idx`, "20000 20000 6667 1 1"],
		]),
		["log_issues", "log_issues_key_count_idx", "10000 10000 2000 1 1"],
		["log_issues", "log_issues_key_status_count_idx", "10000 10000 3334 700 1 1"],
		["log_issue_environments", "log_issue_environments_key_env_count_idx", "20000 20000 6667 1500 1 1"],
		["log_issues", "log_issues_key_users_idx", "10000 10000 2000 1 1"],
		["log_issues", "log_issues_key_status_users_idx", "10000 10000 3334 700 1 1"],
		["log_issue_environments", "log_issue_environments_key_env_users_idx", "20000 20000 6667 1500 1 1"],
		// A table without rowid: its primary key's statistics go by the table's name.
		["log_issue_environments", "log_issue_environments", "20000 20000 2 1"],
		["log_events", "log_events_key_group_timestamp_env_idx", "100000 100000 10 1 1"],
		["log_events", "sqlite_autoindex_log_events_1", "100000 1"],
		["log_issue_tags", "log_issue_tags", "500000 500000 50 25 12 1"],
		["log_issue_tags", "log_issue_tags_key_tag_value_idx", "500000 500000 25000 20 1"],
		["log_issue_tags", "log_issue_tags_last_seen_idx", "500000 2"],
	]);
}

describe.each([
	["a key with 10,000 issues", seedIssueStatistics],
	["a database never analyzed", forgetStatistics],
] as const)("%s", (_, prepareStatistics) => {
	beforeAll(prepareStatistics);

	it.for([
		["all environments", HOURLY_COUNTS],
		["one environment", HOURLY_COUNTS_IN_ENVIRONMENT],
	])("issue list sparklines, %s: one search of the covering index per listed issue, never a read of the key's events", async ([, sql], { expect }) => {
		const binds = ["k", '["a","b"]', 0, "production"].slice(0, sql === HOURLY_COUNTS ? 3 : 4);
		const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(...binds).all<{ detail: string }>();
		const steps = results.map((row) => row.detail).join("\n");
		expect(steps).toMatch(/SEARCH log_events USING COVERING INDEX log_events_key_group_timestamp_env_idx \(key_id=\? AND group_hash=\? AND timestamp>\?\)/);
		expect(steps).not.toMatch(/SCAN log_events\b/);
	});

	it.for([
		["environments", ENVIRONMENT_ADDITIONS],
		["tags", TAG_ADDITIONS],
	])("a flush counts into the %s' rows only the events D1 does not have, each looked up by its id", async ([, sql], { expect }) => {
		const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind("k", "[]").all<{ detail: string }>();
		const steps = results.map((row) => row.detail).join("\n");
		expect(steps).toMatch(/SEARCH e USING COVERING INDEX sqlite_autoindex_log_events_1 \(id=\?\)/);
		expect(steps).not.toMatch(/SCAN (log_events|log_issue_environments|log_issue_tags|e)\b/);
	});

	it("a collector takes over its key's seeded users by a search of the seed's key index, and deletes them by rowid", async ({ expect }) => {
		for (const [sql, search] of [
			[SEEDED_USERS, /SEARCH log_issue_environment_users_seed USING INDEX log_issue_environment_users_seed_key_idx \(key_id=\?\)/],
			[DELETE_SEEDED_USERS, /SEARCH log_issue_environment_users_seed USING INTEGER PRIMARY KEY \(rowid=\?\)/],
		] as const) {
			const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(...(sql === SEEDED_USERS ? ["k", 1000] : ["[1]"])).all<{ detail: string }>();
			const steps = results.map((row) => row.detail).join("\n");
			expect(steps).toMatch(search);
			expect(steps).not.toMatch(/SCAN log_issue_environment_users_seed\b/);
		}
	});

	describe("the issue list: a page is one walk of its order's index from the cursor, never a sort of the key's issues", () => {
		const position = { last_seen: [1, "a".repeat(32)], first_seen: [1, "a".repeat(32)], count: [5, 1, "a".repeat(32)], users: [5, 1, "a".repeat(32)] };
		const filterSets = {
			"": {},
			", release and text": { release: "1.0.0", q: "checkout" },
			", one environment": { environment: "production" },
			", every filter": { environment: "production", release: "1.0.0", q: "checkout" },
		};
		const cases = ISSUE_SORTS.flatMap((sort) =>
			[undefined, "open" as const].flatMap((status) =>
				[false, true].flatMap((paged) =>
					Object.entries(filterSets).map(([name, filtered]) => [`${sort}${status ? ", by status" : ""}${paged ? ", after a cursor" : ""}${name}`, { sort, status, paged, filtered }] as const),
				),
			),
		);
		// Filtered by environment, the walk is of that environment's rows, each issue then found by its key.
		it.for(cases)("%s", async ([, { sort, status, paged, filtered }], { expect }) => {
			const filters = { sort, status, limit: 101, after: paged ? { sort, values: position[sort] } : undefined, ...filtered };
			const { sql, params } = issueListQuery(env, { keyId: "k", userId: "u" }, filters).toSQL();
			const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(...params).all<{ detail: string }>();
			const steps = results.map((row) => row.detail).join("\n");
			// The event and user counts tie-break by last seen, then the hash; the times by the hash.
			const byFigure = sort === "count" || sort === "users";
			const range = paged ? ` AND \\(${byFigure ? `${sort},last_seen,group_hash` : `${sort},group_hash`}\\)<\\(\\?,\\?${byFigure ? ",\\?" : ""}\\)` : "";
			if ("environment" in filtered) {
				const walk = `SEARCH log_issue_environments USING INDEX log_issue_environments_key_env_${sort}_idx \\(key_id=\\? AND environment=\\?${range}\\)`;
				expect(steps).toMatch(new RegExp(`${walk}\nSEARCH log_issues USING INDEX sqlite_autoindex_log_issues_1 \\(key_id=\\? AND group_hash=\\?\\)`));
			} else {
				const index = `log_issues_key_${status ? "status_" : ""}${sort}_idx`;
				expect(steps).toMatch(new RegExp(`SEARCH log_issues USING INDEX ${index} \\(key_id=\\?${status ? " AND status=\\?" : ""}${range}\\)`));
			}
			expect(steps).not.toMatch(/SCAN (log_issues|log_issue_environments)\b|TEMP B-TREE/);
		});

		// Sorted by count, the count is a range of that index. Sorted otherwise, as for a period, SQLite
		// walks that order's index checking each issue's count, or sorts the issues of the count's range
		// (all of them at worst): either way never a scan.
		it.for([undefined, "production"])("timesSeen: (environment %s): a range of the count index, or a walk of the order's", async (environment, { expect }) => {
			for (const sort of ISSUE_SORTS) {
				const { sql, params } = issueListQuery(env, { keyId: "k", userId: "u" }, { environment, sort, times_seen: { op: ">", count: 100 }, limit: 101 }).toSQL();
				const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(...params).all<{ detail: string }>();
				const steps = results.map((row) => row.detail).join("\n");
				const [table, index] = environment ? ["log_issue_environments", "log_issue_environments_key_env_count_idx"] : ["log_issues", "log_issues_key_count_idx"];
				if (sort === "count") {
					expect(steps).toMatch(new RegExp(`SEARCH ${table} USING INDEX ${index} \\(key_id=\\?${environment ? " AND environment=\\?" : ""} AND count>\\?\\)`));
					expect(steps).not.toMatch(/TEMP B-TREE/);
				}
				expect(steps, sort).toMatch(new RegExp(`SEARCH ${table} USING INDEX`));
				expect(steps, sort).not.toMatch(/SCAN (log_issues|log_issue_environments)\b/);
			}
		});

		it.for([undefined, "production"])("one person's issues (environment %s): each looked up by its key, never a walk of the key's issues", async (environment, { expect }) => {
			const { sql, params } = issueListQuery(env, { keyId: "k", userId: "u" }, { environment, status: "open", limit: 101 }, ["b".repeat(32), "c".repeat(32)]).toSQL();
			const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(...params).all<{ detail: string }>();
			const steps = results.map((row) => row.detail).join("\n");
			expect(steps).toMatch(/SEARCH log_issues USING INDEX (sqlite_autoindex_log_issues_1 \(key_id=\? AND group_hash=\?\)|log_issues_key_status_last_seen_idx \(key_id=\? AND status=\?\))/);
			expect(steps).not.toMatch(/SCAN (log_issues|log_issue_environments)\b/);
		});

		// Sorted otherwise, SQLite walks that order's index checking each issue's last seen, or sorts the
		// issues of the period's range (all of them at worst): either way never a scan.
		it.for([undefined, "production"])("issues seen within a period (environment %s): a range of the last-seen index", async (environment, { expect }) => {
			const [table, index] = environment ? ["log_issue_environments", "log_issue_environments_key_env_last_seen_idx"] : ["log_issues", "log_issues_key_last_seen_idx"];
			for (const sort of ISSUE_SORTS) {
				const { sql, params } = issueListQuery(env, { keyId: "k", userId: "u" }, { environment, sort, seenSince: 1, limit: 101 }).toSQL();
				const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(...params).all<{ detail: string }>();
				const steps = results.map((row) => row.detail).join("\n");
				if (sort === "last_seen") {
					expect(steps).toMatch(new RegExp(`SEARCH ${table} USING INDEX ${index} \\(key_id=\\?${environment ? " AND environment=\\?" : ""} AND last_seen>\\?\\)`));
					expect(steps).not.toMatch(/TEMP B-TREE/);
				}
				expect(steps, sort).toMatch(new RegExp(`SEARCH ${table} USING INDEX`));
				expect(steps, sort).not.toMatch(/SCAN (log_issues|log_issue_environments)\b/);
			}
		});

		it("a search by an event's own id: its issue found by one search of the event id index, never a scan of the key's events", async ({ expect }) => {
			const { sql, params } = issueListQuery(env, { keyId: "k", userId: "u" }, { q: "a".repeat(32), limit: 101 }).toSQL();
			const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(...params).all<{ detail: string }>();
			const steps = results.map((row) => row.detail).join("\n");
			expect(steps).toMatch(/SEARCH log_events USING INDEX log_events_key_event_id_idx \(key_id=\? AND <expr>=\?\)/);
			expect(steps).toMatch(/SEARCH log_issues USING INDEX log_issues_key_last_seen_idx \(key_id=\?\)/);
			expect(steps).not.toMatch(/SCAN log_events\b|SCAN log_issues\b|TEMP B-TREE/);
		});

		it.for([undefined, "production"])("an issue's newest events (environment %s): a walk of the issue's events in their index, never a scan", async (environment, { expect }) => {
			const { sql, params } = issueEvents(env, { keyId: "k", userId: "u" }, "a".repeat(32), { environment }).toSQL();
			const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(...params).all<{ detail: string }>();
			const steps = results.map((row) => row.detail).join("\n");
			expect(steps).toMatch(/SEARCH log_events USING INDEX log_events_key_group_timestamp_env_idx \(key_id=\? AND group_hash=\?\)/);
			expect(steps).not.toMatch(/SCAN log_events\b/);
		});

		it("an event by its id: the stored id found by the primary key, an SDK's by the event id index, never a walk of the key's events", async ({ expect }) => {
			const { sql, params } = eventsByIdQuery(env, { keyId: "k", userId: "u" }, "a".repeat(32)).toSQL();
			const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(...params).all<{ detail: string }>();
			const steps = results.map((row) => row.detail).join("\n");
			expect(steps).toMatch(/SEARCH log_events USING INDEX sqlite_autoindex_log_events_1 \(id=\?\)/);
			expect(steps).toMatch(/SEARCH log_events USING INDEX log_events_key_event_id_idx \(key_id=\? AND <expr>=\?\)/);
			expect(steps).not.toMatch(/SCAN log_events\b|\(key_id=\?\)/);
		});

		it.for([undefined, "production"])("a search of an issue's events (environment %s): one walk of its index, each event read by rowid, no sort but of ties", async (environment, { expect }) => {
			const search = { tags: [{ key: "browser.name", value: "Chrome" }], user: "u", text: "x" };
			const plan = await database(env).all<{ id: number; parent: number; detail: string }>(
				sql`EXPLAIN QUERY PLAN ${issueEventSearchQuery({ keyId: "k", userId: "u" }, "a".repeat(32), search, { environment })}`,
			);
			const steps = plan.map((row) => row.detail).join("\n");
			expect(steps).toMatch(/SEARCH log_events USING INDEX log_events_key_group_timestamp_env_idx \(key_id=\? AND group_hash=\?\)/);
			expect(steps.match(/SEARCH (log_events|e) USING INTEGER PRIMARY KEY \(rowid=\?\)/g)).toHaveLength(2);
			expect(steps).not.toMatch(/SCAN log_events\b/);
			// The walk comes in the index's order: at most the events of one time are sorted, by id.
			const walk = plan.find((row) => row.detail === "MATERIALIZE walked");
			expect(plan.filter((row) => row.parent === walk?.id).map((row) => row.detail)).not.toContain("USE TEMP B-TREE FOR ORDER BY");
		});

		it("a merge in D1: each merged issue's rows found by their keys, never a scan", async ({ expect }) => {
			const plans = [...MOVES, ...DELETES, SET_ENVIRONMENT_USERS].map(async (statement) => {
				const binds = ["k", '["a","b"]', "c", '[["production",2]]'].slice(0, Math.max(...[...statement.matchAll(/\?(\d)/g)].map((m) => Number(m[1]))));
				const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${statement}`).bind(...binds).all<{ detail: string }>();
				return results.map((row) => row.detail).join("\n");
			});
			const [events, environments, tags, ...rest] = await Promise.all(plans);
			expect(events).toMatch(/SEARCH log_events USING (COVERING )?INDEX log_events_key_group_timestamp_env_idx \(key_id=\? AND group_hash=\?\)/);
			expect(environments).toMatch(/SEARCH log_issue_environments USING PRIMARY KEY \(key_id=\? AND group_hash=\?\)/);
			expect(tags).toMatch(/SEARCH log_issue_tags USING PRIMARY KEY \(key_id=\? AND group_hash=\?\)/);
			for (const plan of [events, environments, tags, ...rest]) expect(plan).not.toMatch(/SCAN (log_events|log_issue_environments|log_issue_tags|log_issues)\b/);
		});

		it("an unmerge in D1, and what it reads: the issue's events found by their keys, its merged ones by their fingerprint, never a scan", async ({ expect }) => {
			const planOf = async (statement: string, ...binds: unknown[]) => {
				const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${statement}`).bind(...binds).all<{ detail: string }>();
				return results.map((row) => row.detail).join("\n");
			};
			const fingerprints = '["a","b"]';
			const moveBack = await planOf(MOVE_BACK, "k", fingerprints, "c");
			expect(moveBack).toMatch(/SEARCH log_events USING (COVERING )?INDEX log_events_key_group_fingerprint_idx \(key_id=\? AND group_hash=\? AND fingerprint_hash=\?\)/);
			const merged = await planOf(MERGED_FINGERPRINTS, "k", "c", fingerprints);
			expect(merged).toMatch(/SEARCH log_events USING COVERING INDEX log_events_key_group_fingerprint_idx \(key_id=\? AND group_hash=\? AND fingerprint_hash=\?\)/);
			expect(merged).toMatch(/SEARCH e USING INTEGER PRIMARY KEY \(rowid=\?\)/);
			const recounts = [await planOf(ENVIRONMENT_RECOUNT, "k", '[["c","production",2]]'), await planOf(TAG_RECOUNT, "k", fingerprints)];
			const reads = await Promise.all(Object.values(STORED_QUERIES).map((query) => planOf(query, "k", fingerprints, "c")));
			for (const plan of [...recounts, ...reads]) expect(plan).toMatch(/SEARCH (log_events|e) USING (COVERING )?INDEX log_events_key_group_timestamp_env_idx \(key_id=\? AND group_hash=\?\)/);
			for (const plan of [moveBack, merged, ...recounts, ...reads]) expect(plan).not.toMatch(/SCAN (log_events|e)\b/);
			const unhandled = await planOf(UNHANDLED_RECOUNT, "k", '["c","a"]');
			expect(unhandled).toMatch(/SEARCH log_issues USING (COVERING )?INDEX sqlite_autoindex_log_issues_1 \(key_id=\? AND group_hash=\?\)/);
			expect(unhandled).toMatch(/SEARCH t USING (PRIMARY KEY|(COVERING )?INDEX log_issue_tags_key_tag_value_idx) \(key_id=\? AND (group_hash=\?|tag_key=\? AND value=\? AND group_hash=\?)\)/);
			expect(unhandled).toMatch(/SEARCH e USING (COVERING )?INDEX log_events_key_group_\w+ \(key_id=\? AND group_hash=\?\)/);
			expect(unhandled).not.toMatch(/SCAN (log_issues|t|e)\b/);
			expect(unhandled).not.toMatch(/\(key_id=\? AND tag_key=\?\)/);
		});

		it("an issue's user feedback: the project's feedback by its index, newest first, each one's event by its id's index, never a scan", async ({ expect }) => {
			const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${ISSUE_FEEDBACK}`).bind("u", "p", "k", "a".repeat(32), 100).all<{ detail: string }>();
			const steps = results.map((row) => row.detail).join("\n");
			expect(steps).toMatch(/SEARCH f USING INDEX feedback_owner_project_created_idx \(user_id=\? AND project_name=\?\)/);
			expect(steps).toMatch(/SEARCH e (EXISTS )?USING INDEX log_events_key_event_id_idx \(key_id=\? AND <expr>=\?\)/);
			// Ties of created_at are put in id order among themselves, as the feedback list's are; never a sort of the whole walk.
			expect(steps).not.toMatch(/SCAN (f|e)\b|USE TEMP B-TREE FOR ORDER BY/);
		});

		it.for([null, "production"])("an issue's first and last release (environment %s): its own rows by their primary key, never a scan", async (environment, { expect }) => {
			const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${ISSUE_RELEASES}`).bind("k", "a".repeat(32), environment).all<{ detail: string }>();
			const steps = results.map((row) => row.detail).join("\n");
			expect(steps).toMatch(/SEARCH log_issue_tags USING PRIMARY KEY \(key_id=\? AND group_hash=\?/);
			expect(steps).not.toMatch(/SCAN log_issue_tags\b/);
		});

		it.for([null, "production"])("an issue's tags (environment %s): its own rows of log_issue_tags by their primary key, never a scan", async (environment, { expect }) => {
			const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${ISSUE_TAGS}`).bind("k", "a".repeat(32), environment, 10).all<{ detail: string }>();
			const steps = results.map((row) => row.detail).join("\n");
			expect(steps).toMatch(/SEARCH log_issue_tags USING PRIMARY KEY \(key_id=\? AND group_hash=\?\)/);
			expect(steps).not.toMatch(/SCAN log_issue_tags\b/);
		});

		it.for([undefined, "production"])("a tag search (environment %s): the tag's value found by a search of its index, never a scan of the tags", async (environment, { expect }) => {
			for (const [value, search] of [
				["Chrome", "value=\\?"],
				["Chrome*", "value>\\? AND value<\\?"],
				["*Chrome", ""],
				[undefined, ""],
				// Sentry's list: each of its values by the index; with a pattern among them, the tag's range.
				[["Chrome", "Firefox"], "value=\\?"],
				[["Chrome", "Fire*"], ""],
			] as const) {
				const { sql, params } = issueListQuery(env, { keyId: "k", userId: "u" }, { environment, tags: [{ key: "browser.name", value: typeof value === "string" ? value : value && [...value] }], limit: 101 }).toSQL();
				const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(...params).all<{ detail: string }>();
				const steps = results.map((row) => row.detail).join("\n");
				expect(steps, String(value)).toMatch(new RegExp(`SEARCH log_issue_tags USING COVERING INDEX log_issue_tags_key_tag_value_idx \\(key_id=\\? AND tag_key=\\?${search ? ` AND ${search}` : ""}\\)`));
				expect(steps, String(value)).not.toMatch(/SCAN (log_issue_tags|log_issues|log_issue_environments)\b/);
			}
		});

		it.for([undefined, "production"])("firstRelease: (environment %s): the release's issues by the tag index, each one's first release by its primary key", async (environment, { expect }) => {
			for (const [release, search] of [
				["2.0.0", "value=\\?"],
				["2.*", "value>\\? AND value<\\?"],
			]) {
				const { sql, params } = issueListQuery(env, { keyId: "k", userId: "u" }, { environment, first_release: release, limit: 101 }).toSQL();
				const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(...params).all<{ detail: string }>();
				const steps = results.map((row) => row.detail).join("\n");
				expect(steps, release).toMatch(new RegExp(`SEARCH log_issue_tags USING COVERING INDEX log_issue_tags_key_tag_value_idx \\(key_id=\\? AND tag_key=\\? AND ${search}\\)`));
				expect(steps, release).toMatch(/SEARCH log_issue_tags USING PRIMARY KEY \(key_id=\? AND group_hash=\?/);
				expect(steps, release).not.toMatch(/SCAN (log_issue_tags|log_issues|log_issue_environments)\b/);
			}
		});

		it.for([undefined, "production"])("a negated tag search (environment %s): each issue's own rows by their primary key, never a scan nor the tag's index", async (environment, { expect }) => {
			for (const value of ["Chrome", undefined]) {
				const { sql, params } = issueListQuery(env, { keyId: "k", userId: "u" }, { environment, tags: [{ key: "browser.name", value, negated: true }], limit: 101 }).toSQL();
				const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(...params).all<{ detail: string }>();
				const steps = results.map((row) => row.detail).join("\n");
				const search = environment ? "key_id=\\? AND group_hash=\\? AND environment=\\?" : "key_id=\\? AND group_hash=\\?";
				expect(steps, String(value)).toMatch(new RegExp(`SEARCH log_issue_tags USING PRIMARY KEY \\(${search}\\)`));
				expect(steps, String(value)).not.toMatch(/SCAN (log_issue_tags|log_issues|log_issue_environments)\b/);
				// The tag's index would walk every issue's rows of the tag for each issue: 13 s for 10,000 issues.
				expect(steps, String(value)).not.toContain("log_issue_tags_key_tag_value_idx");
			}
		});

		it("an issue in one environment: its row found by its key, and the environment's row by its primary key", async ({ expect }) => {
			const { sql, params } = findIssueQuery(env, { keyId: "k", userId: "u" }, "a".repeat(32), "production").toSQL();
			const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(...params).all<{ detail: string }>();
			const steps = results.map((row) => row.detail).join("\n");
			expect(steps).toMatch(/SEARCH log_issues USING INDEX sqlite_autoindex_log_issues_1 \(key_id=\? AND group_hash=\?\)/);
			expect(steps).toMatch(/SEARCH log_issue_environments USING PRIMARY KEY \(key_id=\? AND group_hash=\? AND environment=\?\)/);
			expect(steps).not.toMatch(/SCAN (log_issues|log_issue_environments)\b/);
		});

		it("the environments or releases its filters offer: a walk of their index, newest first", async ({ expect }) => {
			const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${ISSUE_NAMES}`).bind("k", "release", 1000).all<{ detail: string }>();
			const steps = results.map((row) => row.detail).join("\n");
			expect(steps).toMatch(/SEARCH log_issue_names USING INDEX log_issue_names_key_kind_last_seen_idx \(key_id=\? AND kind=\?\)/);
			expect(steps).not.toMatch(/SCAN log_issue_names\b|TEMP B-TREE/);
		});

		it("the clean-up's delete of a key's expired names: a search of their index", async ({ expect }) => {
			const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${DELETE_EXPIRED_ISSUE_NAMES}`).bind(0, "k").all<{ detail: string }>();
			const steps = results.map((row) => row.detail).join("\n");
			expect(steps).toMatch(/SEARCH log_issue_names USING (COVERING )?INDEX log_issue_names_key_kind_last_seen_idx \(key_id=\? AND kind=\? AND last_seen<\?\)/);
			expect(steps).not.toMatch(/SCAN log_issue_names\b/);
		});
	});

	it("one person's issues: a search of each user expression index, never a scan of the key's events", async ({ expect }) => {
		const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${ISSUES_OF_USER}`).bind("k", "ana@example.com").all<{ detail: string }>();
		const steps = results.map((row) => row.detail).join("\n");
		expect(steps).toMatch(/SEARCH log_events USING INDEX log_events_key_user_id_idx \(key_id=\? AND <expr>=\?\)/);
		expect(steps).toMatch(/SEARCH log_events USING INDEX log_events_key_user_email_idx \(key_id=\? AND <expr>=\?\)/);
		expect(steps).not.toMatch(/SCAN log_events\b/);
	});

	it("the clean-up's delete of one key's expired issues' rows per environment: a walk of the issues' index from the oldest, their rows searched by key", async ({
		expect,
	}) => {
		const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${DELETE_EXPIRED_ISSUE_ENVIRONMENTS}`).bind(0, 1000, "k").all<{ detail: string }>();
		const steps = results.map((row) => row.detail).join("\n");
		expect(steps).toMatch(/SEARCH i USING COVERING INDEX log_issues_key_last_seen_idx \(key_id=\? AND last_seen<\?\)\nSEARCH e USING PRIMARY KEY \(key_id=\? AND group_hash=\?\)/);
		expect(steps).toMatch(/SEARCH log_issue_environments USING PRIMARY KEY \(key_id=\? AND group_hash=\?/);
		expect(steps).not.toMatch(/SCAN (log_issues|log_issue_environments|i|e)\b|TEMP B-TREE/);
	});
});
