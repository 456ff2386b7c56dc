/**
 * D1 access for log issues and events: the ProjectCollector's multi-row writes, the owner's reads,
 * deletion with the project key, and the clean-up of what is older than the log retention.
 */
import { and, desc, eq, getTableColumns, sql } from "drizzle-orm";
import { logEvents, logIssueEnvironments, logIssueNames, logIssues, logIssueTags } from "../../schema";
import type { IssueStatus } from "../api/issues";
import { DAY_MS, HOUR_MS } from "../analytics/rollups";
import { database, deleteRows, expiredRowsDelete } from "../db";
import { packJsonArrays } from "../jsonRows";
import { LOG_LIMITS, OWNER_LIMITS } from "../limits";
import { ENVIRONMENT_ADDITIONS } from "./issueEnvironments";
import { anExceptionHandledIs, TAG_ADDITIONS } from "./issueTags";

/** An accepted event waiting in the ProjectCollector for its move to D1. */
export interface PendingEvent {
	id: string;
	groupHash: string;
	/** The issue the event's own fingerprint opens, when a merge gave it `groupHash`'s; else null. */
	fingerprintHash: string | null;
	receivedAt: number;
	timestamp: number;
	level: string;
	environment: string | null;
	release: string | null;
	/** The stored event document, already JSON. */
	eventJson: string;
	/**
	 * What the event adds to its issue's figures in its environment (log_issue_environments): the
	 * affected users it adds there (1 for a user not counted there before, else 0), or null when it
	 * counts in no environment (it has none, or one past the issue's first 100).
	 */
	environmentUsers: number | null;
}

/** An issue as the ProjectCollector holds it; written to D1 whole, so a repeated write is harmless. */
export interface IssueSnapshot {
	groupHash: string;
	title: string;
	culprit: string | null;
	level: string;
	status: IssueStatus;
	count: number;
	users: number;
	firstSeen: number;
	lastSeen: number;
	environments: string[];
	releases: string[];
	resolvedInRelease: string | null;
	/** Resolved in the release after `resolvedInRelease`: its events do not reopen it either. */
	resolvedInNextRelease: boolean;
	/** An event of the issue was unhandled. */
	unhandled: boolean;
	/** Ignored until this time (ms), this count or this many users: the event that reaches one reopens it. */
	ignoredUntil: number | null;
	ignoredUntilCount: number | null;
	ignoredUntilUsers: number | null;
	/** Ignored until escalating: the most events one hour may hold before the event that reopens it. */
	ignoredUntilEscalating: number | null;
	/** When an escalation reopened it (ms), until the owner's next status change. */
	escalatedAt: number | null;
	/** Its number in the project (shortId.ts); null for an issue its object has not numbered yet. */
	shortId: number | null;
}

export interface KeyOwner {
	keyId: string;
	userId: string;
}

// Rows travel as JSON arrays unpacked by json_each (see jsonRows.ts). An event is an array of its
// columns, its document a JSON string inside it: SQLite copies a string out, where an object
// spliced in would be parsed and written out again (a 500-event insert: 6.0 → 3.7 ms in node:sqlite).
const INSERT_EVENTS = `INSERT OR IGNORE INTO log_events
	(id, key_id, group_hash, received_at, timestamp, level, environment, release, event, fingerprint_hash)
	SELECT value ->> 0, ?1, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, value ->> 7, value ->> 9
	FROM json_each(?2)`;

