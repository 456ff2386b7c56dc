/**
 * What the issue list's search box suggests from log_issue_tags: the project's tag keys, and a
 * tag's most common values. Both read log_issue_tags_key_tag_value_idx alone (key_id, tag_key,
 * value, group_hash; as the table is WITHOUT ROWID, each entry holds the rest of the primary key,
 * environment, too), in bounds that keep a project with a request-id tag as cheap as any other.
 */
import type { TagKeysView, TagValuesView } from "../api/issueSearchSuggestions";
import { OWNER_LIMITS } from "../limits";
import type { KeyOwner } from "./logStore";

/**
 * ?1 key, ?2 environment or null, ?3 keys to read, ?4 rows of a key looked through for one in
 * the environment: the key's distinct tag keys in order, by a skip-scan of the tag index (each
 * step one seek for the least tag key past the last; a walk of the rows would read every value
 * of every tag). In an environment, a key is kept when one of its first ?4 rows (in value order)
 * is there: the index has no environment before the value, so an exact test could read all of a
 * request id's values.
 */
export const TAG_KEYS = `
WITH RECURSIVE tag_keys(tag_key) AS (
	SELECT min(tag_key) FROM log_issue_tags WHERE key_id = ?1
	UNION ALL
	SELECT (SELECT min(tag_key) FROM log_issue_tags WHERE key_id = ?1 AND tag_key > tag_keys.tag_key) FROM tag_keys WHERE tag_key IS NOT NULL
	LIMIT ?3
)
SELECT tag_key FROM tag_keys
WHERE tag_key IS NOT NULL AND (?2 IS NULL OR EXISTS (
	SELECT 1 FROM (SELECT environment FROM log_issue_tags WHERE key_id = ?1 AND tag_key = tag_keys.tag_key LIMIT ?4) WHERE environment = ?2
))`;

/**
 * ?1 key, ?2 tag key, ?3 GLOB pattern of the values (a prefix and `*`), ?4 environment or null, ?5
 * rows to count, ?6 values to answer: the values most events carried, summed over the issues (and
 * environments), ties by value. Only the first ?5 rows of the tag's range in the index (in value
 * order: a prefix narrows it) are counted, each row one issue's value in one environment, so a
 * tag with a million values costs as little as one with ten thousand; one row more is read to
 * tell whether any were left out (`rows_read` > ?5; the one row answered when no value is).
 */
export const TAG_VALUES = `
WITH read AS MATERIALIZED (
	SELECT value, environment, count FROM log_issue_tags WHERE key_id = ?1 AND tag_key = ?2 AND value GLOB ?3 ORDER BY value LIMIT ?5 + 1
), ranked AS (
	-- read keeps the index's value order: these are the tag's first ?5 rows.
	SELECT value, sum(count) AS n FROM (SELECT value, environment, count FROM read LIMIT ?5)
	WHERE ?4 IS NULL OR environment = ?4 GROUP BY value ORDER BY n DESC, value LIMIT ?6
)
SELECT (SELECT count(*) FROM read) AS rows_read, value, n FROM (SELECT 1) LEFT JOIN ranked ON true ORDER BY n DESC, value`;

/** A typed prefix as a GLOB pattern: GLOB's own `*`, `?` and `[` bracketed to stand for themselves. */
export const prefixPattern = (prefix: string) => `${prefix.replace(/[*?[]/g, "[$&]")}*`;

/** The project's tag keys (in `environment` when given), in order, at most OWNER_LIMITS.issueSearchKeys. */
export async function tagKeys(env: Env, owner: KeyOwner, environment?: string): Promise<TagKeysView> {
	const limit = OWNER_LIMITS.issueSearchKeys;
	// One key more than answered says whether any were left out.
	const { results } = await env.DB.prepare(TAG_KEYS)
		.bind(owner.keyId, environment ?? null, limit + 1, OWNER_LIMITS.issueSearchKeyProbeRows)
		.all<{ tag_key: string }>();
	return { keys: results.slice(0, limit).map((row) => row.tag_key), partial: results.length > limit };
}

/** A tag's `limit` most common values across the project's issues, from `prefix` (letter case as typed), in `environment` when given. */
export async function tagValues(env: Env, owner: KeyOwner, key: string, filter: { prefix?: string; environment?: string; limit: number }): Promise<TagValuesView> {
	const rowsCounted = OWNER_LIMITS.issueSearchValueRows;
	const { results } = await env.DB.prepare(TAG_VALUES)
		.bind(owner.keyId, key, prefixPattern(filter.prefix ?? ""), filter.environment ?? null, rowsCounted, filter.limit)
		.all<{ rows_read: number; value: string | null; n: number }>();
	return {
		key,
		values: results.flatMap((row) => (row.value === null ? [] : [{ value: row.value, count: row.n }])),
		partial: (results[0]?.rows_read ?? 0) > rowsCounted,
	};
}
