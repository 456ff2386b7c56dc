/**
 * The issue list (GET /api/issues): a page of a key's issues in one of three orders, each page one
 * walk of an index from its cursor (docs/data-model.md#log_issues). Filtered by environment, a page
 * walks that environment's rows instead (log_issue_environments), and each issue's count, users,
 * first and last seen are its figures there: what the list shows, and sorts by, as Sentry does.
 */
import { and, desc, eq, gte, isNotNull, or, sql } from "drizzle-orm";
import { logIssueEnvironments, logIssues } from "../../schema";
import { clientEventIdOf, ESCALATING_FOR_MS, type IssueSort, type IssueStatus, type IssueSubstatus } from "../api/issues";
import type { SeenBound, TagSearch, TimesSeen, UserField } from "../api/issueSearch";
import { database } from "../db";
import { OWNER_LIMITS } from "../limits";
import { firstReleaseCondition, tagCondition } from "./issueTags";
import { ISSUE_IN_ENVIRONMENT, type IssueRow, type KeyOwner } from "./logStore";

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
	/** Only issues whose earliest event (in `environment`, when given) carried this release (`*` for any text). */
	first_release?: string;
	q?: string;
	/** The number of the issue whose short id `q` is (shortId.ts): that issue is found too. */
	q_short_id?: number;
	/** The issue's level, in any letter case (Sentry's `level:`). */
	level?: string;
	/** Only issues with an unhandled event (Sentry's `is:unhandled`). */
	unhandled?: boolean;
	/** Only open issues that regressed (open again, the release they were resolved in kept), or escalated within ESCALATING_FOR_MS. */
	substatus?: IssueSubstatus;
	sort?: IssueSort;
	/** Issues with an event whose user has this id, or this email in any letter case. */
	user?: string;
	/** Only the id, or only the email, must match `user`. */
	user_field?: UserField;
	/** Only issues last seen (in `environment`, when given) at or after this time (ms). */
	seenSince?: number;
	/** Only issues first seen (in `environment`, when given) at or after this time (ms): new since then. */
	firstSeenSince?: number;
	/** Only issues last or first seen (in `environment`, when given) within each of these bounds. */
	seen?: SeenBound[];
	/** Only issues with events (in `environment`, when given) that carried each of these tag values. */
	tags?: TagSearch[];
	/** Only issues whose count (in `environment`, when given) compares so (Sentry's `timesSeen:>100`). */
	times_seen?: TimesSeen;
	after?: IssuePosition;
	limit?: number;
}

/**
 * The issues one person ran into: each half is a search of its expression index on log_events
 * (migration 0007), whose expressions these must repeat exactly. UNION ALL, deduplicated after:
 * a plain UNION makes SQLite prefer the index sorted by group_hash and scan the key's events.
 */
const OF_USER_ID = "SELECT group_hash FROM log_events WHERE key_id = ?1 AND json_extract(event, '$.user.id') = ?2";
const OF_USER_EMAIL = "SELECT group_hash FROM log_events WHERE key_id = ?1 AND lower(json_extract(event, '$.user.email')) = lower(?2)";
export const ISSUES_OF_USER = `${OF_USER_ID} UNION ALL ${OF_USER_EMAIL}`;
const ISSUES_OF_USER_FIELD: Readonly<Record<UserField, string>> = { id: OF_USER_ID, email: OF_USER_EMAIL };

async function issuesOfUser(env: Env, owner: KeyOwner, user: string, field?: UserField): Promise<string[]> {
	const statement = field ? ISSUES_OF_USER_FIELD[field] : ISSUES_OF_USER;
	const { results } = await env.DB.prepare(statement).bind(owner.keyId, user).all<{ group_hash: string }>();
	return [...new Set(results.map((row) => row.group_hash))];
}

/** Each order's columns, all descending, the last the tie-break, in the issues' table or their rows per environment. */
const sortColumnsOf = (t: typeof logIssues | typeof logIssueEnvironments) =>
	({
		last_seen: [t.lastSeen, t.groupHash],
		first_seen: [t.firstSeen, t.groupHash],
		count: [t.count, t.lastSeen, t.groupHash],
		users: [t.users, t.lastSeen, t.groupHash],
	}) as const;

/** The orders of the whole list: the columns of their indexes after key_id (and status), migrations 0012 and 0023 (users). */
export const SORT_COLUMNS = sortColumnsOf(logIssues);
/** The same orders by an issue's figures in one environment: the columns of their indexes after key_id and environment, migrations 0017 and 0023. */
const ENVIRONMENT_SORT_COLUMNS = sortColumnsOf(logIssueEnvironments);

/** An issue's values in the columns of its sort (the figures the list showed it with): where the page after it starts. */
export function sortValuesOf(issue: IssueRow, sort: IssueSort): IssuePosition["values"] {
	const leading = {
		last_seen: [issue.lastSeen.getTime()],
		first_seen: [issue.firstSeen.getTime()],
		count: [issue.count, issue.lastSeen.getTime()],
		users: [issue.users, issue.lastSeen.getTime()],
	}[sort];
	return [...leading, issue.groupHash];
}