// `WHERE true` keeps SQLite from reading ON CONFLICT as part of the SELECT's join. `unhandled` is
// only ever raised: an object from before the flag holds it unset for issues migration 0018 marked.
const UPSERT_ISSUES = `INSERT INTO log_issues
	(key_id, group_hash, user_id, title, culprit, level, status, count, users, first_seen, last_seen, environments, releases, resolved_in_release, resolved_in_next_release, unhandled,
		ignored_until, ignored_until_count, ignored_until_users, ignored_until_escalating, escalated_at, short_id)
	SELECT ?1, json_extract(value, '$.group_hash'), ?2, json_extract(value, '$.title'), json_extract(value, '$.culprit'),
		json_extract(value, '$.level'), json_extract(value, '$.status'), json_extract(value, '$.count'), json_extract(value, '$.users'),
		json_extract(value, '$.first_seen'), json_extract(value, '$.last_seen'), json_extract(value, '$.environments'),
		json_extract(value, '$.releases'), json_extract(value, '$.resolved_in_release'), json_extract(value, '$.resolved_in_next_release'), json_extract(value, '$.unhandled'),
		json_extract(value, '$.ignored_until'), json_extract(value, '$.ignored_until_count'), json_extract(value, '$.ignored_until_users'),
		json_extract(value, '$.ignored_until_escalating'), json_extract(value, '$.escalated_at'), json_extract(value, '$.short_id')
	FROM json_each(?3) WHERE true
	ON CONFLICT (key_id, group_hash) DO UPDATE SET
		title = excluded.title, culprit = excluded.culprit, level = excluded.level, status = excluded.status,
		count = excluded.count, users = excluded.users, first_seen = excluded.first_seen, last_seen = excluded.last_seen,
		environments = excluded.environments, releases = excluded.releases, resolved_in_release = excluded.resolved_in_release,
		resolved_in_next_release = excluded.resolved_in_next_release, unhandled = max(log_issues.unhandled, excluded.unhandled), ignored_until = excluded.ignored_until, ignored_until_count = excluded.ignored_until_count,
		ignored_until_users = excluded.ignored_until_users, ignored_until_escalating = excluded.ignored_until_escalating,
		escalated_at = excluded.escalated_at, short_id = coalesce(excluded.short_id, log_issues.short_id)`;

/**
 * Migration 0018: the issues whose stored events include an unhandled one (an exception of the
 * chain with `mechanism.handled: false`, as handledOf reads it), marked so: one pass over log_events.
 */
export const UNHANDLED_BACKFILL = `UPDATE log_issues SET unhandled = 1 FROM (
	SELECT DISTINCT key_id, group_hash FROM log_events
	WHERE ${anExceptionHandledIs(false)}
) AS u WHERE log_issues.key_id = u.key_id AND log_issues.group_hash = u.group_hash`;

/**
 * Migration 0020: events count at the time they happened (occurredAt); one stored before with a
 * timestamp more than 30 days before it was received, or after it, counts at the time received.
 */
export const EVENT_TIME_BACKFILL = `UPDATE log_events SET timestamp = received_at
	WHERE timestamp < received_at - ${LOG_LIMITS.pastTimestampMs} OR timestamp > received_at`;

// The names of the issues written, each with the latest last_seen of one holding it; a name
// only ever seen later (max), as an issue's last_seen only grows.
const UPSERT_NAMES = `INSERT INTO log_issue_names (key_id, kind, name, last_seen)
	SELECT ?1, value ->> 0, value ->> 1, value ->> 2 FROM json_each(?2) WHERE true
	ON CONFLICT (key_id, kind, name) DO UPDATE SET last_seen = max(last_seen, excluded.last_seen)`;

/** The distinct environments and releases of these issues, as [kind, name, latest last_seen] rows of JSON. */
function nameRows(issues: IssueSnapshot[]): string[] {
	const latest = new Map<string, [string, string, number]>();
	for (const issue of issues) {
		for (const [kind, names] of [["environment", issue.environments], ["release", issue.releases]] as const) {
			for (const name of names) {
				const known = latest.get(`${kind}:${name}`);
				if (!known || known[2] < issue.lastSeen) latest.set(`${kind}:${name}`, [kind, name, issue.lastSeen]);
			}
		}
	}
	return [...latest.values()].map((row) => JSON.stringify(row));
}

