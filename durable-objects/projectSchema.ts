/**
 * A ProjectCollector's tables (docs/data-model.md#projectcollector): created on every start, and
 * those of an object created by an earlier version brought up to date.
 */
import { ALERT_SCHEMA } from "./projectAlerts";
import { ACTIVITY_SCHEMA } from "./issueActivity";

/** The `meta` key of the last short id given (domain/logs/shortId.ts): a number is never given twice, though its issue be deleted. */
export const SHORT_IDS_GIVEN = "short_ids_given";

export const SCHEMA = [
	`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS groups (
		hash TEXT PRIMARY KEY, title TEXT NOT NULL, culprit TEXT, level TEXT NOT NULL,
		status TEXT NOT NULL DEFAULT 'open', count INTEGER NOT NULL, users INTEGER NOT NULL DEFAULT 0,
		first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL,
		environments TEXT NOT NULL DEFAULT '[]', releases TEXT NOT NULL DEFAULT '[]', resolved_in_release TEXT, resolved_in_next_release INTEGER NOT NULL DEFAULT 0,
		unhandled INTEGER NOT NULL DEFAULT 0, ignored_until INTEGER, ignored_until_count INTEGER, ignored_until_users INTEGER,
		ignored_until_escalating INTEGER, escalation_hour INTEGER, escalation_events INTEGER, escalation_drawn_at INTEGER, escalated_at INTEGER, short_id INTEGER,
		version INTEGER NOT NULL DEFAULT 1, flushed_version INTEGER NOT NULL DEFAULT 0)`,
	`CREATE INDEX IF NOT EXISTS groups_unflushed ON groups (hash) WHERE version > flushed_version`,
	`CREATE TABLE IF NOT EXISTS group_users (hash TEXT NOT NULL, user TEXT NOT NULL, PRIMARY KEY (hash, user)) WITHOUT ROWID`,
	// Who was affected in each environment the issue holds: what its figures there count (log_issue_environments).
	`CREATE TABLE IF NOT EXISTS group_environment_users (hash TEXT NOT NULL, environment TEXT NOT NULL, user TEXT NOT NULL,
		PRIMARY KEY (hash, environment, user)) WITHOUT ROWID`,
	// Every release the project has sent, in first-seen order: how non-version releases are ordered.
	`CREATE TABLE IF NOT EXISTS releases (seq INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE)`,
	// Accepted events not yet in D1, with who was affected (userKey) and, for one a merge gave another issue, the issue its fingerprint opens.
	`CREATE TABLE IF NOT EXISTS outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL, hash TEXT NOT NULL,
		received_at INTEGER NOT NULL, timestamp INTEGER NOT NULL, level TEXT NOT NULL, environment TEXT, release TEXT,
		event TEXT NOT NULL, user_key TEXT, fingerprint_hash TEXT)`,
	// The ids senders gave the events of the last day (Sentry's event_id): a repeat is not counted again.
	`CREATE TABLE IF NOT EXISTS client_event_ids (id TEXT PRIMARY KEY, received_at INTEGER NOT NULL) WITHOUT ROWID`,
	`CREATE INDEX IF NOT EXISTS client_event_ids_received ON client_event_ids (received_at)`,
	// Issues merged into another (Sentry's merge): the events of their fingerprints go to `into_hash` from then on.
	`CREATE TABLE IF NOT EXISTS merged_issues (hash TEXT PRIMARY KEY, into_hash TEXT NOT NULL) WITHOUT ROWID`,
	// Merges and unmerges done here and not yet in D1, in the order made: moved before any other row, in the next batch.
	`CREATE TABLE IF NOT EXISTS merge_outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, into_hash TEXT NOT NULL, hashes TEXT NOT NULL,
		environment_users TEXT NOT NULL, kind TEXT NOT NULL DEFAULT 'merge')`,
	// Accepted feedback not yet in D1, with its attachments (already in R2) as a JSON list.
	`CREATE TABLE IF NOT EXISTS feedback_outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL, user_id TEXT NOT NULL,
		project_name TEXT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, created_at INTEGER NOT NULL,
		attachments TEXT NOT NULL DEFAULT '[]', attachment_bytes INTEGER NOT NULL DEFAULT 0)`,
	...ACTIVITY_SCHEMA,
	...ALERT_SCHEMA,
];

/**
 * Brings an object's tables created by an earlier version up to SCHEMA; run after it. An outbox
 * from before user_key keeps its waiting events, which count in their environment without a user.
 * Issues from before `unhandled` start handled here: D1 keeps what migration 0018 found in their
 * stored events (the flag is only ever raised there), and their next unhandled event raises it here.
 */
export function upgradeSchema(sql: SqlStorage): void {
	const missing = (table: string, column: string) => sql.exec(`SELECT 1 FROM pragma_table_info(?) WHERE name = ?`, table, column).toArray().length === 0;
	if (missing("outbox", "user_key")) sql.exec(`ALTER TABLE outbox ADD COLUMN user_key TEXT`);
	if (missing("groups", "unhandled")) sql.exec(`ALTER TABLE groups ADD COLUMN unhandled INTEGER NOT NULL DEFAULT 0`);
	if (missing("groups", "ignored_until")) {
		sql.exec(`ALTER TABLE groups ADD COLUMN ignored_until INTEGER`);
		sql.exec(`ALTER TABLE groups ADD COLUMN ignored_until_count INTEGER`);
	}
	if (missing("groups", "ignored_until_users")) sql.exec(`ALTER TABLE groups ADD COLUMN ignored_until_users INTEGER`);
	if (missing("groups", "ignored_until_escalating")) {
		for (const column of ["ignored_until_escalating", "escalation_hour", "escalation_events", "escalated_at"]) sql.exec(`ALTER TABLE groups ADD COLUMN ${column} INTEGER`);
	}
	// A limit drawn before its time was kept is drawn again at the object's next alarm.
	if (missing("groups", "resolved_in_next_release")) sql.exec(`ALTER TABLE groups ADD COLUMN resolved_in_next_release INTEGER NOT NULL DEFAULT 0`);
	if (missing("groups", "escalation_drawn_at")) sql.exec(`ALTER TABLE groups ADD COLUMN escalation_drawn_at INTEGER`);
	// Events waiting from before a merge kept where their fingerprint goes cannot be unmerged, as D1's older events.
	if (missing("outbox", "fingerprint_hash")) sql.exec(`ALTER TABLE outbox ADD COLUMN fingerprint_hash TEXT`);
	if (missing("merge_outbox", "kind")) sql.exec(`ALTER TABLE merge_outbox ADD COLUMN kind TEXT NOT NULL DEFAULT 'merge'`);
	// A webhook set before feedback alerts alerts feedback too, as a new one does unless told not to.
	if (missing("alert_webhook", "feedback")) sql.exec(`ALTER TABLE alert_webhook ADD COLUMN feedback INTEGER NOT NULL DEFAULT 1`);
	// Issues from before short ids are numbered in the order they opened, and sent to D1 again with their numbers.
	if (missing("groups", "short_id")) {
		sql.exec(`ALTER TABLE groups ADD COLUMN short_id INTEGER`);
		sql.exec(`UPDATE groups SET short_id = numbered.n, version = version + 1
			FROM (SELECT hash, row_number() OVER (ORDER BY first_seen, hash) AS n FROM groups) AS numbered WHERE groups.hash = numbered.hash`);
		sql.exec(`INSERT OR REPLACE INTO meta (key, value) SELECT ?, count(*) FROM groups`, SHORT_IDS_GIVEN);
	}
}
