/**
 * The analytics_events and analytics_identities tables: batched writes from the SiteCollector's
 * outbox (with the rollups of rollups.ts in the same transaction), the raw event list, identified
 * users, deletion with the site, and the clean-up of what is older than the analytics retention.
 * The statistics read from them are in eventStats.ts and siteStats.ts.
 */
import { eq } from "drizzle-orm";
import { analyticsEvents, analyticsIdentities, analyticsRollups } from "../../schema";
import { database, deleteRows, expiredRollupsDelete, expiredRowsDelete } from "../db";
import { columnField, jsonArraysOf } from "../jsonRows";
import { OWNER_LIMITS } from "../limits";
import { STORED_COLUMNS, type StoredEvent } from "./event";
import { addingToRollupRows, DAY_MS, HOUR_MS } from "./rollups";
import { ROLLUP_ADDITIONS, type VisitorDays } from "./rollupWriter";
import { IS_PROPERTY, propertiesOf, type StatsRange } from "./statsRange";

// ---------------------------------------------------------------------------------------------
// Writes: rows travel as JSON arrays unpacked by json_each (see jsonRows.ts), each event an array
// of its STORED_COLUMNS in order (SQLite reads an array element faster than an object's member, and the
// batch is smaller). A repeated event_id is ignored by the primary key (tracking_id, event_id).

/** Names of page views ("") and of the tracker's own events: no custom event, no properties. */
const RESERVED = new Set(["", "_leave", "_identify"]);

/** An event's field in a batch row. */
const field = (key: keyof StoredEvent, from = "") => columnField(STORED_COLUMNS, key, from);

const INSERT_EVENTS = `INSERT OR IGNORE INTO analytics_events (${STORED_COLUMNS.map(([c]) => c).join(", ")})
	SELECT ${STORED_COLUMNS.map(([, k]) => field(k)).join(", ")} FROM json_each(?1)`;

// `_identify` links the visitor to the site's own user id; seeing the pair again moves last_seen.
const UPSERT_IDENTITIES = `INSERT INTO analytics_identities (tracking_id, visitor_id, distinct_id, first_seen, last_seen)
	SELECT ${field("trackingId")}, ${field("visitorId")}, ${field("distinctId")}, ${field("ts")}, ${field("ts")}
	FROM json_each(?1) WHERE ${field("name")} = '_identify' AND ${field("distinctId")} IS NOT NULL
	ON CONFLICT (tracking_id, visitor_id, distinct_id) DO UPDATE SET
		first_seen = min(first_seen, excluded.first_seen), last_seen = max(last_seen, excluded.last_seen)`;

/**
 * The custom events' properties (rollups.ts: dim event_properties) of a batch's events that are
 * not stored yet: run before they are inserted. They depend on the event alone, so unlike the
 * rest of the rollups (rollupWriter.ts) they are counted here.
 */
export const PROPERTY_ADDITIONS = `WITH e AS (
		SELECT ${field("trackingId")} AS tracking_id, ${field("ts")} AS ts, ${field("name")} AS name, ${field("data")} AS data FROM json_each(?1) AS b
		WHERE ${field("name")} NOT IN ('', '_leave', '_identify')
			AND NOT EXISTS (SELECT 1 FROM analytics_events AS a WHERE a.tracking_id = ${field("trackingId", "b")} AND a.event_id = ${field("eventId", "b")})
	)
	INSERT INTO analytics_rollups (tracking_id, dim, span, start, value, events)
	SELECT e.tracking_id, 'event_properties', s.value, (e.ts / s.value) * s.value, json_array(e.name, p.key, CAST(p.value AS TEXT)), count(*)
	FROM e, ${propertiesOf("e.data")} AS p,
		json_each('[${HOUR_MS},${DAY_MS}]') AS s
	WHERE ${IS_PROPERTY}
	GROUP BY 1, 2, 3, 4, 5
	${addingToRollupRows(["events"])}`;

/**
 * The statements that store a batch of events, to run in one D1 batch (one transaction): per
 * chunk, the new events' custom-event properties counted and the events inserted; then the rest of
 * the rollup changes (rollupWriter.ts). Call `settle` with the batch's outcome.
 */