/** The statements that move pending events and changed issues to D1; run them as one batch (one transaction). */
export function writeStatements(db: D1Database, owner: KeyOwner, events: PendingEvent[], issues: IssueSnapshot[]): D1PreparedStatement[] {
	const eventRows = events.map((e) =>
		JSON.stringify([e.id, e.groupHash, e.receivedAt, e.timestamp, e.level, e.environment, e.release, e.eventJson, e.environmentUsers, e.fingerprintHash]),
	);
	const issueObjects = issues.map((i) =>
		JSON.stringify({
			group_hash: i.groupHash,
			title: i.title,
			culprit: i.culprit,
			level: i.level,
			status: i.status,
			count: i.count,
			users: i.users,
			first_seen: i.firstSeen,
			last_seen: i.lastSeen,
			environments: i.environments,
			releases: i.releases,
			resolved_in_release: i.resolvedInRelease,
			resolved_in_next_release: i.resolvedInNextRelease ? 1 : 0,
			unhandled: i.unhandled ? 1 : 0,
			ignored_until: i.ignoredUntil,
			ignored_until_count: i.ignoredUntilCount,
			ignored_until_users: i.ignoredUntilUsers,
			ignored_until_escalating: i.ignoredUntilEscalating,
			escalated_at: i.escalatedAt,
			short_id: i.shortId,
		}),
	);
	return [
		...packJsonArrays(issueObjects).map((rows) => db.prepare(UPSERT_ISSUES).bind(owner.keyId, owner.userId, rows)),
		...packJsonArrays(nameRows(issues)).map((rows) => db.prepare(UPSERT_NAMES).bind(owner.keyId, rows)),
		// Per chunk, the events D1 does not have yet counted into their environments and tags, then inserted.
		...packJsonArrays(eventRows).flatMap((rows) => [
			db.prepare(ENVIRONMENT_ADDITIONS).bind(owner.keyId, rows),
			db.prepare(TAG_ADDITIONS).bind(owner.keyId, rows),
			db.prepare(INSERT_EVENTS).bind(owner.keyId, rows),
		]),
	];
}

/** Everything a revoked key sent. */
export async function deleteKeyLogs(env: Env, keyId: string): Promise<void> {
	const db = database(env);
	await db.batch([
		db.delete(logEvents).where(eq(logEvents.keyId, keyId)),
		db.delete(logIssueEnvironments).where(eq(logIssueEnvironments.keyId, keyId)),
		db.delete(logIssueTags).where(eq(logIssueTags.keyId, keyId)),
		db.delete(logIssues).where(eq(logIssues.keyId, keyId)),
		db.delete(logIssueNames).where(eq(logIssueNames.keyId, keyId)),
	]);
}

// ---------------------------------------------------------------------------
// Owner reads. Every query is bounded to one key found through the signed-in owner.

export type IssueRow = typeof logIssues.$inferSelect;

/** An issue as it reads in one environment: its own columns, with its figures there. */
export const ISSUE_IN_ENVIRONMENT = {
	...getTableColumns(logIssues),
	count: logIssueEnvironments.count,
	users: logIssueEnvironments.users,
	firstSeen: logIssueEnvironments.firstSeen,
	lastSeen: logIssueEnvironments.lastSeen,
};

/** The owner's issue of the key by its hash. */
const issueCondition = (owner: KeyOwner, groupHash: string) =>
	and(eq(logIssues.keyId, owner.keyId), eq(logIssues.userId, owner.userId), eq(logIssues.groupHash, groupHash));

/**
 * The issue, or with `environment` the issue with its count, users, first and last seen there
 * (its row of log_issue_environments, as the list filtered by environment shows it); undefined
 * when there is no such issue, or it has no events in that environment.
 */
export async function findIssue(env: Env, owner: KeyOwner, groupHash: string, environment?: string): Promise<IssueRow | undefined> {
	if (environment === undefined) return database(env).query.logIssues.findFirst({ where: issueCondition(owner, groupHash) });
	const [row] = await findIssueQuery(env, owner, groupHash, environment);
	return row;
}

