import { createScheduledController, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, it, vi } from "vitest";
import { RETENTION_DAYS, RETENTION_LIMITS } from "../domain/limits";
import worker from "../workers/index";
import { unique } from "./helpers";
import { ingestOk, issueGrouper, listIssues, ownerWithLogKey, readIssue } from "./logHelpers";

/*
 * The clean-up deletes across every site and key, and D1 is shared by the tests of this file. So
 * each test works in its own era: its rows and its runs' scheduled times sit two years (more than
 * any default retention) before the previous test's, so a run never reaches back to rows a later
 * test has not written yet, nor forward to rows an earlier test kept. The test on real ingestion
 * runs first, at the present.
 */
const DAY_MS = 24 * 60 * 60 * 1000;
let eras = 0;
const nextEra = () => Date.UTC(2020 - 2 * ++eras, 0, 1);

/** Runs the Worker's own scheduled handler as the cron trigger would, at `scheduledTime`. */
function runCleanUp(scheduledTime: number, overrides: Record<string, unknown> = {}) {
	return worker.scheduled(createScheduledController({ scheduledTime, cron: "*/15 * * * *" }), { ...env, ...overrides } as Env);
}

/** The D1 binding, with `onPrepare` seeing every statement prepared through it first. */
function watchedDatabase(onPrepare: (sql: string) => void): D1Database {
	return new Proxy(env.DB, {
		get(target, property) {
			if (property === "prepare") {
				return (sql: string) => {
					onPrepare(sql);
					return target.prepare(sql);
				};
			}
			const value = Reflect.get(target, property);
			return typeof value === "function" ? value.bind(target) : value;
		},
	});
}

function countingDatabase() {
	const counter = { statements: 0 };
	return { counter, db: watchedDatabase(() => counter.statements++) };
}

const ids = async (sql: string, ...binds: unknown[]) =>
	(await env.DB.prepare(sql).bind(...binds).all<{ id: string }>()).results.map((row) => row.id).sort();

function insertEvents(trackingId: string, timestamps: Record<string, number>) {
	return env.DB.batch(
		Object.entries(timestamps).map(([eventId, ts]) =>
			env.DB.prepare("INSERT INTO analytics_events (tracking_id, event_id, ts, visitor_id) VALUES (?, ?, ?, 'v')").bind(trackingId, eventId, ts),
		),
	);
}

/** Log events that happened at the times given, received then or all at `receivedAt`: they expire by when they happened. */
function insertLogEvents(keyId: string, timestamps: Record<string, number>, receivedAt?: number) {
	return env.DB.batch(
		Object.entries(timestamps).map(([id, ts]) =>
			env.DB.prepare(
				"INSERT INTO log_events (id, key_id, group_hash, received_at, timestamp, level, event) VALUES (?, ?, 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', ?, ?, 'error', '{}')",
			).bind(id, keyId, receivedAt ?? ts, ts),
		),
	);
}

const eventIds = (trackingId: string) => ids("SELECT event_id AS id FROM analytics_events WHERE tracking_id = ?", trackingId);
const logEventIds = (keyId: string) => ids("SELECT id FROM log_events WHERE key_id = ?", keyId);

afterEach(() => {
	vi.restoreAllMocks();
});

