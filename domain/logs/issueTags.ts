/**
 * An issue's tags, as Sentry's issue page sums them up: for the issue's newest events, each tag's
 * most common values. The tags are the event's own (`tags`, the SDK's and the app's) and those
 * Sentry draws from the event itself: level, handled, environment, release, browser, os, device,
 * url and user, in that order before the event's own by name (an own tag of one of those names
 * gives way to the drawn one).
 */
import type { IssueTagsView, IssueTagView } from "../api/issues";
import { OWNER_LIMITS } from "../limits";
import { anExceptionHandledIs, type KeyOwner } from "./logStore";

/**
 * The tags drawn from the event, each as SQL over a row's `event` (its document in JSONB, parsed
 * once), gathered into one object a row: D1 allows few terms in a compound SELECT.
 */
const DRAWN_TAGS: Array<[key: string, sql: string]> = [
	["level", "event ->> '$.level'"],
	["handled", `CASE WHEN ${anExceptionHandledIs(false)} THEN 'no' WHEN ${anExceptionHandledIs(true)} THEN 'yes' END`],
	["environment", "event ->> '$.environment'"],
	["release", "event ->> '$.release'"],
	["browser", "trim(concat_ws(' ', event ->> '$.contexts.browser.name', event ->> '$.contexts.browser.version'))"],
	["os", "trim(concat_ws(' ', event ->> '$.contexts.os.name', event ->> '$.contexts.os.version'))"],
	["device", "coalesce(event ->> '$.contexts.device.model', event ->> '$.contexts.device.family')"],
	["url", "event ->> '$.request.url'"],
	["user", "coalesce(event ->> '$.user.email', event ->> '$.user.id', event ->> '$.user.username', event ->> '$.user.ip_address')"],
];
const DRAWN_ORDER = new Map(DRAWN_TAGS.map(([key], i) => [key, i]));

/**
 * ?1 key, ?2 group hash, ?3 environment or null, ?4 events counted, ?5 values per tag. The newest
 * events walk the (key, group, timestamp) index; each tag's values are ranked in one pass.
 */
export const ISSUE_TAGS = `
WITH recent AS (
	SELECT jsonb(event) AS event FROM log_events
	WHERE key_id = ?1 AND group_hash = ?2 AND (?3 IS NULL OR environment = ?3)
	ORDER BY timestamp DESC LIMIT ?4
), pairs AS (
	SELECT t.key AS key, t.value AS value FROM recent, json_each(recent.event, '$.tags') t WHERE t.key NOT IN (${DRAWN_TAGS.map(([key]) => `'${key}'`).join(", ")})
	UNION ALL
	SELECT d.key, d.value FROM recent, json_each(json_object(${DRAWN_TAGS.map(([key, sql]) => `'${key}', ${sql}`).join(",\n\t\t")})) d
), counted AS (
	SELECT key, CAST(value AS TEXT) AS value, count(*) AS n FROM pairs WHERE value IS NOT NULL AND value <> '' GROUP BY 1, 2
)
SELECT (SELECT count(*) FROM recent) AS events, key, value, n, total, distinct_values FROM (
	SELECT key, value, n, sum(n) OVER tag AS total, count(*) OVER tag AS distinct_values,
		row_number() OVER (PARTITION BY key ORDER BY n DESC, value) AS rank
	FROM counted WINDOW tag AS (PARTITION BY key)
) WHERE rank <= ?5 ORDER BY key, rank`;

interface TagRow {
	events: number;
	key: string;
	value: string;
	n: number;
	total: number;
	distinct_values: number;
}

export async function issueTags(env: Env, owner: KeyOwner, groupHash: string, environment?: string): Promise<IssueTagsView> {
	const { results } = await env.DB.prepare(ISSUE_TAGS)
		.bind(owner.keyId, groupHash, environment ?? null, OWNER_LIMITS.issueTagEvents, OWNER_LIMITS.issueTagValues)
		.all<TagRow>();
	const tags = new Map<string, IssueTagView>();
	for (const row of results) {
		const tag = tags.get(row.key) ?? { key: row.key, total: row.total, distinct: row.distinct_values, values: [] };
		tag.values.push({ value: row.value, count: row.n });
		tags.set(row.key, tag);
	}
	const order = (key: string) => DRAWN_ORDER.get(key) ?? DRAWN_ORDER.size;
	return {
		events: results[0]?.events ?? 0,
		tags: [...tags.values()].sort((a, b) => order(a.key) - order(b.key) || (a.key < b.key ? -1 : 1)),
	};
}
