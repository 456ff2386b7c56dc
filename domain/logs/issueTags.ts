/**
 * An issue's tags, as Sentry keeps them: each value each tag of the issue's events took, counted
 * per environment in log_issue_tags as the key's ProjectCollector moves the events to D1. The tags
 * are the event's own (`tags`, the SDK's and the app's) and those Sentry draws from the event
 * itself (DRAWN_TAGS), an own tag of a drawn one's name giving way to it. They serve the issue
 * page's summary (each tag's most common values) and the issue list's tag search.
 */
import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { IssueTagsView, IssueTagView } from "../api/issues";
import type { TagSearch } from "../api/issueSearch";
import { deleteRows } from "../db";
import { OWNER_LIMITS } from "../limits";
import type { KeyOwner } from "./logStore";

/**
 * SQL over a row's stored `event`: whether an exception of its chain says `mechanism.handled` is
 * `handled`, as handledOf reads it (not handled wins over handled where both are said).
 */
export const anExceptionHandledIs = (handled: boolean) =>
	`event ->> '$.exception.mechanism.handled' = ${Number(handled)}
		OR EXISTS (SELECT 1 FROM json_each(event, '$.chained_exceptions') WHERE value ->> '$.mechanism.handled' = ${Number(handled)})`;

/**
 * The tags drawn from the event, each as SQL over a row's `event` (its document in JSONB, parsed
 * once), gathered into one object a row: D1 allows few terms in a compound SELECT. The summary
 * lists them in this order, before the event's own by name.
 */
const DRAWN_TAGS: Array<[key: string, sql: string]> = [
	["level", "event ->> '$.level'"],
	["handled", `CASE WHEN ${anExceptionHandledIs(false)} THEN 'no' WHEN ${anExceptionHandledIs(true)} THEN 'yes' END`],
	["mechanism", "event ->> '$.exception.mechanism.type'"],
	// Sentry's most searched key of an error: the type of the exception its title names here, and
	// each other type of its chain in chainedErrorTypes (an event counts once for each type it has).
	["error.type", "event ->> '$.exception.type'"],
	["environment", "event ->> '$.environment'"],
	["release", "event ->> '$.release'"],
	["browser", "trim(concat_ws(' ', event ->> '$.contexts.browser.name', event ->> '$.contexts.browser.version'))"],
	["browser.name", "event ->> '$.contexts.browser.name'"],
	["os", "trim(concat_ws(' ', event ->> '$.contexts.os.name', event ->> '$.contexts.os.version'))"],
	["os.name", "event ->> '$.contexts.os.name'"],
	["device", "coalesce(event ->> '$.contexts.device.model', event ->> '$.contexts.device.family')"],
	["runtime", "trim(concat_ws(' ', event ->> '$.contexts.runtime.name', event ->> '$.contexts.runtime.version'))"],
	["runtime.name", "event ->> '$.contexts.runtime.name'"],
	// Without its query, as Sentry's url tag: one tag value a page, not one a visit.
	["url", "substr(event ->> '$.request.url', 1, instr((event ->> '$.request.url') || '?', '?') - 1)"],
	["user", "coalesce(event ->> '$.user.email', event ->> '$.user.id', event ->> '$.user.username', event ->> '$.user.ip_address')"],
];
const DRAWN_ORDER = new Map(DRAWN_TAGS.map(([key], i) => [key, i]));
const DRAWN_SQL = new Map(DRAWN_TAGS);

/**
 * SQL over one row's stored `event`: the value it carries for tag `key`, as the tag counts take it
 * (a drawn tag's, or the event's own of a name no drawn tag has; text, null when empty or absent).
 */
function eventTagValue(key: string): SQL {
	const drawn = DRAWN_SQL.get(key);
	const value = drawn === undefined ? sql`(select t.value from json_each(event, '$.tags') as t where t.key = ${key})` : sql.raw(drawn);
	return sql`nullif(cast(${value} as text), '')`;
}

/**
 * SQL over one row's stored `event`: whether it carries the tag's value searched (any value when
 * none is; null when it has none), `error.type` in any exception of its chain, as the counts take it.
 */
export function eventTagMatch(key: string, value?: string | readonly string[]): SQL {
	const carries = tagValueMatch(eventTagValue(key), value);
	if (key !== "error.type") return carries;
	const chained = tagValueMatch(sql`nullif(cast(c.value ->> '$.type' as text), '')`, value);
	return sql`(${carries} or exists (select 1 from json_each(event, '$.chained_exceptions') as c where ${chained}))`;
}