describe("log issues", () => {
	it("an issue outlives its expired events with its counters; one last seen before the cutoff is forgotten, in D1 and in its ProjectCollector", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const kept = await ingestOk(owner.rawKey, { message: "retention: kept issue", user: { id: "u1" }, environment: "production" });
		await ingestOk(owner.rawKey, { message: "retention: kept issue", user: { id: "u2" } });
		const expired = await ingestOk(owner.rawKey, { message: "retention: expired issue", user: { id: "u3" }, environment: "production" });
		const boundary = await ingestOk(owner.rawKey, { message: "retention: issue on the boundary" });
		expect((await listIssues(owner.token, { project_name: owner.projectName })).status).toBe(200); // moves everything to D1

		const now = Date.now() + 1_000;
		const cutoff = now - RETENTION_DAYS.logs.default * DAY_MS;
		const age = async (groupHash: string, lastSeen: number) => {
			await runInDurableObject(issueGrouper(owner.keyId), (_, state) => {
				state.storage.sql.exec("UPDATE groups SET first_seen = ?1, last_seen = ?1 WHERE hash = ?2", lastSeen, groupHash);
			});
			await env.DB.batch([
				env.DB.prepare("UPDATE log_issues SET first_seen = ?1, last_seen = ?1 WHERE key_id = ?2 AND group_hash = ?3").bind(lastSeen, owner.keyId, groupHash),
				env.DB.prepare("UPDATE log_events SET received_at = ?1, timestamp = ?1 WHERE key_id = ?2 AND group_hash = ?3").bind(lastSeen, owner.keyId, groupHash),
			]);
		};
		await age(expired.group_hash, cutoff - 1);
		await age(boundary.group_hash, cutoff);
		// The kept issue's first event expires; its second, and the issue, stay.
		const [firstKept] = (
			await env.DB.prepare("SELECT id FROM log_events WHERE key_id = ? AND group_hash = ? ORDER BY timestamp, id LIMIT 1").bind(owner.keyId, kept.group_hash).all<{ id: string }>()
		).results;
		await env.DB.prepare("UPDATE log_events SET received_at = ?1, timestamp = ?1 WHERE id = ?2").bind(cutoff - 1, firstKept.id).run();

		await runCleanUp(now);

		const listed = (await (await listIssues(owner.token, { project_name: owner.projectName })).json<any>()).issues;
		expect(listed.map((i: any) => [i.group_hash, i.count, i.users]).sort()).toEqual(
			[
				[kept.group_hash, 2, 2],
				[boundary.group_hash, 1, 0],
			].sort(),
		);
		const keptDetail = await (await readIssue(owner.token, owner.projectName, kept.group_hash)).json<any>();
		expect(keptDetail.events).toHaveLength(1);
		expect(keptDetail.events[0].id).not.toBe(firstKept.id);
		expect((await readIssue(owner.token, owner.projectName, expired.group_hash)).status).toBe(404);
		expect(await env.DB.prepare("SELECT count(*) AS n FROM log_events WHERE key_id = ? AND group_hash = ?").bind(owner.keyId, expired.group_hash).first("n")).toBe(0);

		// Its figures per environment go with it; the kept issue's stay.
		expect(await ids("SELECT group_hash AS id FROM log_issue_environments WHERE key_id = ?", owner.keyId)).toEqual([kept.group_hash]);

		const remembered = await runInDurableObject(issueGrouper(owner.keyId), (_, state) => {
			const hashesIn = (table: string) => state.storage.sql.exec<{ hash: string }>(`SELECT DISTINCT hash FROM ${table} ORDER BY hash`).toArray().map((r) => r.hash);
			return { groups: hashesIn("groups"), users: hashesIn("group_users"), environmentUsers: hashesIn("group_environment_users") };
		});
		expect(remembered.groups).toEqual([kept.group_hash, boundary.group_hash].sort());
		expect(remembered.users).toEqual([kept.group_hash]);
		expect(remembered.environmentUsers).toEqual([kept.group_hash]);

		// Forgotten: the fingerprint is a new issue again, counted from one, in its environment too.
		const again = await ingestOk(owner.rawKey, { message: "retention: expired issue", user: { id: "u3" }, environment: "production" });
		expect(again).toMatchObject({ group_hash: expired.group_hash, is_new: true });
		const revived = await (await readIssue(owner.token, owner.projectName, expired.group_hash)).json<any>();
		expect(revived).toMatchObject({ count: 1, users: 1 });
		const inProduction = (await (await listIssues(owner.token, { project_name: owner.projectName, environment: "production" })).json<any>()).issues;
		expect(inProduction.find((i: any) => i.group_hash === expired.group_hash)).toMatchObject({ count: 1, users: 1 });
	});
});

