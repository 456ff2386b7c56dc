import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./accounts";
import { projectKeys } from "./keys";

import { ISSUE_STATUSES } from "../domain/api/issues";
import type { LogEvent } from "../domain/logs/logEvent";

/**
 * Log issues and events belong to the project key that sent them: revoking the key deletes
 * them (the foreign key cascades), regenerating it keeps them (the key row, and its id, stay).
 *
 * Both tables are written only by the key's ProjectCollector Durable Object, which holds the
 * authoritative group state and moves rows here in multi-row statements (docs/architecture.md#moving-rows-to-d1).
 */
export const logIssues = sqliteTable(
	"log_issues",
	{
		keyId: text("key_id")
			.notNull()
			.references(() => projectKeys.id, { onDelete: "cascade" }),
		groupHash: text("group_hash").notNull(),
		userId: text("user_id")
			.notNull()
			.references(() => users.id, { onDelete: "cascade" }),
		title: text("title").notNull(),
		culprit: text("culprit"),
		level: text("level").notNull(),
		status: text("status", { enum: ISSUE_STATUSES }).notNull().default("open"),
		count: integer("count").notNull(),
		/** Distinct affected users (by user id, else email, username or IP address). */
		users: integer("users").notNull(),
		firstSeen: integer("first_seen", { mode: "timestamp_ms" }).notNull(),
		lastSeen: integer("last_seen", { mode: "timestamp_ms" }).notNull(),
		environments: text("environments", { mode: "json" }).$type<string[]>().notNull(),
		releases: text("releases", { mode: "json" }).$type<string[]>().notNull(),
		/** The project's newest release when the issue was resolved; events from older releases do not reopen it. */
		resolvedInRelease: text("resolved_in_release"),
		/** Resolved in the release after `resolved_in_release` (Sentry's "in the next release"): its events do not reopen the issue either. */
		resolvedInNextRelease: integer("resolved_in_next_release", { mode: "boolean" }).notNull().default(false),
		/**
		 * An event of the issue was unhandled (an exception of its chain said `mechanism.handled: false`):
		 * set by the ProjectCollector, never cleared. Migration 0018 set it from the events stored then.
		 */
		unhandled: integer("unhandled", { mode: "boolean" }).notNull().default(false),
		/** An ignored issue reopens at its first event from this time on (Sentry's "ignore for a while"). */
		ignoredUntil: integer("ignored_until", { mode: "timestamp_ms" }),
		/** An ignored issue reopens at the event that brings its count to this (Sentry's "until it occurs N more times"). */
		ignoredUntilCount: integer("ignored_until_count"),
		/** An ignored issue reopens at the event that brings its affected users to this (Sentry's "until it affects N more users"). */
		ignoredUntilUsers: integer("ignored_until_users"),
		/** An ignored issue reopens at the event that takes its events of one hour past this (Sentry's "archive until escalating"). */
		ignoredUntilEscalating: integer("ignored_until_escalating"),
		/** When an event of an issue ignored until escalating reopened it; cleared by the owner's next status change. */
		escalatedAt: integer("escalated_at", { mode: "timestamp_ms" }),
		/** Its number in the project (domain/logs/shortId.ts), given by the key's ProjectCollector as it opened; null until that object numbers an issue stored before. */
		shortId: integer("short_id"),
	},
	(t) => [
		primaryKey({ columns: [t.keyId, t.groupHash] }),
		// The owner's list in each of its orders, optionally by status, ending in its tie-break
		// (group_hash), so a page from a cursor is one walk of an index (docs/data-model.md#log_issues).
		index("log_issues_key_last_seen_idx").on(t.keyId, t.lastSeen, t.groupHash),
		index("log_issues_key_status_last_seen_idx").on(t.keyId, t.status, t.lastSeen, t.groupHash),
		index("log_issues_key_first_seen_idx").on(t.keyId, t.firstSeen, t.groupHash),
		index("log_issues_key_status_first_seen_idx").on(t.keyId, t.status, t.firstSeen, t.groupHash),
		index("log_issues_key_count_idx").on(t.keyId, t.count, t.lastSeen, t.groupHash),
		index("log_issues_key_status_count_idx").on(t.keyId, t.status, t.count, t.lastSeen, t.groupHash),
		index("log_issues_key_users_idx").on(t.keyId, t.users, t.lastSeen, t.groupHash),
		index("log_issues_key_status_users_idx").on(t.keyId, t.status, t.users, t.lastSeen, t.groupHash),
		// The clean-up finds the key with the oldest expired issue.
		index("log_issues_last_seen_idx").on(t.lastSeen),
	],
);

