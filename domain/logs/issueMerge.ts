/**
 * Sentry's merge in D1: the issues named become one, `into`, the issue of the most events. Its
 * events, its figures per environment and its tags take theirs in; their rows go. The key's
 * ProjectCollector merges its own state first (counters, affected users, where later events of
 * their fingerprints go), then moves the merge to D1 with these statements, before any other row
 * of the same batch: the events and changes it moves after the merge are the merged issue's.
 * Its own row in log_issues comes with the issue's changed counters in the same batch.
 *
 * And its unmerge: the events of fingerprints merged into an issue go back to issues of their own
 * (each event keeps the issue its fingerprint opens, `fingerprint_hash`), and both sides' figures
 * and tags are counted again from their events stored, as Sentry's unmerge counts them.
 */
import { asCollectorKeysUser, userOfEvent } from "./issueEnvironments";
import { anExceptionHandledIs, TAG_RECOUNT } from "./issueTags";
import { ISSUE_TABLES, issueRowsDelete, type KeyOwner, OF_ISSUES } from "./logStore";

/** What the key's object hands D1 of one merge. */
export interface IssueMerge {
	into: string;
	/** The issues merged into it (not `into` itself). */
	hashes: string[];
	/** The merged issue's affected users per environment, as the object now counts them: [environment, users] pairs. */
	environmentUsers: Array<[environment: string, users: number]>;
}

// ?1 key, ?2 the merged issues' hashes (a JSON list, OF_ISSUES), ?3 the issue they are merged into.

/**
 * The merged issues' rows taken into the issue's (?3). Their rows are read first (MATERIALIZED):
 * grouped where they are read, SQLite would walk the key's rows in an index of the group's order.
 */
export const MOVES = [
	// An issue's events by log_events_key_group_timestamp_env_idx, one search a merged issue; each
	// keeps the issue its fingerprint opens (one merged into them before keeps its own).
	`UPDATE log_events SET fingerprint_hash = coalesce(fingerprint_hash, group_hash), group_hash = ?3 WHERE ${OF_ISSUES}`,
	// Its figures per environment summed into the issue's; its users there set after, as the object counts them.
	`INSERT INTO log_issue_environments (key_id, group_hash, environment, count, users, first_seen, last_seen)
		WITH merged AS MATERIALIZED (SELECT environment, count, first_seen, last_seen FROM log_issue_environments WHERE ${OF_ISSUES})
		SELECT ?1, ?3, environment, sum(count), 0, min(first_seen), max(last_seen) FROM merged GROUP BY environment
		ON CONFLICT (key_id, group_hash, environment) DO UPDATE SET count = count + excluded.count,
			first_seen = min(first_seen, excluded.first_seen), last_seen = max(last_seen, excluded.last_seen)`,
	`INSERT INTO log_issue_tags (key_id, group_hash, environment, tag_key, value, count, first_seen, last_seen)
		WITH merged AS MATERIALIZED (SELECT environment, tag_key, value, count, first_seen, last_seen FROM log_issue_tags WHERE ${OF_ISSUES})
		SELECT ?1, ?3, environment, tag_key, value, sum(count), min(first_seen), max(last_seen) FROM merged GROUP BY 3, 4, 5
		ON CONFLICT (key_id, group_hash, environment, tag_key, value) DO UPDATE SET count = count + excluded.count,
			first_seen = min(first_seen, excluded.first_seen), last_seen = max(last_seen, excluded.last_seen)`,
];

/** Then the merged issues' own rows go, as a deleted issue's but its events (D1 wants exactly the parameters a statement numbers: ?1 and ?2 here). */
export const DELETES = ISSUE_TABLES.map(issueRowsDelete);

/** ?1 key, ?3 the issue merged into, ?4 [environment, users] pairs: its users per environment, as the object counts them. */
export const SET_ENVIRONMENT_USERS = `UPDATE log_issue_environments SET users = u.value ->> 1
	FROM json_each(?4) AS u WHERE key_id = ?1 AND group_hash = ?3 AND environment = u.value ->> 0`;

/** The statements that make one merge in D1, for the batch that moves it. */
export function mergeStatements(db: D1Database, owner: KeyOwner, merge: IssueMerge): D1PreparedStatement[] {
	const hashes = JSON.stringify(merge.hashes);
	return [
		...MOVES.map((statement) => db.prepare(statement).bind(owner.keyId, hashes, merge.into)),
		...DELETES.map((statement) => db.prepare(statement).bind(owner.keyId, hashes)),
		db.prepare(SET_ENVIRONMENT_USERS).bind(owner.keyId, hashes, merge.into, JSON.stringify(merge.environmentUsers)),
	];
}

