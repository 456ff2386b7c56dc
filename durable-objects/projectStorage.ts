/**
 * A ProjectCollector's own SQLite: its tables, the issue row as grouping reads it, and how an
 * issue row becomes the snapshot D1 is given (docs/data-model.md#projectcollector).
 */
import type { IssueStatus } from "../domain/api/issues";
import type { IssueSnapshot } from "../domain/logs/logStore";

/** Distinct environments and releases remembered per issue. */
const MAX_NAMES_PER_ISSUE = 100;
/** What grouping an event into a known issue needs of its row: the rest it changes in place. */
export type GroupState = Pick<GroupRow, "status" | "resolved_in_release" | "environments" | "releases">;

export interface GroupRow extends Record<string, SqlStorageValue> {
	hash: string;
	title: string;
	culprit: string | null;
	level: string;
	status: IssueStatus;
	count: number;
	users: number;
	first_seen: number;
	last_seen: number;
	environments: string;
	releases: string;
	resolved_in_release: string | null;
	version: number;
}

export const SCHEMA = [
	`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS groups (
		hash TEXT PRIMARY KEY, title TEXT NOT NULL, culprit TEXT, level TEXT NOT NULL,
		status TEXT NOT NULL DEFAULT 'open', count INTEGER NOT NULL, users INTEGER NOT NULL DEFAULT 0,
		first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL,
		environments TEXT NOT NULL DEFAULT '[]', releases TEXT NOT NULL DEFAULT '[]', resolved_in_release TEXT,
		version INTEGER NOT NULL DEFAULT 1, flushed_version INTEGER NOT NULL DEFAULT 0)`,
	`CREATE INDEX IF NOT EXISTS groups_unflushed ON groups (hash) WHERE version > flushed_version`,
	`CREATE TABLE IF NOT EXISTS group_users (hash TEXT NOT NULL, user TEXT NOT NULL, PRIMARY KEY (hash, user)) WITHOUT ROWID`,
	// Every release the project has sent, in first-seen order: how non-version releases are ordered.
	`CREATE TABLE IF NOT EXISTS releases (seq INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE)`,
	// Accepted events not yet in D1.
	`CREATE TABLE IF NOT EXISTS outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL, hash TEXT NOT NULL,
		received_at INTEGER NOT NULL, timestamp INTEGER NOT NULL, level TEXT NOT NULL, environment TEXT, release TEXT,
		event TEXT NOT NULL)`,
	// Accepted feedback not yet in D1, with its attachments (already in R2) as a JSON list.
	`CREATE TABLE IF NOT EXISTS feedback_outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL, user_id TEXT NOT NULL,
		project_name TEXT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, created_at INTEGER NOT NULL,
		attachments TEXT NOT NULL DEFAULT '[]', attachment_bytes INTEGER NOT NULL DEFAULT 0)`,
];

/** Adds a name to a JSON list of at most MAX_NAMES_PER_ISSUE distinct names. */
export function withName(listJson: string, name: string | null): string {
	if (!name) return listJson;
	const names = JSON.parse(listJson) as string[];
	if (names.includes(name) || names.length >= MAX_NAMES_PER_ISSUE) return listJson;
	names.push(name);
	return JSON.stringify(names);
}

export function toSnapshot(g: GroupRow): IssueSnapshot {
	return {
		groupHash: g.hash,
		title: g.title,
		culprit: g.culprit,
		level: g.level,
		status: g.status,
		count: g.count,
		users: g.users,
		firstSeen: g.first_seen,
		lastSeen: g.last_seen,
		environments: JSON.parse(g.environments) as string[],
		releases: JSON.parse(g.releases) as string[],
		resolvedInRelease: g.resolved_in_release,
	};
}
