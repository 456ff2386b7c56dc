/**
 * An issue's figures in each environment (log_issue_environments, docs/data-model.md#log_issue_environments):
 * how a batch of events adds to them, and how migration 0017 filled them, and the users behind
 * them, from the events stored before (the migration repeats these statements exactly).
 */

/**
 * The events of a batch (?2, as writeStatements packs them: [id, group_hash, received_at, timestamp,
 * level, environment, release, event, users added, fingerprint hash]) that D1 does not have yet, added to their
 * issues' rows: run before they are inserted, so a batch written twice counts once. An event whose
 * users added is null (no environment, or one past the issue's first 100) counts in no row.
 */
export const ENVIRONMENT_ADDITIONS = `INSERT INTO log_issue_environments (key_id, group_hash, environment, count, users, first_seen, last_seen)
	SELECT ?1, b.value ->> 1, b.value ->> 5, count(*), sum(b.value ->> 8), min(b.value ->> 3), max(b.value ->> 3)
	FROM json_each(?2) AS b
	WHERE b.value ->> 8 IS NOT NULL AND NOT EXISTS (SELECT 1 FROM log_events AS e WHERE e.id = b.value ->> 0)
	GROUP BY 2, 3
	ON CONFLICT (key_id, group_hash, environment) DO UPDATE SET count = count + excluded.count, users = users + excluded.users,
		first_seen = min(first_seen, excluded.first_seen), last_seen = max(last_seen, excluded.last_seen)`;

/**
 * A stored event's affected user as the ProjectCollector keys one (userKey in normalizeEvent.ts):
 * id, else email, username or IP address. The email as sent unless `lowerEmail`: SQLite's lower()
 * knows only ASCII letters, so the seed leaves the email to the collector's toLowerCase.
 */
export const userOfEvent = (lowerEmail: boolean) => `CASE
		WHEN coalesce(e.event ->> '$.user.id', '') <> '' THEN 'id:' || (e.event ->> '$.user.id')
		WHEN coalesce(e.event ->> '$.user.email', '') <> '' THEN 'email:' || ${lowerEmail ? "lower(e.event ->> '$.user.email')" : "(e.event ->> '$.user.email')"}
		WHEN coalesce(e.event ->> '$.user.username', '') <> '' THEN 'username:' || (e.event ->> '$.user.username')
		WHEN coalesce(e.event ->> '$.user.ip_address', '') <> '' THEN 'ip:' || (e.event ->> '$.user.ip_address')
	END`;

/** Each issue's stored events in each environment it holds (its `environments`, as the flush counts them). */
const EVENTS_OF_KEPT_ENVIRONMENTS = `FROM log_issues AS i JOIN log_events AS e ON e.key_id = i.key_id AND e.group_hash = i.group_hash
	WHERE e.environment IN (SELECT value FROM json_each(i.environments))`;

/** Migration 0017: the rows, from the events stored then (an issue's older events had expired, and are not counted). */
export const ENVIRONMENT_BACKFILL = `INSERT INTO log_issue_environments (key_id, group_hash, environment, count, users, first_seen, last_seen)
	SELECT e.key_id, e.group_hash, e.environment, count(*), count(DISTINCT ${userOfEvent(true)}), min(e.received_at), max(e.received_at)
	${EVENTS_OF_KEPT_ENVIRONMENTS}
	GROUP BY 1, 2, 3`;

/** Migration 0017: who those rows counted, for each key's collector to take over (takeSeededUsers). */
export const ENVIRONMENT_USERS_BACKFILL = `INSERT INTO log_issue_environment_users_seed (key_id, group_hash, environment, user)
	SELECT DISTINCT key_id, group_hash, environment, user FROM (
		SELECT e.key_id, e.group_hash, e.environment, ${userOfEvent(false)} AS user
		${EVENTS_OF_KEPT_ENVIRONMENTS}
	) WHERE user IS NOT NULL`;

/** A user as userOfEvent reads it, keyed as the collector keys one: SQLite's lower() knows only ASCII letters, so the email is lower-cased here, as userKey does. */
export const asCollectorKeysUser = (user: string) => (user.startsWith("email:") ? `email:${user.slice(6).toLowerCase()}` : user);

/** Up to ?2 of the key's seeded users: a search of the seed's key index. */
export const SEEDED_USERS = `SELECT rowid AS row, group_hash, environment, user FROM log_issue_environment_users_seed WHERE key_id = ?1 LIMIT ?2`;
export const DELETE_SEEDED_USERS = `DELETE FROM log_issue_environment_users_seed WHERE rowid IN (SELECT value FROM json_each(?1))`;

export interface SeededUser {
	groupHash: string;
	environment: string;
	/** As the collector keys users: the email lower-cased here, as userKey does. */
	user: string;
}

const SEED_PAGE = 1_000;

/**
 * Hands the key's seeded users to `take` a page at a time, deleting each page from D1 once taken,
 * until none is left. A page taken twice (the delete failed) is harmless to a set.
 */
export async function takeSeededUsers(db: D1Database, keyId: string, take: (users: SeededUser[]) => void): Promise<void> {
	for (;;) {
		const { results } = await db
			.prepare(SEEDED_USERS)
			.bind(keyId, SEED_PAGE)
			.all<{ row: number; group_hash: string; environment: string; user: string }>();
		if (results.length === 0) return;
		take(
			results.map((r) => ({
				groupHash: r.group_hash,
				environment: r.environment,
				user: asCollectorKeysUser(r.user),
			})),
		);
		await db.prepare(DELETE_SEEDED_USERS).bind(JSON.stringify(results.map((r) => r.row))).run();
		if (results.length < SEED_PAGE) return;
	}
}