/**
 * The `error.type` pairs of the events in `source` (with `row_id`, `event` and the columns named)
 * beyond the reported exception's: each other type of the chain (`chained_exceptions`), once an
 * event however often the chain repeats it, as Sentry's search takes any exception of the chain.
 */
const chainedErrorTypes = (source: string, columns: string) =>
	`SELECT DISTINCT ${columns}, ${source}.row_id, 'error.type' AS key, c.value ->> '$.type' AS value
		FROM ${source}, json_each(${source}.event, '$.chained_exceptions') AS c
		WHERE (c.value ->> '$.type') IS NOT (${source}.event ->> '$.exception.type')`;

/**
 * Every (columns…, key, value) pair of the events in `source` (a CTE with an `event` column in
 * JSONB, a `row_id` unique to each event, and the columns named): the event's own tags, then the
 * drawn ones; empty values left out.
 */
function tagPairs(source: string, columns: string): string {
	const own = `SELECT ${columns}, t.key AS key, t.value AS value FROM ${source}, json_each(${source}.event, '$.tags') AS t
		WHERE t.key NOT IN (${DRAWN_TAGS.map(([key]) => `'${key}'`).join(", ")})`;
	const drawn = `SELECT ${columns}, d.key, d.value FROM ${source}, json_each(json_object(${DRAWN_TAGS.map(([key, sql]) => `'${key}', ${sql}`).join(", ")})) AS d`;
	const chained = `SELECT ${columns}, key, value FROM (${chainedErrorTypes(source, columns)})`;
	return `SELECT ${columns}, key, CAST(value AS TEXT) AS value FROM (${own} UNION ALL ${drawn} UNION ALL ${chained}) WHERE value IS NOT NULL AND value <> ''`;
}

const UPSERT_TAGS = `INSERT INTO log_issue_tags (key_id, group_hash, environment, tag_key, value, count, first_seen, last_seen)`;
const ADD_TO_TAGS = `ON CONFLICT (key_id, group_hash, environment, tag_key, value) DO UPDATE SET count = count + excluded.count,
		first_seen = min(first_seen, excluded.first_seen), last_seen = max(last_seen, excluded.last_seen)`;

/**
 * ?1 key, ?2 the events moved (rows as INSERT_EVENTS takes them): the tags of those D1 does not
 * have yet, added to their issues' counts. Runs before they are inserted, in the same batch.
 */
export const TAG_ADDITIONS = `${UPSERT_TAGS}
	WITH fresh AS (
		SELECT b.key AS row_id, b.value ->> 1 AS group_hash, coalesce(b.value ->> 5, '') AS environment, b.value ->> 3 AS timestamp, jsonb(b.value ->> 7) AS event
		FROM json_each(?2) AS b WHERE NOT EXISTS (SELECT 1 FROM log_events AS e WHERE e.id = b.value ->> 0)
	)
	SELECT ?1, group_hash, environment, key, value, count(*), min(timestamp), max(timestamp)
	FROM (${tagPairs("fresh", "group_hash, environment, timestamp")}) WHERE true GROUP BY 2, 3, 4, 5
	${ADD_TO_TAGS}`;

/**
 * Migrations 0029 and 0030: the drawn tag `error.type` counted from the events stored then (0029
 * the reported exception's type, 0030 each type of the chain). Each migration first deletes every
 * row of that name: an app's own tag of it gives way, as to any drawn one, and the events moved
 * between the new code's start and the migration are counted once.
 */
export const ERROR_TYPE_BACKFILL = `${UPSERT_TAGS}
	WITH stored AS (
		SELECT id AS row_id, key_id, group_hash, coalesce(environment, '') AS environment, timestamp, jsonb(event) AS event
		FROM log_events
	), types AS (
		SELECT key_id, group_hash, environment, timestamp, ${DRAWN_SQL.get("error.type")} AS value FROM stored
		UNION ALL SELECT key_id, group_hash, environment, timestamp, value FROM (${chainedErrorTypes("stored", "key_id, group_hash, environment, timestamp")})
	)
	SELECT key_id, group_hash, environment, 'error.type', CAST(value AS TEXT), count(*), min(timestamp), max(timestamp)
	FROM types WHERE value IS NOT NULL AND value <> '' GROUP BY 1, 2, 3, 5
	${ADD_TO_TAGS}`;