describe("what each run deletes", () => {
	it("exactly the rows older than each retention: a row at the cutoff, or a millisecond inside, stays; feedback never expires", async ({ expect }) => {
		const now = nextEra();
		const analyticsCutoff = now - RETENTION_DAYS.analytics.default * DAY_MS;
		const crawlerCutoff = now - RETENTION_DAYS.crawler.default * DAY_MS;
		const logCutoff = now - RETENTION_DAYS.logs.default * DAY_MS;
		const site = unique("s");
		const owner = await ownerWithLogKey();
		const around = (cutoff: number) => ({ old: cutoff - 1, edge: cutoff, inside: cutoff + 1 });

		await insertEvents(site, around(analyticsCutoff));
		await env.DB.batch(
			Object.entries(around(analyticsCutoff)).map(([visitor, lastSeen]) =>
				env.DB.prepare("INSERT INTO analytics_identities (tracking_id, visitor_id, distinct_id, first_seen, last_seen) VALUES (?, ?, 'user-1', ?, ?)").bind(
					site,
					visitor,
					lastSeen - DAY_MS,
					lastSeen,
				),
			),
		);
		// Rollup rows by the start of their hour or day.
		await env.DB.batch(
			Object.entries(around(analyticsCutoff)).map(([value, start]) =>
				env.DB.prepare("INSERT INTO analytics_rollups (tracking_id, dim, span, start, value, pageviews) VALUES (?, 'pages', 3600000, ?, ?, 1)").bind(site, start, value),
			),
		);
		await env.DB.batch(
			Object.entries(around(crawlerCutoff)).map(([id, ts]) =>
				env.DB.prepare("INSERT INTO crawler_visits (id, tracking_id, ts, crawler, url_path, status, ua) VALUES (?, ?, ?, 'GPTBot', '/', 200, 'GPTBot/1.0')").bind(
					`${site}-${id}`,
					site,
					ts,
				),
			),
		);
		await env.DB.batch(
			Object.entries(around(crawlerCutoff)).map(([value, start]) =>
				env.DB.prepare("INSERT INTO crawler_rollups (tracking_id, dim, span, start, value, visits) VALUES (?, 'paths', 3600000, ?, ?, 1)").bind(site, start, value),
			),
		);
		await insertLogEvents(owner.keyId, { [`${site}-old`]: logCutoff - 1, [`${site}-edge`]: logCutoff, [`${site}-inside`]: logCutoff + 1 }, now);
		// Issues only in D1, none in the ProjectCollector: the D1 rows still go by last_seen.
		await env.DB.batch(
			Object.entries(around(logCutoff)).map(([name, lastSeen]) =>
				env.DB.prepare(
					"INSERT INTO log_issues (key_id, group_hash, user_id, title, level, count, users, first_seen, last_seen, environments, releases) VALUES (?, ?, ?, ?, 'error', 1, 0, ?, ?, '[]', '[]')",
				).bind(owner.keyId, name.padEnd(32, "0"), owner.user.id, name, lastSeen, lastSeen),
			),
		);
		// Tag values by when the last event that carried them happened.
		await env.DB.batch(
			Object.entries(around(logCutoff)).map(([value, lastSeen]) =>
				env.DB.prepare(
					"INSERT INTO log_issue_tags (key_id, group_hash, environment, tag_key, value, count, first_seen, last_seen) VALUES (?, ?, '', 'route', ?, 1, ?, ?)",
				).bind(owner.keyId, "e".repeat(32), value, lastSeen, lastSeen),
			),
		);
		// A session is expired at its expires_at: that row goes, one a millisecond later stays.
		await env.DB.batch(
			Object.entries({ old: now - 1, edge: now, inside: now + 1 }).map(([name, expiresAt]) =>
				env.DB.prepare("INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)").bind(
					`${site}-${name}`,
					owner.user.id,
					expiresAt - 30 * DAY_MS,
					expiresAt,
				),
			),
		);
		await env.DB.prepare("INSERT INTO feedback (id, user_id, project_name, type, status, data, created_at) VALUES (?, ?, ?, 'issue', 'open', '{}', ?)")
			.bind(`${site}-feedback`, owner.user.id, owner.projectName, now - 20 * 365 * DAY_MS)
			.run();

		await runCleanUp(now);

		expect(await eventIds(site)).toEqual(["edge", "inside"]);
		expect(await ids("SELECT visitor_id AS id FROM analytics_identities WHERE tracking_id = ?", site)).toEqual(["edge", "inside"]);
		expect(await ids("SELECT value AS id FROM analytics_rollups WHERE tracking_id = ?", site)).toEqual(["edge", "inside"]);
		expect(await ids("SELECT id FROM crawler_visits WHERE tracking_id = ?", site)).toEqual([`${site}-edge`, `${site}-inside`]);
		expect(await ids("SELECT value AS id FROM crawler_rollups WHERE tracking_id = ?", site)).toEqual(["edge", "inside"]);
		expect(await logEventIds(owner.keyId)).toEqual([`${site}-edge`, `${site}-inside`]);
		expect(await ids("SELECT title AS id FROM log_issues WHERE key_id = ?", owner.keyId)).toEqual(["edge", "inside"]);
		expect(await ids("SELECT value AS id FROM log_issue_tags WHERE key_id = ?", owner.keyId)).toEqual(["edge", "inside"]);
		expect(await ids("SELECT token_hash AS id FROM sessions WHERE token_hash LIKE ?", `${site}-%`)).toEqual([`${site}-inside`]);
		expect(await ids("SELECT id FROM feedback WHERE user_id = ?", owner.user.id)).toEqual([`${site}-feedback`]);
	});

	it("a backlog larger than one run: each run stays within its bound, the next carries on, and other tables still get their turn", async ({ expect }) => {
		const now = nextEra();
		const cutoff = now - RETENTION_DAYS.analytics.default * DAY_MS;
		const logCutoff = now - RETENTION_DAYS.logs.default * DAY_MS;
		const site = unique("s");
		const owner = await ownerWithLogKey();
		const runBound = RETENTION_LIMITS.rowsPerStatement * RETENTION_LIMITS.operationsPerRun;
		const backlog = runBound + 1;
		await env.DB.prepare(
			`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?2)
			INSERT INTO analytics_events (tracking_id, event_id, ts, visitor_id) SELECT ?1, 'e' || i, ?3 - 1 - (i % 5000), 'v' FROM n`,
		)
			.bind(site, backlog, cutoff)
			.run();
		await insertEvents(site, { kept: cutoff });
		await insertLogEvents(owner.keyId, Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`${site}-${i}`, logCutoff - 1 - i])));
		const count = async () => Number(await env.DB.prepare("SELECT count(*) AS n FROM analytics_events WHERE tracking_id = ?").bind(site).first("n"));

		const first = countingDatabase();
		await runCleanUp(now, { DB: first.db });
		const afterFirst = await count();
		expect(first.counter.statements).toBeLessThanOrEqual(RETENTION_LIMITS.operationsPerRun);
		expect(backlog + 1 - afterFirst).toBeLessThanOrEqual(runBound);
		expect(afterFirst).toBeGreaterThan(1);
		expect(await logEventIds(owner.keyId)).toEqual([]);

		const second = countingDatabase();
		await runCleanUp(now, { DB: second.db });
		expect(second.counter.statements).toBeLessThanOrEqual(RETENTION_LIMITS.operationsPerRun);
		expect(await eventIds(site)).toEqual(["kept"]);

		// Nothing left: one statement per table (for the issues, the key lookup and no call).
		const idle = countingDatabase();
		await runCleanUp(now, { DB: idle.db });
		expect(idle.counter.statements).toBe(11);
	});
});

