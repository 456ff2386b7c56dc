/**
 * The user feedback given about an issue's events, as Sentry's issue page lists it: the project's
 * feedback whose `sentry_event_id` (the feedback widget's `associated_event_id`, the crash-report
 * dialog's `event_id`) is the id of one of the issue's stored events.
 */
import type { IssueFeedbackView } from "../api/issues";
import type { FeedbackStatus, FeedbackType } from "../feedback/typesAndStatuses";
import { OWNER_LIMITS } from "../limits";
import type { KeyOwner } from "./logStore";

/**
 * ?1 owner, ?2 project name, ?3 key, ?4 group hash, ?5 most rows. The project's feedback in
 * feedback_owner_project_created_idx, newest first; each record with an event id has its event
 * found in log_events_key_event_id_idx (the index's own expression; the id as events store it,
 * lower-case without dashes) and kept when the event is the issue's. Feedback without an event id
 * costs the walk one row and no search.
 */
export const ISSUE_FEEDBACK = `
SELECT f.id, f.type, f.status, f.created_at, f.data ->> '$.title' AS title, f.data ->> '$.sentry_event_id' AS event_id
FROM feedback AS f
WHERE f.user_id = ?1 AND f.project_name = ?2 AND (f.data ->> '$.sentry_event_id') IS NOT NULL
	AND EXISTS (SELECT 1 FROM log_events AS e WHERE e.key_id = ?3
		AND json_extract(e.event, '$.event_id') = lower(replace(f.data ->> '$.sentry_event_id', '-', '')) AND e.group_hash = ?4)
ORDER BY f.created_at DESC, f.id DESC LIMIT ?5`;

interface FeedbackRow {
	id: string;
	type: FeedbackType;
	status: FeedbackStatus;
	created_at: number;
	title: unknown;
	event_id: string;
}

export async function issueFeedback(env: Env, owner: KeyOwner, projectName: string, groupHash: string): Promise<IssueFeedbackView[]> {
	const { results } = await env.DB.prepare(ISSUE_FEEDBACK).bind(owner.userId, projectName, owner.keyId, groupHash, OWNER_LIMITS.issueFeedback).all<FeedbackRow>();
	return results.map((row) => ({
		id: row.id,
		type: row.type,
		status: row.status,
		title: typeof row.title === "string" && row.title !== "" ? row.title : null,
		event_id: row.event_id,
		created_at: new Date(row.created_at).toISOString(),
	}));
}
