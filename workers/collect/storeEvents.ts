import type { StoredEvent } from "./event";

/**
 * Batched writes of browser events to D1, for the SiteCollector's outbox flush.
 *
 * D1 binds at most 100 parameters per statement, so a 23-column multi-row VALUES list holds only
 * four rows. Instead each statement binds one JSON array and inserts every element of it through
 * json_each: one statement per ~200 KB of events, whatever the row count. A repeated event_id is
 * ignored by the primary key (tracking_id, event_id).
 */
const COLUMNS: Array<[column: string, key: keyof StoredEvent]> = [
	["tracking_id", "trackingId"],
	["event_id", "eventId"],
	["ts", "ts"],
	["name", "name"],
	["data", "data"],
	["url_host", "urlHost"],
	["url_path", "urlPath"],
	["url_query", "urlQuery"],
	["referrer", "referrer"],
	["referrer_host", "referrerHost"],
	["title", "title"],
	["language", "language"],
	["screen", "screen"],
	["visitor_id", "visitorId"],
	["distinct_id", "distinctId"],
	["session_id", "sessionId"],
	["duration", "duration"],
	["seq", "seq"],
	["v", "v"],
	["browser", "browser"],
	["os", "os"],
	["device", "device"],
	["country", "country"],
];

const INSERT_EVENTS = `INSERT OR IGNORE INTO analytics_events (${COLUMNS.map(([c]) => c).join(", ")})
	SELECT ${COLUMNS.map(([, k]) => `value ->> '$.${k}'`).join(", ")} FROM json_each(?1)`;

// `_identify` links the visitor to the site's own user id; seeing the pair again moves last_seen.
const UPSERT_IDENTITIES = `INSERT INTO analytics_identities (tracking_id, visitor_id, distinct_id, first_seen, last_seen)
	SELECT value ->> '$.trackingId', value ->> '$.visitorId', value ->> '$.distinctId', value ->> '$.ts', value ->> '$.ts'
	FROM json_each(?1) WHERE value ->> '$.name' = '_identify' AND value ->> '$.distinctId' IS NOT NULL
	ON CONFLICT (tracking_id, visitor_id, distinct_id) DO UPDATE SET
		first_seen = min(first_seen, excluded.first_seen), last_seen = max(last_seen, excluded.last_seen)`;

/** Splits rows into JSON arrays of at most `maxChars` characters each (a row is never split). */
export function jsonChunks(rows: unknown[], maxChars = 200_000): string[] {
	const chunks: string[] = [];
	let current: string[] = [];
	let size = 0;
	for (const row of rows) {
		const text = JSON.stringify(row);
		if (current.length > 0 && size + text.length > maxChars) {
			chunks.push(`[${current.join(",")}]`);
			current = [];
			size = 0;
		}
		current.push(text);
		size += text.length + 1;
	}
	if (current.length > 0) chunks.push(`[${current.join(",")}]`);
	return chunks;
}

export function eventInsertStatements(db: D1Database, events: StoredEvent[]): D1PreparedStatement[] {
	const statements: D1PreparedStatement[] = [];
	for (const chunk of jsonChunks(events)) {
		statements.push(db.prepare(INSERT_EVENTS).bind(chunk));
		if (chunk.includes('"name":"_identify"')) statements.push(db.prepare(UPSERT_IDENTITIES).bind(chunk));
	}
	return statements;
}