describe("source maps", () => {
	const rowsOf = (keyId: string) => ids("SELECT url AS id FROM artifacts WHERE key_id = ?", keyId);

	it("an artifact no event used within the log retention goes with its R2 object; one used at the cutoff, or since, stays", async ({ expect }) => {
		const now = nextEra();
		const cutoff = now - RETENTION_DAYS.logs.default * DAY_MS;
		const owner = await ownerWithLogKey();
		for (const [name, usedAt] of Object.entries({ old: cutoff - 1, edge: cutoff, inside: cutoff + 1 })) {
			const objectKey = `artifacts/${owner.keyId}/${name}`;
			await env.ARTIFACTS.put(objectKey, "{}");
			await env.DB.prepare(
				"INSERT INTO artifacts (id, key_id, release, url, type, object_key, size, created_at, used_at) VALUES (?, ?, '1.0.0', ?, 'source_map', ?, 2, ?, ?)",
			)
				.bind(crypto.randomUUID(), owner.keyId, `~/${name}.js.map`, objectKey, cutoff - 10 * DAY_MS, usedAt)
				.run();
		}
		const version = () => env.DB.prepare("SELECT artifacts_version AS v FROM project_keys WHERE id = ?").bind(owner.keyId).first<number>("v");
		const before = await version();

		await runCleanUp(now);

		expect(await rowsOf(owner.keyId)).toEqual(["~/edge.js.map", "~/inside.js.map"]);
		expect(await env.ARTIFACTS.get(`artifacts/${owner.keyId}/old`)).toBeNull();
		expect(await env.ARTIFACTS.get(`artifacts/${owner.keyId}/edge`)).not.toBeNull();
		expect(await version()).toBe((before ?? 0) + 1);
	});

	it("a chunk not assembled within 24 hours goes with its R2 object; one of exactly 24 hours stays", async ({ expect }) => {
		const now = nextEra();
		const owner = await ownerWithLogKey();
		for (const [checksum, createdAt] of Object.entries({ ["a".repeat(40)]: now - 24 * 3_600_000 - 1, ["b".repeat(40)]: now - 24 * 3_600_000 })) {
			await env.ARTIFACTS.put(`chunks/${owner.keyId}/${checksum}`, "x");
			await env.DB.prepare("INSERT INTO upload_chunks (key_id, checksum, size, created_at) VALUES (?, ?, 1, ?)").bind(owner.keyId, checksum, createdAt).run();
		}

		await runCleanUp(now);

		expect(await ids("SELECT checksum AS id FROM upload_chunks WHERE key_id = ?", owner.keyId)).toEqual(["b".repeat(40)]);
		expect(await env.ARTIFACTS.get(`chunks/${owner.keyId}/${"a".repeat(40)}`)).toBeNull();
		expect(await env.ARTIFACTS.get(`chunks/${owner.keyId}/${"b".repeat(40)}`)).not.toBeNull();
	});
});