/**
 * The environments and releases the key's issues hold (their `environments` and `releases`), each
 * with the latest `last_seen` of an issue holding it: what the issue list's filters offer, without
 * reading every issue. Written with the issues; a name whose last issue expired goes with it.
 */
export const logIssueNames = sqliteTable(
	"log_issue_names",
	{
		keyId: text("key_id")
			.notNull()
			.references(() => projectKeys.id, { onDelete: "cascade" }),
		kind: text("kind", { enum: ["environment", "release"] }).notNull(),
		name: text("name").notNull(),
		lastSeen: integer("last_seen", { mode: "timestamp_ms" }).notNull(),
	},
	(t) => [
		primaryKey({ columns: [t.keyId, t.kind, t.name] }),
		// The filters' names, most recently seen first; the clean-up's expired names of one key.
		index("log_issue_names_key_kind_last_seen_idx").on(t.keyId, t.kind, t.lastSeen),
	],
);

/**
 * An issue's figures in one environment: its events there, their distinct affected users, and when
 * the first and last of them were received. What the issue list shows, and sorts by, when it is
 * filtered by environment (docs/data-model.md#log_issue_environments). One row per environment an
 * issue holds (its `environments`, the first 100); events without an environment count in no row.
 *
 * Written with the events: each batch the ProjectCollector moves adds the events D1 did not have
 * yet, so a batch written twice counts once. Deleted with its issue by the clean-up. The migration
 * creates it WITHOUT ROWID (by hand: drizzle cannot say so), clustered on its key.
 */
export const logIssueEnvironments = sqliteTable(
	"log_issue_environments",
	{
		keyId: text("key_id")
			.notNull()
			.references(() => projectKeys.id, { onDelete: "cascade" }),
		groupHash: text("group_hash").notNull(),
		environment: text("environment").notNull(),
		count: integer("count").notNull(),
		users: integer("users").notNull(),
		firstSeen: integer("first_seen", { mode: "timestamp_ms" }).notNull(),
		lastSeen: integer("last_seen", { mode: "timestamp_ms" }).notNull(),
	},
	(t) => [
		primaryKey({ columns: [t.keyId, t.groupHash, t.environment] }),
		// The list filtered by environment, in each of its orders, as log_issues' indexes serve it unfiltered.
		index("log_issue_environments_key_env_last_seen_idx").on(t.keyId, t.environment, t.lastSeen, t.groupHash),
		index("log_issue_environments_key_env_first_seen_idx").on(t.keyId, t.environment, t.firstSeen, t.groupHash),
		index("log_issue_environments_key_env_count_idx").on(t.keyId, t.environment, t.count, t.lastSeen, t.groupHash),
		index("log_issue_environments_key_env_users_idx").on(t.keyId, t.environment, t.users, t.lastSeen, t.groupHash),
	],
);

/**
 * Who each issue had affected in each environment when log_issue_environments was created
 * (migration 0016), from the events stored then: the key's ProjectCollector takes its rows into
 * its own list of users per issue and environment on its first move to D1, and deletes them here.
 */