/** The issue with its figures in `environment`: its row, joined to its row there (none when it has no events there). */
export function findIssueQuery(env: Env, owner: KeyOwner, groupHash: string, environment: string) {
	return database(env)
		.select(ISSUE_IN_ENVIRONMENT)
		.from(logIssues)
		.innerJoin(
			logIssueEnvironments,
			and(eq(logIssueEnvironments.keyId, logIssues.keyId), eq(logIssueEnvironments.groupHash, logIssues.groupHash), eq(logIssueEnvironments.environment, environment)),
		)
		.where(issueCondition(owner, groupHash));
}

/** Of the issues named, those D1 holds as unhandled (its flag, as its stored events said). */
export async function unhandledIssuesOf(env: Env, owner: KeyOwner, groupHashes: string[]): Promise<string[]> {
	const rows = await database(env)
		.select({ groupHash: logIssues.groupHash })
		.from(logIssues)
		.where(
			and(
				eq(logIssues.keyId, owner.keyId),
				eq(logIssues.userId, owner.userId),
				eq(logIssues.unhandled, true),
				// One bound parameter for any number of hashes: D1 takes at most 100 a statement.
				sql`${logIssues.groupHash} IN (SELECT value FROM json_each(${JSON.stringify(groupHashes)}))`,
			),
		);
	return rows.map((row) => row.groupHash);
}

/** Latest first (by when they happened), of every environment or of `environment`, by log_events_key_group_timestamp_env_idx. */
export function issueEvents(env: Env, owner: KeyOwner, groupHash: string, { environment, limit = OWNER_LIMITS.issueEvents }: { environment?: string; limit?: number } = {}) {
	return database(env)
		.select()
		.from(logEvents)
		.where(
			and(
				eq(logEvents.keyId, owner.keyId),
				eq(logEvents.groupHash, groupHash),
				environment === undefined ? undefined : eq(logEvents.environment, environment),
			),
		)
		.orderBy(desc(logEvents.timestamp), desc(logEvents.id))
		.limit(limit);
}

/** The names of one kind the key's issues hold, most recently seen first, at most ?3: a walk of their index. */
export const ISSUE_NAMES = `SELECT name FROM log_issue_names WHERE key_id = ?1 AND kind = ?2 ORDER BY last_seen DESC LIMIT ?3`;

/** The project's environments by name, and its releases most recently seen first; at most `limit` of each. */
export async function issueFilterValues(env: Env, owner: KeyOwner, limit = OWNER_LIMITS.issueFilterValues) {
	const [environments, releases] = await env.DB.batch<{ name: string }>(
		["environment", "release"].map((kind) => env.DB.prepare(ISSUE_NAMES).bind(owner.keyId, kind, limit)),
	);
	return {
		environments: environments.results.map((row) => row.name).sort(),
		releases: releases.results.map((row) => row.name),
	};
}

// Events count in the hour they happened. Integer division: a bound JavaScript number would be a
// REAL and give fractional hours. One seek of log_events_key_group_timestamp_env_idx per issue
// named, which holds the environment too: counting one environment's events reads no event.
const hourlyCounts = (environment: string) => `SELECT group_hash, cast(timestamp / ${HOUR_MS} AS integer) AS hour, count(*) AS count FROM log_events
	WHERE key_id = ?1 AND group_hash IN (SELECT value FROM json_each(?2)) AND timestamp >= ?3${environment} GROUP BY 1, 2`;
export const HOURLY_COUNTS = hourlyCounts("");
export const HOURLY_COUNTS_IN_ENVIRONMENT = hourlyCounts(" AND environment = ?4");

