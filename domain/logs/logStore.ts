/**
 * D1 access for log issues and events: the ProjectCollector's multi-row writes, the owner's reads,
 * deletion with the project key, and the clean-up of what is older than the log retention.
 */
import { and, desc, eq, or, sql } from "drizzle-orm";
import { logEvents, logIssueNames, logIssues } from "../../schema";
import { clientEventIdOf, type IssueSort, type IssueStatus } from "../api/issues";
import { database, deleteRows, expiredRowsDelete } from "../db";
import { packJsonArrays } from "../jsonRows";
import { OWNER_LIMITS } from "../limits";

/** An accepted event waiting in the ProjectCollector for its move to D1. */
export interface PendingEvent {
	id: string;
	groupHash: string;
	receivedAt: number;
	timestamp: number;
	level: string;
	environment: string | null;
	release: string | null;
	/** The stored event document, already JSON. */
	eventJson: string;
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
}

export interface KeyOwner {
	keyId: string;
	userId: string;
}

// Rows travel as JSON arrays unpacked by json_each (see jsonRows.ts). An event is an array of its
// columns, its document a JSON string inside it: SQLite copies a string out, where an object
// spliced in would be parsed and written out again (a 500-event insert: 6.0 → 3.7 ms in node:sqlite).
const INSERT_EVENTS = `INSERT OR IGNORE INTO log_events
	(id, key_id, group_hash, received_at, timestamp, level, environment, release, event)
	SELECT value ->> 0, ?1, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, value ->> 7
	FROM json_each(?2)`;

// `WHERE true` keeps SQLite from reading ON CONFLICT as part of the SELECT's join.
const UPSERT_ISSUES = `INSERT INTO log_issues
	(key_id, group_hash, user_id, title, culprit, level, status, count, users, first_seen, last_seen, environments, releases, resolved_in_release)
	SELECT ?1, json_extract(value, '$.group_hash'), ?2, json_extract(value, '$.title'), json_extract(value, '$.culprit'),
		json_extract(value, '$.level'), json_extract(value, '$.status'), json_extract(value, '$.count'), json_extract(value, '$.users'),
		json_extract(value, '$.first_seen'), json_extract(value, '$.last_seen'), json_extract(value, '$.environments'),
		json_extract(value, '$.releases'), json_extract(value, '$.resolved_in_release')
	FROM json_each(?3) WHERE true
	ON CONFLICT (key_id, group_hash) DO UPDATE SET
		title = excluded.title, culprit = excluded.culprit, level = excluded.level, status = excluded.status,
		count = excluded.count, users = excluded.users, first_seen = excluded.first_seen, last_seen = excluded.last_seen,
		environments = excluded.environments, releases = excluded.releases, resolved_in_release = excluded.resolved_in_release`;

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
	const eventRows = events.map((e) => JSON.stringify([e.id, e.groupHash, e.receivedAt, e.timestamp, e.level, e.environment, e.release, e.eventJson]));
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
		}),
	);
	return [
		...packJsonArrays(issueObjects).map((rows) => db.prepare(UPSERT_ISSUES).bind(owner.keyId, owner.userId, rows)),
		...packJsonArrays(nameRows(issues)).map((rows) => db.prepare(UPSERT_NAMES).bind(owner.keyId, rows)),
		...packJsonArrays(eventRows).map((rows) => db.prepare(INSERT_EVENTS).bind(owner.keyId, rows)),
	];
}

/** Everything a revoked key sent. */
export async function deleteKeyLogs(env: Env, keyId: string): Promise<void> {
	const db = database(env);
	await db.batch([
		db.delete(logEvents).where(eq(logEvents.keyId, keyId)),
		db.delete(logIssues).where(eq(logIssues.keyId, keyId)),
		db.delete(logIssueNames).where(eq(logIssueNames.keyId, keyId)),
	]);
}

// ---------------------------------------------------------------------------
// Owner reads. Every query is bounded to one key found through the signed-in owner.

export type IssueRow = typeof logIssues.$inferSelect;
export type EventRow = typeof logEvents.$inferSelect;

/**
 * Where a page of the list starts: after the issue with these sort values (the columns of
 * SORT_COLUMNS[sort], last its group hash), in the order of that sort.
 */
export interface IssuePosition {
	sort: IssueSort;
	values: Array<number | string>;
}

export interface IssueFilters {
	status?: IssueStatus;
	environment?: string;
	release?: string;
	q?: string;
	sort?: IssueSort;
	/** Issues with an event whose user has this id, or this email in any letter case. */
	user?: string;
	after?: IssuePosition;
	limit?: number;
}

/**
 * The issues one person ran into: each half is a search of its expression index on log_events
 * (migration 0007), whose expressions these must repeat exactly. UNION ALL, deduplicated after:
 * a plain UNION makes SQLite prefer the index sorted by group_hash and scan the key's events.
 */
export const ISSUES_OF_USER = `SELECT group_hash FROM log_events WHERE key_id = ?1 AND json_extract(event, '$.user.id') = ?2
	UNION ALL SELECT group_hash FROM log_events WHERE key_id = ?1 AND lower(json_extract(event, '$.user.email')) = lower(?2)`;