/**
 * The list's statement; `ofUser` the issues of `filters.user`, already looked up. A row-value
 * comparison with the position is a range of the order's index, so a page is one walk of it from
 * there, release and text filters checked per row of this key's issues. With an environment the
 * walk is of that environment's rows, each issue found by its key (CROSS JOIN keeps SQLite from
 * walking the issues instead and sorting).
 */
export function issueListQuery(env: Env, owner: KeyOwner, filters: IssueFilters, ofUser?: string[]) {
	// Text found anywhere in the title or culprit, ASCII letters in either case (SQLite's lower(), as
	// LIKE would; but LIKE refuses patterns over 50 bytes in D1, and a pasted title is longer).
	const needle = filters.q || undefined;
	// A search that could be an event's own id (32 hex digits, or a UUID).
	const eventId = filters.q ? clientEventIdOf(filters.q.trim()) : null;
	const sort = filters.sort ?? "last_seen";
	const { environment, after } = filters;
	const columns = (environment === undefined ? SORT_COLUMNS : ENVIRONMENT_SORT_COLUMNS)[sort];
	const seen = environment === undefined ? logIssues : logIssueEnvironments;
	const conditions = and(
		eq(logIssues.userId, owner.userId),
		filters.status ? eq(logIssues.status, filters.status) : undefined,
		filters.level !== undefined ? sql`lower(${logIssues.level}) = lower(${filters.level})` : undefined,
		filters.unhandled ? eq(logIssues.unhandled, true) : undefined,
		filters.substatus ? eq(logIssues.status, "open") : undefined,
		filters.substatus === "regressed" ? isNotNull(logIssues.resolvedInRelease) : undefined,
		filters.substatus === "escalating" ? gte(logIssues.escalatedAt, new Date(Date.now() - ESCALATING_FOR_MS)) : undefined,
		filters.release !== undefined ? sql`exists (select 1 from json_each(${logIssues.releases}) where value = ${filters.release})` : undefined,
		filters.first_release !== undefined ? firstReleaseCondition(owner.keyId, filters.first_release, logIssues.groupHash, environment) : undefined,
		needle
			? or(
					sql`instr(lower(${logIssues.title}), lower(${needle})) > 0`,
					sql`instr(lower(${logIssues.culprit}), lower(${needle})) > 0`,
					eq(logIssues.groupHash, needle.toLowerCase()),
					// Sentry's short id, pasted: checked on each issue walked, as the text is (an index of it would be
					// narrower than the order's, and SQLite would walk it for the key's issues and sort them).
					filters.q_short_id !== undefined ? eq(logIssues.shortId, filters.q_short_id) : undefined,
					// The issue of the event the id an SDK showed someone names (log_events_key_event_id_idx).
					eventId
						? sql`${logIssues.groupHash} in (select group_hash from log_events where key_id = ${owner.keyId} and json_extract(event, '$.event_id') = ${eventId})`
						: undefined,
				)
			: undefined,
		ofUser ? sql`${logIssues.groupHash} in (select value from json_each(${JSON.stringify(ofUser)}))` : undefined,
		filters.seenSince !== undefined ? sql`${seen.lastSeen} >= ${filters.seenSince}` : undefined,
		filters.firstSeenSince !== undefined ? sql`${seen.firstSeen} >= ${filters.firstSeenSince}` : undefined,
		// Each operator, here and below, is one of those the search's parser names: never text from the request.
		...(filters.seen ?? []).map(({ field, op, at }) => sql`${field === "last_seen" ? seen.lastSeen : seen.firstSeen} ${sql.raw(op)} ${at}`),
		filters.times_seen ? sql`${seen.count} ${sql.raw(filters.times_seen.op)} ${filters.times_seen.count}` : undefined,
		...(filters.tags ?? []).map((tag) => tagCondition(owner.keyId, tag, logIssues.groupHash, environment)),
		after ? sql`(${sql.join([...columns], sql`, `)}) < (${sql.join(after.values.map((v) => sql`${v}`), sql`, `)})` : undefined,
	);
	const order = columns.map((column) => desc(column));
	const limit = filters.limit ?? OWNER_LIMITS.issueList;
	const db = database(env);
	if (environment === undefined) {
		return db
			.select()
			.from(logIssues)
			.where(and(eq(logIssues.keyId, owner.keyId), conditions))
			.orderBy(...order)
			.limit(limit);
	}
	return db
		.select(ISSUE_IN_ENVIRONMENT)
		.from(logIssueEnvironments)
		.crossJoin(logIssues)
		.where(
			and(
				eq(logIssueEnvironments.keyId, owner.keyId),
				eq(logIssueEnvironments.environment, environment),
				eq(logIssues.keyId, logIssueEnvironments.keyId),
				eq(logIssues.groupHash, logIssueEnvironments.groupHash),
				conditions,
			),
		)
		.orderBy(...order)
		.limit(limit);
}

/** Most recently seen first (or newest, or most frequent), `limit` of them from `after` on. */
export async function selectIssues(env: Env, owner: KeyOwner, filters: IssueFilters): Promise<IssueRow[]> {
	const ofUser = filters.user === undefined ? undefined : await issuesOfUser(env, owner, filters.user, filters.user_field);
	if (ofUser?.length === 0) return [];
	return issueListQuery(env, owner, filters, ofUser);
}

