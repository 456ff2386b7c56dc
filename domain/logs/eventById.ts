/**
 * One stored event by its id, as an issue's page links it (`?event=`): the id the store gave it
 * (log_events.id, a UUID) or the one its SDK did (Sentry's `event_id`, kept as 32 hex digits).
 */
import { and, eq, sql } from "drizzle-orm";
import { logEvents } from "../../schema";
import { clientEventIdOf } from "../api/issues";
import { database } from "../db";
import type { KeyOwner } from "./logStore";

/** A stored id, or an SDK's in either of its forms: a UUID, or 32 hex digits (any letter case). */
export const EVENT_ID_PATTERN = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32})$/i;

/**
 * Events share an id only when an SDK sent one again after the day its repeats count once in
 * (Sentry's `event_id`): past a few, the rows read would be copies, so the lookup stops there.
 */
const SAME_ID_ROWS = 10;

/**
 * The key's events with `id` as their stored id or their SDK's, each found by its own index
 * (the primary key; log_events_key_event_id_idx): SQLite plans an OR of the two as a walk of the
 * key's events, so they are two searches in one statement.
 */
export function eventsByIdQuery(env: Env, owner: KeyOwner, id: string) {
	const db = database(env);
	const stored = db
		.select()
		.from(logEvents)
		.where(and(eq(logEvents.id, id.toLowerCase()), eq(logEvents.keyId, owner.keyId)));
	// Written as the index's expression is: SQLite takes an expression's index for that expression only (`->>` would not do).
	const sent = db
		.select()
		.from(logEvents)
		.where(and(eq(logEvents.keyId, owner.keyId), sql`json_extract(event, '$.event_id') = ${clientEventIdOf(id)}`));
	return stored.unionAll(sent).limit(SAME_ID_ROWS);
}

export type EventRow = typeof logEvents.$inferSelect;

/**
 * The event of the issue `groupHash` with this id; else, when the key holds one of another issue
 * under it, that issue's hash (an event moves with a merge and an unmerge); else undefined.
 */
export async function findIssueEvent(env: Env, owner: KeyOwner, groupHash: string, id: string): Promise<{ event: EventRow } | { heldBy: string } | undefined> {
	const rows = await eventsByIdQuery(env, owner, id);
	const own = rows.find((row) => row.groupHash === groupHash);
	if (own) return { event: own };
	return rows.length > 0 ? { heldBy: rows[0].groupHash } : undefined;
}