async function issuesOfUser(env: Env, owner: KeyOwner, user: string): Promise<string[]> {
	const { results } = await env.DB.prepare(ISSUES_OF_USER).bind(owner.keyId, user).all<{ group_hash: string }>();
	return [...new Set(results.map((row) => row.group_hash))];
}

/**
 * Each order's columns, all descending, the last the tie-break: the columns of its index after
 * key_id (and status), migration 0012.
 */
export const SORT_COLUMNS = {
	last_seen: [logIssues.lastSeen, logIssues.groupHash],
	first_seen: [logIssues.firstSeen, logIssues.groupHash],
	count: [logIssues.count, logIssues.lastSeen, logIssues.groupHash],
} as const;

/** An issue's values in the columns of SORT_COLUMNS[sort]: where the page after it starts. */
export function sortValuesOf(issue: IssueRow, sort: IssueSort): IssuePosition["values"] {
	const leading = { last_seen: [issue.lastSeen.getTime()], first_seen: [issue.firstSeen.getTime()], count: [issue.count, issue.lastSeen.getTime()] }[sort];
	return [...leading, issue.groupHash];
}

/**
 * The list's statement; `ofUser` the issues of `filters.user`, already looked up. A row-value
 * comparison with the position is a range of the order's index, so a page is one walk of it from
 * there, environment, release and text filters checked per row of this key's issues.
 */
export function issueListQuery(env: Env, owner: KeyOwner, filters: IssueFilters, ofUser?: string[]) {
	// Text found anywhere in the title or culprit, ASCII letters in either case (SQLite's lower(), as
	// LIKE would; but LIKE refuses patterns over 50 bytes in D1, and a pasted title is longer).
	const needle = filters.q || undefined;
	// A search that could be an event's own id (32 hex digits, or a UUID).
	const eventId = filters.q ? clientEventIdOf(filters.q.trim()) : null;
	const sort = filters.sort ?? "last_seen";
	const columns = SORT_COLUMNS[sort];
	const after = filters.after;
	return database(env)
		.select()
		.from(logIssues)
		.where(
			and(
				eq(logIssues.keyId, owner.keyId),
				eq(logIssues.userId, owner.userId),
				filters.status ? eq(logIssues.status, filters.status) : undefined,
				filters.environment !== undefined
					? sql`exists (select 1 from json_each(${logIssues.environments}) where value = ${filters.environment})`
					: undefined,
				filters.release !== undefined
					? sql`exists (select 1 from json_each(${logIssues.releases}) where value = ${filters.release})`
					: undefined,
				needle
					? or(
							sql`instr(lower(${logIssues.title}), lower(${needle})) > 0`,
							sql`instr(lower(${logIssues.culprit}), lower(${needle})) > 0`,
							eq(logIssues.groupHash, needle.toLowerCase()),
							// The issue of the event the id an SDK showed someone names (log_events_key_event_id_idx).
							eventId
								? sql`${logIssues.groupHash} in (select group_hash from log_events where key_id = ${owner.keyId} and json_extract(event, '$.event_id') = ${eventId})`
								: undefined,
						)
					: undefined,
				ofUser ? sql`${logIssues.groupHash} in (select value from json_each(${JSON.stringify(ofUser)}))` : undefined,
				after ? sql`(${sql.join([...columns], sql`, `)}) < (${sql.join(after.values.map((v) => sql`${v}`), sql`, `)})` : undefined,
			),
		)
		.orderBy(...columns.map((column) => desc(column)))
		.limit(filters.limit ?? OWNER_LIMITS.issueList);
}

/** Most recently seen first (or newest, or most frequent), `limit` of them from `after` on. */
export async function selectIssues(env: Env, owner: KeyOwner, filters: IssueFilters): Promise<IssueRow[]> {
	const ofUser = filters.user === undefined ? undefined : await issuesOfUser(env, owner, filters.user);
	if (ofUser?.length === 0) return [];
	return issueListQuery(env, owner, filters, ofUser);
}

export async function findIssue(env: Env, owner: KeyOwner, groupHash: string): Promise<IssueRow | undefined> {
	return database(env).query.logIssues.findFirst({
		where: and(eq(logIssues.keyId, owner.keyId), eq(logIssues.userId, owner.userId), eq(logIssues.groupHash, groupHash)),
	});
}