/** What the key's object hands D1 of one unmerge. */
export interface IssueUnmerge {
	/** The issue the fingerprints were merged into. */
	from: string;
	/** The fingerprints unmerged: the hashes of the issues they open again. */
	hashes: string[];
	/** Each environment `from` and those issues hold, with its affected users there as the object counts them. */
	environmentUsers: Array<[hash: string, environment: string, users: number]>;
}

// ?1 key, ?2 the fingerprints unmerged (a JSON list), ?3 the issue they leave: its events of them, by
// log_events_key_group_fingerprint_idx.
export const MOVE_BACK = `UPDATE log_events SET group_hash = fingerprint_hash, fingerprint_hash = NULL
	WHERE key_id = ?1 AND group_hash = ?3 AND fingerprint_hash IN (SELECT value FROM json_each(?2))`;

/**
 * ?1 key, ?2 [hash, environment, users] triples: the issues' rows per environment, counted again
 * from their events stored (each issue's read once, grouped by environment, by the same index),
 * with their users there as the object counts them.
 */
export const ENVIRONMENT_RECOUNT = `INSERT INTO log_issue_environments (key_id, group_hash, environment, count, users, first_seen, last_seen)
	WITH held AS (SELECT value ->> 0 AS group_hash, value ->> 1 AS environment, value ->> 2 AS users FROM json_each(?2)),
	counted AS MATERIALIZED (
		SELECT group_hash, environment, count(*) AS count, min(timestamp) AS first_seen, max(timestamp) AS last_seen FROM log_events
		WHERE key_id = ?1 AND group_hash IN (SELECT group_hash FROM held) AND environment IS NOT NULL GROUP BY 1, 2
	)
	SELECT ?1, c.group_hash, c.environment, c.count, h.users, c.first_seen, c.last_seen FROM counted AS c JOIN held AS h USING (group_hash, environment)`;

/**
 * ?1 key, ?2 the issues of an unmerge (a JSON list): each one's unhandled flag as its events stored
 * say, after TAG_RECOUNT (an unhandled event's drawn `handled` tag is `no`). The issues' rows only
 * ever raise the flag (UPSERT_ISSUES): without this, the issue left would stay unhandled after its
 * only unhandled fingerprint was unmerged. Events still waiting in the object raise it again as they
 * move; an issue with no event stored keeps its flag, as the object keeps its figures.
 */
export const UNHANDLED_RECOUNT = `UPDATE log_issues SET unhandled = EXISTS (
		SELECT 1 FROM log_issue_tags AS t WHERE t.key_id = ?1 AND t.group_hash = log_issues.group_hash AND t.tag_key = 'handled' AND t.value = 'no'
	)
	WHERE ${OF_ISSUES} AND EXISTS (SELECT 1 FROM log_events AS e WHERE e.key_id = ?1 AND e.group_hash = log_issues.group_hash)`;

/** The statements that make one unmerge in D1, for the batch that moves it. */
export function unmergeStatements(db: D1Database, owner: KeyOwner, unmerge: IssueUnmerge): D1PreparedStatement[] {
	const issues = JSON.stringify([unmerge.from, ...unmerge.hashes]);
	return [
		db.prepare(MOVE_BACK).bind(owner.keyId, JSON.stringify(unmerge.hashes), unmerge.from),
		...["log_issue_environments", "log_issue_tags"].map((table) => db.prepare(issueRowsDelete(table)).bind(owner.keyId, issues)),
		db.prepare(ENVIRONMENT_RECOUNT).bind(owner.keyId, JSON.stringify(unmerge.environmentUsers)),
		db.prepare(TAG_RECOUNT).bind(owner.keyId, issues),
		db.prepare(UNHANDLED_RECOUNT).bind(owner.keyId, issues),
	];
}

// What an unmerge counts each side from: the events of an issue (?3), each as the issue it goes to
// (its fingerprint's when that is one of those unmerged, ?2, else the issue's own), with its user as
// the object keys one. In D1 (?1 the key) and in the object's own outbox, the same columns.
const goesTo = `CASE WHEN fingerprint_hash IN (SELECT value FROM json_each(?2)) THEN fingerprint_hash ELSE ?3 END`;
const STORED_EVENTS_OF_ISSUE = `SELECT ${goesTo} AS hash, timestamp, environment, release, event, ${userOfEvent(false)} AS user
	FROM log_events AS e WHERE key_id = ?1 AND group_hash = ?3`;
export const WAITING_EVENTS_OF_ISSUE = `SELECT ${goesTo} AS hash, timestamp, environment, release, event, user_key AS user FROM outbox WHERE hash = ?3`;