export async function eventWrites(db: D1Database, events: StoredEvent[], visitorDays: VisitorDays) {
	const rollups = await visitorDays.changes(db, events);
	const hasProperties = events.some((e) => e.data !== null && !RESERVED.has(e.name));
	const identifies = events.some((e) => e.name === "_identify");
	const statements: D1PreparedStatement[] = [];
	for (const chunk of jsonArraysOf(events.map((e) => STORED_COLUMNS.map(([, key]) => e[key])))) {
		if (hasProperties) statements.push(db.prepare(PROPERTY_ADDITIONS).bind(chunk));
		statements.push(db.prepare(INSERT_EVENTS).bind(chunk));
		if (identifies) statements.push(db.prepare(UPSERT_IDENTITIES).bind(chunk));
	}
	for (const chunk of jsonArraysOf(rollups.rows)) statements.push(db.prepare(ROLLUP_ADDITIONS).bind(chunk));
	return { statements, settle: rollups.settle };
}

// ---------------------------------------------------------------------------------------------
// The raw events, newest first: walks analytics_events_site_ts_idx backwards from `to` and stops
// at `limit` rows.

export const LIST_EVENTS = `SELECT event_id, ts, name, data, url_host, url_path, url_query, referrer, referrer_host, source,
		utm_source, utm_medium, utm_campaign, utm_content, utm_term, ref, title, language, screen,
		visitor_id, distinct_id, session_id, duration, engaged_ms, scroll_depth, seq, v, browser, os, device, country
	FROM analytics_events WHERE tracking_id = ?1 AND ts >= ?2 AND ts < ?3 ORDER BY ts DESC, event_id LIMIT ?4`;

export async function listSiteEvents(env: Env, trackingId: string, range: Pick<StatsRange, "from" | "to">, limit: number) {
	const { results } = await env.DB.prepare(LIST_EVENTS)
		.bind(trackingId, range.from, range.to, Math.min(limit, OWNER_LIMITS.analyticsEvents))
		.all<Record<string, unknown> & { ts: number }>();
	return results.map((event) => ({ ...event, ts: new Date(event.ts).toISOString() }));
}

// ---------------------------------------------------------------------------------------------
// Identified users: `_identify` links a visitor to the site's own user id.

export const LIST_IDENTITIES = `SELECT distinct_id, count(*) AS visitors, min(first_seen) AS first_seen, max(last_seen) AS last_seen
	FROM analytics_identities WHERE tracking_id = ?1 GROUP BY distinct_id ORDER BY last_seen DESC, distinct_id LIMIT ?2`;

/** The site's identified users, most recently seen first, each with how many visitor ids it was seen under. */
export async function listIdentities(env: Env, trackingId: string, limit: number) {
	const { results } = await env.DB.prepare(LIST_IDENTITIES)
		.bind(trackingId, limit)
		.all<{ distinct_id: string; visitors: number; first_seen: number; last_seen: number }>();
	return results.map((row) => ({ ...row, first_seen: new Date(row.first_seen).toISOString(), last_seen: new Date(row.last_seen).toISOString() }));
}

/** Everything the site collected; called once its collector has forgotten the site. */
export async function deleteSiteEvents(env: Env, trackingId: string): Promise<void> {
	const db = database(env);
	await db.batch([
		db.delete(analyticsEvents).where(eq(analyticsEvents.trackingId, trackingId)),
		db.delete(analyticsIdentities).where(eq(analyticsIdentities.trackingId, trackingId)),
		db.delete(analyticsRollups).where(eq(analyticsRollups.trackingId, trackingId)),
	]);
}

// ---------------------------------------------------------------------------------------------
// Retention: at most `limit` rows per statement, oldest first. An identity link goes once it has
// not been seen within the retention, like the events it was seen in; a rollup row once its
// hour or day started before the cutoff.

export const DELETE_EXPIRED_EVENTS = expiredRowsDelete("analytics_events", "ts");
export const DELETE_EXPIRED_IDENTITIES = expiredRowsDelete("analytics_identities", "last_seen");
/** Rollup rows of hours and days that started before the cutoff (a day that began before it goes whole). */
export const DELETE_EXPIRED_ROLLUPS = expiredRollupsDelete("analytics_rollups");

/** Events received before `cutoff` (ms); how many were deleted. */
export const deleteExpiredEvents = (env: Env, cutoff: number, limit: number) => deleteRows(env.DB, DELETE_EXPIRED_EVENTS, cutoff, limit);

/** Identity links last seen before `cutoff` (ms); how many were deleted. */
export const deleteExpiredIdentities = (env: Env, cutoff: number, limit: number) => deleteRows(env.DB, DELETE_EXPIRED_IDENTITIES, cutoff, limit);

/** Rollup rows of hours and days that started before `cutoff` (ms); how many were deleted. */
export const deleteExpiredRollups = (env: Env, cutoff: number, limit: number) => deleteRows(env.DB, DELETE_EXPIRED_ROLLUPS, cutoff, limit);