/** Events per hour of the named issues from `firstHour` (hours since 1970) on, in all environments or in `environment`. */
async function countsByHour(env: Env, owner: KeyOwner, groupHashes: string[], firstHour: number, environment?: string) {
	const binds = [owner.keyId, JSON.stringify(groupHashes), firstHour * HOUR_MS];
	const statement =
		environment === undefined ? env.DB.prepare(HOURLY_COUNTS).bind(...binds) : env.DB.prepare(HOURLY_COUNTS_IN_ENVIRONMENT).bind(...binds, environment);
	const { results } = await statement.all<{ group_hash: string; hour: number; count: number }>();
	return results;
}

/**
 * Events per hour of each named issue for the `hours` (24 unless given) up to `now`, oldest hour
 * first; the last count is the current hour's. Only those of `environment` when one is given.
 */
export async function hourlyCountsOf(
	env: Env,
	owner: KeyOwner,
	groupHashes: string[],
	{ environment, now = Date.now(), hours = 24 }: { environment?: string; now?: number; hours?: number } = {},
): Promise<Map<string, number[]>> {
	const firstHour = Math.floor(now / HOUR_MS) - (hours - 1);
	const byIssue = new Map(groupHashes.map((hash) => [hash, new Array<number>(hours).fill(0)]));
	if (groupHashes.length === 0) return byIssue;
	for (const row of await countsByHour(env, owner, groupHashes, firstHour, environment)) {
		const counts = byIssue.get(row.group_hash);
		if (counts && row.hour - firstHour < hours) counts[row.hour - firstHour] = row.count;
	}
	return byIssue;
}

/**
 * One issue's events per hour for the 24 hours up to `now` and per UTC day for the 30 days up to
 * it, oldest first, each with its start; the last of each is the current hour or day. Both from
 * one walk of the issue's events of those days in log_events_key_group_timestamp_env_idx; only
 * those of `environment` when one is given.
 */
export async function issueCounts(env: Env, owner: KeyOwner, groupHash: string, { environment, now = Date.now() }: { environment?: string; now?: number } = {}) {
	const firstHour = Math.floor(now / HOUR_MS) - 23;
	const firstDay = Math.floor(now / DAY_MS) - 29;
	const hours = new Array<number>(24).fill(0);
	const days = new Array<number>(30).fill(0);
	for (const row of await countsByHour(env, owner, [groupHash], (firstDay * DAY_MS) / HOUR_MS, environment)) {
		const day = Math.floor((row.hour * HOUR_MS) / DAY_MS) - firstDay;
		if (day < days.length) days[day] += row.count;
		if (row.hour >= firstHour && row.hour - firstHour < hours.length) hours[row.hour - firstHour] = row.count;
	}
	return {
		hourly: hours.map((count, i) => ({ hour: new Date((firstHour + i) * HOUR_MS).toISOString(), count })),
		daily: days.map((count, i) => ({ day: new Date((firstDay + i) * DAY_MS).toISOString(), count })),
	};
}

/**
 * Deletes issues and everything of them from D1 in one transaction: their events, their rows per
 * environment, their seeded users and tags, their rows. Run by their ProjectCollector once it has
 * forgotten them, with no move to D1 under way. Answers how many issues and events went.
 */
export async function deleteIssueRows(db: D1Database, keyId: string, groupHashes: string[]): Promise<{ issues: number; events: number }> {
	const [events, ...issueRows] = await db.batch(
		["log_events", ...ISSUE_TABLES].map((table) => db.prepare(issueRowsDelete(table)).bind(keyId, JSON.stringify(groupHashes))),
	);
	return { issues: issueRows[issueRows.length - 1].meta.changes, events: events.meta.changes };
}

/** The tables that hold an issue's own rows, besides its events; log_issues, the issue itself, last. */
export const ISSUE_TABLES = ["log_issue_environments", "log_issue_environment_users_seed", "log_issue_tags", "log_issues"] as const;

/** The key's (?1) issues named in ?2: one bound parameter, a JSON list, for any number of hashes. */
export const OF_ISSUES = `key_id = ?1 AND group_hash IN (SELECT value FROM json_each(?2))`;

