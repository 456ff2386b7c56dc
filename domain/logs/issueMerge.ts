/**
 * Sentry's merge in D1: the issues named become one, `into`, the issue of the most events. Its
 * events, its figures per environment and its tags take theirs in; their rows go. The key's
 * ProjectCollector merges its own state first (counters, affected users, where later events of
 * their fingerprints go), then moves the merge to D1 with these statements, before any other row
 * of the same batch: the events and changes it moves after the merge are the merged issue's.
 * Its own row in log_issues comes with the issue's changed counters in the same batch.
 */
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
	// An issue's events by log_events_key_group_timestamp_env_idx, one search a merged issue.
	`UPDATE log_events SET group_hash = ?3 WHERE ${OF_ISSUES}`,
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