/**
 * ?1 key, ?2 issues (a JSON list) whose rows an unmerge deleted: counted again from their events
 * stored, as the migration counted every issue's.
 */
export const TAG_RECOUNT = `${UPSERT_TAGS}
	WITH stored AS (
		SELECT id AS row_id, group_hash, coalesce(environment, '') AS environment, timestamp, jsonb(event) AS event
		FROM log_events WHERE key_id = ?1 AND group_hash IN (SELECT value FROM json_each(?2))
	)
	SELECT ?1, group_hash, environment, key, value, count(*), min(timestamp), max(timestamp)
	FROM (${tagPairs("stored", "group_hash, environment, timestamp")}) WHERE true GROUP BY 2, 3, 4, 5
	${ADD_TO_TAGS}`;

/**
 * ?1 key, ?2 group hash, ?3 environment or null, ?4 values per tag: each tag's values summed over
 * the environments asked, ranked in one pass; `events` is the level's total, a tag every event has.
 * The issue's rows are read first (MATERIALIZED): grouped where they are read, SQLite would walk
 * the key's tags in the search index for its order rather than sort the issue's few.
 */
export const ISSUE_TAGS = `
WITH issue AS MATERIALIZED (
	SELECT tag_key, value, count FROM log_issue_tags WHERE key_id = ?1 AND group_hash = ?2 AND (?3 IS NULL OR environment = ?3)
), counted AS (
	SELECT tag_key AS key, value, sum(count) AS n FROM issue GROUP BY 1, 2
)
SELECT key, value, n, total, distinct_values FROM (
	SELECT key, value, n, sum(n) OVER tag AS total, count(*) OVER tag AS distinct_values,
		row_number() OVER (PARTITION BY key ORDER BY n DESC, value) AS rank
	FROM counted WINDOW tag AS (PARTITION BY key)
) WHERE rank <= ?4 ORDER BY key, rank`;

interface TagRow {
	key: string;
	value: string;
	n: number;
	total: number;
	distinct_values: number;
}

export async function issueTags(env: Env, owner: KeyOwner, groupHash: string, environment?: string): Promise<IssueTagsView> {
	const { results } = await env.DB.prepare(ISSUE_TAGS).bind(owner.keyId, groupHash, environment ?? null, OWNER_LIMITS.issueTagValues).all<TagRow>();
	const tags = new Map<string, IssueTagView>();
	for (const row of results) {
		const tag = tags.get(row.key) ?? { key: row.key, total: row.total, distinct: row.distinct_values, values: [] };
		tag.values.push({ value: row.value, count: row.n });
		tags.set(row.key, tag);
	}
	const order = (key: string) => DRAWN_ORDER.get(key) ?? DRAWN_ORDER.size;
	return {
		events: tags.get("level")?.total ?? 0,
		tags: [...tags.values()].sort((a, b) => order(a.key) - order(b.key) || (a.key < b.key ? -1 : 1)),
	};
}

/**
 * ?1 key, ?2 group hash, ?3 environment or null: the release of the issue's earliest event and of its
 * latest (Sentry's "first seen in" and "last seen in"), from the release tag's first and last seen;
 * null when its events carried none. The issue's own rows by primary key, as the summary reads them.
 */
export const ISSUE_RELEASES = `
WITH releases AS MATERIALIZED (
	SELECT value, first_seen, last_seen FROM log_issue_tags WHERE key_id = ?1 AND group_hash = ?2 AND (?3 IS NULL OR environment = ?3) AND tag_key = 'release'
)
SELECT (SELECT value FROM releases ORDER BY first_seen, value LIMIT 1) AS first_release,
	(SELECT value FROM releases ORDER BY last_seen DESC, value LIMIT 1) AS last_release`;

export async function issueReleases(env: Env, owner: KeyOwner, groupHash: string, environment?: string) {
	const row = await env.DB.prepare(ISSUE_RELEASES).bind(owner.keyId, groupHash, environment ?? null).first<{ first_release: string | null; last_release: string | null }>();
	return { first_release: row?.first_release ?? null, last_release: row?.last_release ?? null };
}

/**
 * Whether the issue's earliest event, in `environment` when given, carried `release` (a pattern
 * when it holds `*`): Sentry's `firstRelease:`, the first release as ISSUE_RELEASES reads it. The
 * issues that carried the release at all are found as a tag search finds them; each of those then
 * reads its own release rows by primary key for the first.
 */
