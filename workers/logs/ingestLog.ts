import type { IRequest } from "itty-router";
import { LOG_LIMITS } from "../../domain/limits";
import { groupHash } from "../../domain/logs/fingerprint";
import { normalizeEvent } from "../../domain/logs/normalizeEvent";
import { bearerToken, json, parseJsonObject, readTextWithin } from "../http";
import { presentedKey, sourceAddressTag } from "../keys/authenticateKey";
import { bodyOrProblem } from "../keys/keyAnswers";
import { inboundFilterOf, storeLogEvent } from "./logPipeline";

/** `x-svc-key` is preferred; `Authorization: Bearer` is accepted too. */
const keyHeader = (request: Request) => request.headers.get("x-svc-key")?.trim() || bearerToken(request);

/**
 * POST /api/app-logs-ingest (docs/api.md#ingest-log) → 200 {ok, group_hash, is_new}.
 *
 * Order: key (401/402), App Logs enabled (403), the IP's window (429), body size (413, never
 * buffering more than the limit), JSON and field rules (400), a new issue past the cap (403),
 * the key's window (429). An event an inbound filter drops is answered 200 once the key's checks
 * pass, before the windows. The body is read here; everything from the key on is answered by one
 * call to the key's ProjectCollector, which groups the event and stores it durably. 500 only
 * when that storage fails.
 *
 * A browser leaving a page may not send a request that needs a CORS preflight (a custom
 * header), so a `text/plain` request without the header may carry the key as the body's
 * `svc_key`, which no browser preflights; its body is then read before the key is checked.
 */
export async function ingestLog(request: IRequest, env: Env, ctx: ExecutionContext): Promise<Response> {
	let rawKey = keyHeader(request);
	let body: Record<string, unknown> | undefined;
	if (!rawKey && request.headers.get("content-type")?.toLowerCase().startsWith("text/plain")) {
		body = parseJsonObject(await readTextWithin(request, LOG_LIMITS.bodyChars));
		rawKey = typeof body.svc_key === "string" ? body.svc_key : null;
	}
	const key = await presentedKey(env, rawKey);
	const receivedAt = new Date();
	// The stored event is built from the documented fields only: a body's svc_key is never kept.
	const event = await bodyOrProblem(async () => normalizeEvent(body ?? parseJsonObject(await readTextWithin(request, LOG_LIMITS.bodyChars)), receivedAt));
	if ("body" in event) {
		const filtered = await inboundFilterOf(env, key, event.body);
		// Answered as a stored event is, as Sentry answers an SDK: with the hash its fingerprint
		// gives (source maps unread), no issue opened or counted.
		if (filtered) return json({ ok: true, group_hash: await groupHash(event.body), is_new: false, filtered });
	}
	const stored = await storeLogEvent(env, ctx, key, { ip: await sourceAddressTag(key, request) }, event, receivedAt);
	return json({ ok: true, group_hash: stored.groupHash, is_new: stored.isNew });
}