it("a table whose delete fails does not stop the others; the run reports the failure", async ({ expect }) => {
	const now = nextEra();
	const site = unique("s");
	const cutoff = now - RETENTION_DAYS.analytics.default * DAY_MS;
	await insertEvents(site, { old: cutoff - 1, edge: cutoff });
	const failing = watchedDatabase((sql) => {
		if (sql.startsWith("DELETE FROM sessions")) throw new Error("D1 is having a bad day");
	});
	const error = vi.spyOn(console, "error").mockImplementation(() => {});
	await expect(runCleanUp(now, { DB: failing })).rejects.toThrow("clean-up failed for sessions; the next run tries again");
	expect(error).toHaveBeenCalledWith("clean-up of sessions failed:", expect.any(Error));
	expect(await eventIds(site)).toEqual(["edge"]);
});

describe("settings", () => {
	async function logRunAt(vars: Record<string, unknown>, days: number, now = nextEra()) {
		const owner = await ownerWithLogKey();
		const cutoff = now - days * DAY_MS;
		await insertLogEvents(owner.keyId, { [`${owner.keyId}-old`]: cutoff - 1, [`${owner.keyId}-edge`]: cutoff });
		await runCleanUp(now, vars);
		return logEventIds(owner.keyId);
	}

	it.for([["1", 1], ["30", 30], [" 30 ", 30], [30, 30], ["36500", 36_500]] as const)("LOG_RETENTION_DAYS=%j keeps %i days", async ([value, days], { expect }) => {
		const left = await logRunAt({ LOG_RETENTION_DAYS: value }, days);
		expect(left).toHaveLength(1);
		expect(left[0]).toMatch(/-edge$/);
	});

	it.for(["0", "36501", "1.5", "-3", "1e2", "abc", "", "  ", 0, 2.5, true, null])(
		"LOG_RETENTION_DAYS=%j falls back to the default, with one warning however often it runs",
		async (value, { expect }) => {
			const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
			const now = nextEra();
			const left = await logRunAt({ LOG_RETENTION_DAYS: value }, RETENTION_DAYS.logs.default, now);
			expect(left).toHaveLength(1);
			expect(left[0]).toMatch(/-edge$/);
			await runCleanUp(now, { LOG_RETENTION_DAYS: value });
			expect(warn).toHaveBeenCalledOnce();
			expect(warn.mock.calls[0][0]).toContain(`LOG_RETENTION_DAYS=${JSON.stringify(value)} is not a whole number of days from 1 to 36,500; keeping 90 days`);
		},
	);

	it("unset: the default, silently", async ({ expect }) => {
		const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
		const left = await logRunAt({ LOG_RETENTION_DAYS: undefined }, RETENTION_DAYS.logs.default);
		expect(left).toHaveLength(1);
		expect(warn).not.toHaveBeenCalled();
	});

	it("analytics and crawler visits each follow their own setting", async ({ expect }) => {
		const now = nextEra();
		const site = unique("s");
		const analyticsCutoff = now - 10 * DAY_MS;
		const crawlerCutoff = now - 20 * DAY_MS;
		await insertEvents(site, { old: analyticsCutoff - 1, edge: analyticsCutoff });
		await env.DB.batch(
			Object.entries({ old: crawlerCutoff - 1, edge: crawlerCutoff }).map(([id, ts]) =>
				env.DB.prepare("INSERT INTO crawler_visits (id, tracking_id, ts, crawler, url_path, status, ua) VALUES (?, ?, ?, 'GPTBot', '/', 200, 'GPTBot/1.0')").bind(
					`${site}-${id}`,
					site,
					ts,
				),
			),
		);
		await runCleanUp(now, { ANALYTICS_RETENTION_DAYS: "10", CRAWLER_RETENTION_DAYS: "20" });
		expect(await eventIds(site)).toEqual(["edge"]);
		expect(await ids("SELECT id FROM crawler_visits WHERE tracking_id = ?", site)).toEqual([`${site}-edge`]);
	});
});