export function firstReleaseCondition(keyId: string, release: string, groupHash: SQLWrapper, environment?: string): SQL {
	const inEnvironment = environment === undefined ? sql`` : sql` and environment = ${environment}`;
	const firstRelease = sql`(select value from log_issue_tags where key_id = ${keyId} and group_hash = ${groupHash}${inEnvironment} and tag_key = 'release' order by first_seen, value limit 1)`;
	return sql`(${tagCondition(keyId, { key: "release", value: release }, groupHash, environment)} and ${tagValueMatch(firstRelease, release)})`;
}

/**
 * A tag search's value as a GLOB pattern: `*` any text, everything else as itself (GLOB's own
 * `?` and `[` bracketed), so `url:*checkout*` finds the URLs holding "checkout", case as typed.
 */
const globOf = (value: string) => value.replace(/[?[\]]/g, "[$&]");

/**
 * Whether `subject`, a tag's value, is the one searched (a pattern when it holds `*`), or one of a
 * list's (bound as one JSON array, however long: D1 binds at most 100 values to a statement); any
 * value when none is.
 */
function tagValueMatch(subject: SQLWrapper, value?: string | readonly string[]): SQL {
	if (value === undefined) return sql`${subject} is not null`;
	if (typeof value !== "string") {
		if (!value.some((one) => one.includes("*"))) return sql`${subject} in (select value from json_each(${JSON.stringify(value)}))`;
		return sql`exists (select 1 from json_each(${JSON.stringify(value.map(globOf))}) as pattern where ${subject} glob pattern.value)`;
	}
	return value.includes("*") ? sql`${subject} glob ${globOf(value)}` : sql`${subject} = ${value}`;
}

/**
 * Whether the issue (its `groupHash` column) had an event, in `environment` when given, that
 * carried the tag's value searched (any value when none is), or with `negated`, as Sentry's
 * exclusion, one that did not. The first is one search of log_issue_tags_key_tag_value_idx for
 * the issues of the value (a range for a pattern or for the tag alone). A negation reads the
 * issue's own rows in one walk of their primary key (its only terms are the key, the issue and
 * the environment: a term on the tag would let SQLite walk the tag index through every issue's
 * rows for each issue): the issue's events (each carries a level) outnumber those that carried the
 * value (one value an event of most tags, so the values' counts add up to the events'). An event
 * counts once for each of its values, so where `error.type` gives one event two values that match
 * (a pattern, a list, `has:`), such an event is counted twice and may hide an issue's other event.
 */
export function tagCondition(keyId: string, search: TagSearch, groupHash: SQLWrapper, environment?: string): SQL {
	const { key, value } = search;
	const inEnvironment = environment === undefined ? sql`` : sql` and environment = ${environment}`;
	// Qualified: a list's values are read from a json_each, whose own column is `value` too.
	const valueMatch = value === undefined ? undefined : tagValueMatch(sql`log_issue_tags.value`, value);
	if (!search.negated) {
		return sql`${groupHash} in (select group_hash from log_issue_tags where key_id = ${keyId} and tag_key = ${key}${valueMatch ? sql` and ${valueMatch}` : sql``}${inEnvironment})`;
	}
	const matching = valueMatch ? sql` and ${valueMatch}` : sql``;
	const anEventWithout = sql`coalesce(sum(count) filter (where tag_key = 'level'), 0) > coalesce(sum(count) filter (where tag_key = ${key}${matching}), 0)`;
	return sql`(select ${anEventWithout} from log_issue_tags where key_id = ${keyId} and group_hash = ${groupHash}${inEnvironment})`;
}

/** Tag values last seen before ?1 (ms), at most ?2, oldest first: no event that carried them is kept. */
export const DELETE_EXPIRED_ISSUE_TAGS = `DELETE FROM log_issue_tags WHERE (key_id, group_hash, environment, tag_key, value) IN (
	SELECT key_id, group_hash, environment, tag_key, value FROM log_issue_tags WHERE last_seen < ?1 ORDER BY last_seen LIMIT ?2)`;

/** Tag values last seen before `cutoff` (ms), at most `limit`, oldest first; how many were deleted. */
export const deleteExpiredIssueTags = (env: Env, cutoff: number, limit: number) => deleteRows(env.DB, DELETE_EXPIRED_ISSUE_TAGS, cutoff, limit);