/** Deletes the rows of `table` of the issues OF_ISSUES names. */
export const issueRowsDelete = (table: string) => `DELETE FROM ${table} WHERE ${OF_ISSUES}`;

// ---------------------------------------------------------------------------
// Retention. Events expire by when they happened alone, so an issue keeps its counters while some
// of its events are gone. An issue last seen before the cutoff (every event of it has expired) goes
// too, from D1 and from the key's ProjectCollector, so the fingerprint is new again if it recurs.

export const DELETE_EXPIRED_LOG_EVENTS = expiredRowsDelete("log_events", "timestamp");
export const KEY_WITH_EXPIRED_ISSUES = `SELECT key_id FROM log_issues WHERE last_seen < ?1 ORDER BY last_seen LIMIT 1`;

/**
 * The rows per environment of the key's issues last seen before the cutoff, at most ?2, oldest
 * issues first (a walk of log_issues_key_last_seen_idx, each issue's rows a search of the key).
 */
export const DELETE_EXPIRED_ISSUE_ENVIRONMENTS = `DELETE FROM log_issue_environments WHERE (key_id, group_hash, environment) IN (
	SELECT e.key_id, e.group_hash, e.environment FROM log_issues AS i CROSS JOIN log_issue_environments AS e ON e.key_id = i.key_id AND e.group_hash = i.group_hash
	WHERE i.key_id = ?3 AND i.last_seen < ?1 ORDER BY i.last_seen LIMIT ?2)`;

/** The key's issues last seen before the cutoff with no row per environment left, at most ?2: an issue never goes before its rows. */
export const DELETE_EXPIRED_ISSUES = `DELETE FROM log_issues WHERE rowid IN (SELECT rowid FROM log_issues WHERE key_id = ?3 AND last_seen < ?1
	AND NOT EXISTS (SELECT 1 FROM log_issue_environments AS e WHERE e.key_id = log_issues.key_id AND e.group_hash = log_issues.group_hash)
	ORDER BY last_seen LIMIT ?2)`;

/** Events that happened before `cutoff` (ms), at most `limit`, oldest first; how many were deleted. */
export const deleteExpiredLogEvents = (env: Env, cutoff: number, limit: number) => deleteRows(env.DB, DELETE_EXPIRED_LOG_EVENTS, cutoff, limit);

/** The key with the oldest issue last seen before `cutoff`, or null when no issue has expired. */
export async function keyWithExpiredIssues(env: Env, cutoff: number): Promise<string | null> {
	const row = await env.DB.prepare(KEY_WITH_EXPIRED_ISSUES).bind(cutoff).first<{ key_id: string }>();
	return row?.key_id ?? null;
}

/** The key's names no issue it keeps holds: every issue holding one was last seen before the cutoff. */
export const DELETE_EXPIRED_ISSUE_NAMES = `DELETE FROM log_issue_names WHERE key_id = ?2 AND kind IN ('environment', 'release') AND last_seen < ?1`;

/**
 * The key's issues last seen before `cutoff`, at most `limit` of them and of their rows per
 * environment, and the names only they held; run by its ProjectCollector once it has forgotten
 * them. Answers how many rows went (issues and their environments' rows): while any do, more may
 * be left.
 */
export async function deleteExpiredIssues(db: D1Database, keyId: string, cutoff: number, limit: number): Promise<number> {
	const [environments, issues] = await db.batch([
		db.prepare(DELETE_EXPIRED_ISSUE_ENVIRONMENTS).bind(cutoff, limit, keyId),
		db.prepare(DELETE_EXPIRED_ISSUES).bind(cutoff, limit, keyId),
		db.prepare(DELETE_EXPIRED_ISSUE_NAMES).bind(cutoff, keyId),
	]);
	return environments.meta.changes + issues.meta.changes;
}