export const logIssueEnvironmentUsersSeed = sqliteTable(
	"log_issue_environment_users_seed",
	{
		keyId: text("key_id")
			.notNull()
			.references(() => projectKeys.id, { onDelete: "cascade" }),
		groupHash: text("group_hash").notNull(),
		environment: text("environment").notNull(),
		/** As the ProjectCollector keys a user (`id:…`, `email:…`, `username:…`, `ip:…`), the email not yet lower-cased. */
		user: text("user").notNull(),
	},
	(t) => [index("log_issue_environment_users_seed_key_idx").on(t.keyId)],
);

/**
 * Each value each tag of an issue's events took, per environment: how many events carried it, and
 * when the first and last of them happened (the tags as the issue page sums them up, drawn from
 * the event and its own; domain/logs/issueTags.ts). What the issue list's tag search
 * (`browser.name:Chrome`) and the issue's tag summary read, over every event, not its newest.
 * Events without an environment count under ''.
 *
 * Written with the events, as log_issue_environments: each batch the ProjectCollector moves adds
 * the events D1 did not have yet. The clean-up deletes a value last seen before the cutoff.
 */
export const logIssueTags = sqliteTable(
	"log_issue_tags",
	{
		keyId: text("key_id")
			.notNull()
			.references(() => projectKeys.id, { onDelete: "cascade" }),
		groupHash: text("group_hash").notNull(),
		environment: text("environment").notNull(),
		tagKey: text("tag_key").notNull(),
		value: text("value").notNull(),
		count: integer("count").notNull(),
		firstSeen: integer("first_seen", { mode: "timestamp_ms" }).notNull(),
		lastSeen: integer("last_seen", { mode: "timestamp_ms" }).notNull(),
	},
	(t) => [
		// The issue's summary reads its rows in all environments or one.
		primaryKey({ columns: [t.keyId, t.groupHash, t.environment, t.tagKey, t.value] }),
		// The list's tag search: the issues of a key with a tag's value.
		index("log_issue_tags_key_tag_value_idx").on(t.keyId, t.tagKey, t.value, t.groupHash),
		// The clean-up deletes expired values of every key, oldest first.
		index("log_issue_tags_last_seen_idx").on(t.lastSeen),
	],
);

export const logEvents = sqliteTable(
	"log_events",
	{
		id: text("id").primaryKey(),
		keyId: text("key_id")
			.notNull()
			.references(() => projectKeys.id, { onDelete: "cascade" }),
		groupHash: text("group_hash").notNull(),
		/**
		 * The hash of the issue the event's own fingerprint opens, when a merge gave the event to
		 * another (`group_hash`); null otherwise. What an unmerge moves back (docs/api.md#unmerge-issues).
		 * Events stored before migration 0027 in a merged issue hold null and stay where they are.
		 */
		fingerprintHash: text("fingerprint_hash"),
		receivedAt: integer("received_at", { mode: "timestamp_ms" }).notNull(),
		/**
		 * When the event happened, as its issue counts it: its own `timestamp`, but never after it was
		 * received, nor more than 30 days before (then when it was received; occurredAt in eventTimestamp.ts).
		 */
		timestamp: integer("timestamp", { mode: "timestamp_ms" }).notNull(),
		level: text("level").notNull(),
		environment: text("environment"),
		release: text("release"),
		/** The normalized event as stored (field rules applied, sensitive headers gone). */
		event: text("event", { mode: "json" }).$type<LogEvent>().notNull(),
	},
	(t) => [
		// An issue's latest events and its hourly counts, in all environments or one (the list
		// filtered by environment reads the environment here); also serves the cascade on key_id.
		index("log_events_key_group_timestamp_env_idx").on(t.keyId, t.groupHash, t.timestamp, t.environment),
		// The clean-up deletes expired events of every key, oldest first.
		index("log_events_timestamp_idx").on(t.timestamp),
		// The events merged into an issue from another fingerprint, by fingerprint: its merged
		// issues' counts and latest events, and an unmerge's move. Only those events are in it.
		index("log_events_key_group_fingerprint_idx")
			.on(t.keyId, t.groupHash, t.fingerprintHash, t.timestamp)
			.where(sql`${t.fingerprintHash} IS NOT NULL`),
	],
);
