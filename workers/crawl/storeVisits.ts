import { jsonChunks } from "../collect/storeEvents";

/** One stored crawler visit (crawler_visits). */
export interface StoredVisit {
	id: string;
	trackingId: string;
	ts: number;
	crawler: string;
	urlHost: string | null;
	urlPath: string;
	country: string;
	status: number;
	ua: string;
}

// One JSON array per statement, as for browser events (see storeEvents.ts).
const INSERT_VISITS = `INSERT OR IGNORE INTO crawler_visits (id, tracking_id, ts, crawler, url_host, url_path, country, status, ua)
	SELECT value ->> '$.id', value ->> '$.trackingId', value ->> '$.ts', value ->> '$.crawler', value ->> '$.urlHost',
		value ->> '$.urlPath', value ->> '$.country', value ->> '$.status', value ->> '$.ua'
	FROM json_each(?1)`;

export function visitInsertStatements(db: D1Database, visits: StoredVisit[]): D1PreparedStatement[] {
	return jsonChunks(visits).map((chunk) => db.prepare(INSERT_VISITS).bind(chunk));
}