/** The queries that count an unmerge's sides, over one of the sources above; each answers rows of a `hash`. */
export const unmergeFigureQueries = (events: string) => ({
	counts: `WITH events AS (${events}) SELECT hash, count(*) AS count, min(timestamp) AS first_seen,
		max(CASE WHEN ${anExceptionHandledIs(false)} THEN 1 ELSE 0 END) AS unhandled FROM events GROUP BY 1`,
	// The only max() of the query: `event` is the latest event's (SQLite's bare column).
	latest: `WITH events AS (${events}) SELECT hash, max(timestamp) AS last_seen, event FROM events GROUP BY 1`,
	names: `WITH events AS (${events}) SELECT hash, 'environment' AS kind, environment AS name, min(timestamp) AS first_seen FROM events
		WHERE environment IS NOT NULL GROUP BY 1, 3
		UNION ALL SELECT hash, 'release', release, min(timestamp) FROM events WHERE release IS NOT NULL GROUP BY 1, 3 ORDER BY 4, 3`,
	users: `WITH events AS (${events}) SELECT DISTINCT hash, environment, user FROM events WHERE user IS NOT NULL`,
});

interface UnmergeCountRow extends Record<string, SqlStorageValue> {
	hash: string;
	count: number;
	first_seen: number;
	unhandled: number;
}
interface UnmergeLatestRow extends Record<string, SqlStorageValue> {
	hash: string;
	last_seen: number;
	event: string;
}
interface UnmergeNameRow extends Record<string, SqlStorageValue> {
	hash: string;
	kind: "environment" | "release";
	name: string;
	first_seen: number;
}
interface UnmergeUserRow extends Record<string, SqlStorageValue> {
	hash: string;
	environment: string | null;
	user: string;
}

/** What each side of an unmerge holds of one source: rows of each query, in one read. */
export interface UnmergeFigures {
	counts: UnmergeCountRow[];
	latest: UnmergeLatestRow[];
	names: UnmergeNameRow[];
	users: UnmergeUserRow[];
}

export const STORED_QUERIES = unmergeFigureQueries(STORED_EVENTS_OF_ISSUE);

/** The figures of the issue's events D1 holds, for an unmerge of `fingerprints` from it. */
export async function storedUnmergeFigures(db: D1Database, keyId: string, from: string, fingerprints: string[]): Promise<UnmergeFigures> {
	const binds = [keyId, JSON.stringify(fingerprints), from];
	const [counts, latest, names, users] = await db.batch([
		db.prepare(STORED_QUERIES.counts).bind(...binds),
		db.prepare(STORED_QUERIES.latest).bind(...binds),
		db.prepare(STORED_QUERIES.names).bind(...binds),
		db.prepare(STORED_QUERIES.users).bind(...binds),
	]);
	return {
		counts: counts.results as UnmergeCountRow[],
		latest: latest.results as UnmergeLatestRow[],
		names: names.results as UnmergeNameRow[],
		users: (users.results as UnmergeUserRow[]).map((row) => ({ ...row, user: asCollectorKeysUser(row.user) })),
	};
}

/**
 * ?1 key, ?2 the issue, ?3 the fingerprints merged into it (a JSON list): each one's events the
 * issue holds and when the latest of them happened, counted in log_events_key_group_fingerprint_idx
 * (which holds those events alone), and that event, found by the same index.
 */
export const MERGED_FINGERPRINTS = `WITH counted AS (
		SELECT fingerprint_hash, count(*) AS events, max(timestamp) AS last_seen FROM log_events
		WHERE key_id = ?1 AND group_hash = ?2 AND fingerprint_hash IN (SELECT value FROM json_each(?3)) GROUP BY 1
	)
	SELECT c.fingerprint_hash, c.events, c.last_seen, e.id, e.event FROM counted AS c JOIN log_events AS e ON e.rowid = (
		SELECT rowid FROM log_events WHERE key_id = ?1 AND group_hash = ?2 AND fingerprint_hash = c.fingerprint_hash ORDER BY timestamp DESC LIMIT 1
	)`;

/** Each fingerprint's events kept in the issue, with its latest; none for one with no event kept. */
export async function mergedFingerprintEvents(db: D1Database, owner: KeyOwner, groupHash: string, fingerprints: string[]) {
	if (fingerprints.length === 0) return new Map<string, never>();
	const { results } = await db
		.prepare(MERGED_FINGERPRINTS)
		.bind(owner.keyId, groupHash, JSON.stringify(fingerprints))
		.all<{ fingerprint_hash: string; events: number; last_seen: number; id: string; event: string }>();
	return new Map(results.map((row) => [row.fingerprint_hash, row]));
}
