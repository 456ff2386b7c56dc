/**
 * The cut of a visitor's events into sessions (visits), as the statistics define them
 * (docs/api.md#statistics): runs of activity with no gap over 30 minutes, where an engagement
 * report counts for the time it reports before it. The statistics cut the events they count
 * (eventStats.ts), and a filter of the visit (`entry_page`, `source`..., filters.ts) cuts its
 * visitors' events to keep the sessions that meet it.
 */
import { ENGAGED_MS, ENTRY, SESSION_GAP_MS } from "./rollups";

/** What the cut reads of an event: who and when, what kind, the page view's entry columns and the engagement report's time. */
export const SESSION_COLUMNS = `visitor_id, ts, name, url_path, referrer_host, source, utm_source, utm_medium, utm_campaign, utm_content, utm_term, ref,
	CASE WHEN name = '_leave' THEN ${ENGAGED_MS} END AS engaged`;

/** Orders text by time: a zero-padded `ts` in front of it, so that min() and max() pick the first and last. */
const byTime = (text: string) => `printf('%015d', ts) || ${text}`;

/**
 * The sessions of `events` (a CTE's name or a subquery with SESSION_COLUMNS), as CTE `name`: one
 * row per session with its visitor, its first and last event's time (`first_ts`, `last_ts`: every
 * event of the visitor between them is the session's), its first page view's or custom event's
 * (`first_visit`: where the series count it, as the rollups do), its page views, custom events and engaged
 * time, and, when it has a page view, its first page view's path, source, campaign and ref
 * (`entry`, a JSON array), its first page view's referrer host (`entry_referrer`) and its last
 * page view's path, picked by min() and max() of time-prefixed text. `starts` marks a row that
 * opens a session, `session` numbers each visitor's sessions. The cut sorts its rows three times (both windows, then the grouping), so each row
 * carries only what the grouping reads: a page view's entry and exit as one text each, not the
 * eight columns they are made of. With `hits`, `events` has a column `hit` (1 for an event that
 * counts, else 0) and each session its number of such events, `hits`.
 */
export function sessionCut(events: string, name: string, hits = false): string {
	return `${name}_marked AS (
		SELECT visitor_id, ts, name, engaged,${hits ? " hit," : ""}
			CASE WHEN name = '' THEN ${byTime(ENTRY)} END AS entry_at,
			CASE WHEN name = '' THEN ${byTime("url_path")} END AS exit_at,
			CASE WHEN name = '' THEN ${byTime("referrer_host")} END AS referrer_at,
			CASE WHEN ts - coalesce(engaged, 0) - lag(ts) OVER (PARTITION BY visitor_id ORDER BY ts) <= ${SESSION_GAP_MS} THEN 0 ELSE 1 END AS starts
		FROM ${events} WHERE name <> '_identify'
	), ${name}_numbered AS (
		SELECT *, sum(starts) OVER (PARTITION BY visitor_id ORDER BY ts ROWS UNBOUNDED PRECEDING) AS session FROM ${name}_marked
	), ${name} AS MATERIALIZED (
		SELECT visitor_id, min(ts) AS first_ts, max(ts) AS last_ts,
			min(CASE WHEN name <> '_leave' THEN ts END) AS first_visit,
			sum(name = '') AS pageviews, sum(name NOT IN ('', '_leave')) AS custom, coalesce(sum(engaged), 0) AS engaged,
			substr(min(entry_at), 16) AS entry, substr(max(exit_at), 16) AS exit_path, substr(min(referrer_at), 16) AS entry_referrer${hits ? ", sum(hit) AS hits" : ""}
		FROM ${name}_numbered GROUP BY visitor_id, session
	)`;
}
