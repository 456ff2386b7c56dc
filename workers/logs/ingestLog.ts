import type { IRequest } from "itty-router";
import { LOG_LIMITS } from "../../domain/limits";
import { normalizeEvent } from "../../domain/logs/normalizeEvent";
import { bearerToken, json, parseJsonObject, readTextWithin } from "../http";
import { admitLogKey, storeLogEvent } from "./logPipeline";

/** `x-svc-key` is preferred; `Authorization: Bearer` is accepted too. */
const presentedKey = (request: Request) => request.headers.get("x-svc-key")?.trim() || bearerToken(request);

/**
 * POST /api/app-logs-ingest (docs/api.md#ingest-log) → 200 {ok, group_hash, is_new}.
 *
 * Order: key (401/402) and the IP window in parallel, App Logs enabled (403), IP window (429),
 * body size (413, never buffering more than the limit), JSON and field rules (400), then one
 * call to the key's IssueGrouper, which holds the key's window (429), groups the event and
 * stores it durably. 500 only when that storage fails.
 */
export async function ingestLog(request: IRequest, env: Env): Promise<Response> {
	const key = await admitLogKey(env, presentedKey(request), request);
	const receivedAt = new Date();
	const event = normalizeEvent(parseJsonObject(await readTextWithin(request, LOG_LIMITS.bodyChars)), receivedAt);
	const stored = await storeLogEvent(env, key, event, receivedAt);
	return json({ ok: true, group_hash: stored.groupHash, is_new: stored.isNew });
}