/** Newest first, by log_events_key_group_received_idx. */
export function issueEvents(env: Env, owner: KeyOwner, groupHash: string, limit = OWNER_LIMITS.issueEvents): Promise<EventRow[]> {
	return database(env)
		.select()
		.from(logEvents)
		.where(and(eq(logEvents.keyId, owner.keyId), eq(logEvents.groupHash, groupHash)))
		.orderBy(desc(logEvents.receivedAt), desc(logEvents.id))
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

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

// Integer division: a bound JavaScript number would be a REAL and give fractional hours. One seek
// of log_events_key_group_received_idx per issue named.
export const HOURLY_COUNTS = `SELECT group_hash, cast(received_at / ${HOUR_MS} AS integer) AS hour, count(*) AS count FROM log_events
	WHERE key_id = ?1 AND group_hash IN (SELECT value FROM json_each(?2)) AND received_at >= ?3 GROUP BY 1, 2`;

/** Events per hour of the named issues from `firstHour` (hours since 1970) on. */
async function countsByHour(env: Env, owner: KeyOwner, groupHashes: string[], firstHour: number) {
	const { results } = await env.DB.prepare(HOURLY_COUNTS)
		.bind(owner.keyId, JSON.stringify(groupHashes), firstHour * HOUR_MS)
		.all<{ group_hash: string; hour: number; count: number }>();
	return results;
}

/**
 * Events per hour of each named issue for the 24 hours up to `now`, oldest hour first; the last
 * count is the current hour's.
 */
export async function hourlyCountsOf(env: Env, owner: KeyOwner, groupHashes: string[], now = Date.now()): Promise<Map<string, number[]>> {
	const firstHour = Math.floor(now / HOUR_MS) - 23;
	const byIssue = new Map(groupHashes.map((hash) => [hash, new Array<number>(24).fill(0)]));
	if (groupHashes.length === 0) return byIssue;
	for (const row of await countsByHour(env, owner, groupHashes, firstHour)) {
		const counts = byIssue.get(row.group_hash);
		if (counts) counts[row.hour - firstHour] = row.count;
	}
	return byIssue;
}

/**
 * One issue's events per hour for the 24 hours up to `now` and per UTC day for the 30 days up to
 * it, oldest first, each with its start; the last of each is the current hour or day. Both from
 * one walk of the issue's events of those days in log_events_key_group_received_idx.
 */
export async function issueCounts(env: Env, owner: KeyOwner, groupHash: string, now = Date.now()) {
	const firstHour = Math.floor(now / HOUR_MS) - 23;
	const firstDay = Math.floor(now / DAY_MS) - 29;
	const hours = new Array<number>(24).fill(0);
	const days = new Array<number>(30).fill(0);
	for (const row of await countsByHour(env, owner, [groupHash], (firstDay * DAY_MS) / HOUR_MS)) {
		const day = Math.floor((row.hour * HOUR_MS) / DAY_MS) - firstDay;
		if (day < days.length) days[day] += row.count;
		if (row.hour >= firstHour && row.hour - firstHour < hours.length) hours[row.hour - firstHour] = row.count;
	}
	return {
		hourly: hours.map((count, i) => ({ hour: new Date((firstHour + i) * HOUR_MS).toISOString(), count })),
		daily: days.map((count, i) => ({ day: new Date((firstDay + i) * DAY_MS).toISOString(), count })),
	};
}

// ---------------------------------------------------------------------------
// Retention. Events expire by age alone, so an issue keeps its counters while some of its events
// are gone. An issue last seen before the cutoff (every event of it has expired) goes too, from
// D1 and from the key's ProjectCollector, so the fingerprint is new again if it ever recurs.

export const DELETE_EXPIRED_LOG_EVENTS = expiredRowsDelete("log_events", "received_at");
export const KEY_WITH_EXPIRED_ISSUES = `SELECT key_id FROM log_issues WHERE last_seen < ?1 ORDER BY last_seen LIMIT 1`;
export const DELETE_EXPIRED_ISSUES = expiredRowsDelete("log_issues", "last_seen", "key_id = ?3 AND ");

/** Events received before `cutoff` (ms), at most `limit`, oldest first; how many were deleted. */
export const deleteExpiredLogEvents = (env: Env, cutoff: number, limit: number) => deleteRows(env.DB, DELETE_EXPIRED_LOG_EVENTS, cutoff, limit);

/** The key with the oldest issue last seen before `cutoff`, or null when no issue has expired. */
export async function keyWithExpiredIssues(env: Env, cutoff: number): Promise<string | null> {
	const row = await env.DB.prepare(KEY_WITH_EXPIRED_ISSUES).bind(cutoff).first<{ key_id: string }>();
	return row?.key_id ?? null;
}

/** The key's names no issue it keeps holds: every issue holding one was last seen before the cutoff. */
export const DELETE_EXPIRED_ISSUE_NAMES = `DELETE FROM log_issue_names WHERE key_id = ?2 AND kind IN ('environment', 'release') AND last_seen < ?1`;

/**
 * The key's issues last seen before `cutoff`, at most `limit`, and the names only they held; run by
 * its ProjectCollector once it has forgotten them. Answers how many issues went.
 */
export async function deleteExpiredIssues(db: D1Database, keyId: string, cutoff: number, limit: number): Promise<number> {
	const [issues] = await db.batch([db.prepare(DELETE_EXPIRED_ISSUES).bind(cutoff, limit, keyId), db.prepare(DELETE_EXPIRED_ISSUE_NAMES).bind(cutoff, keyId)]);
	return issues.meta.changes;
}
