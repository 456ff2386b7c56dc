import type { IRequest } from "itty-router";
import { bearerToken, clientIp, HttpError, json, parseJsonObject, readTextWithin, tooManyRequests } from "../http";
import { authenticateProjectKey } from "../keys/authenticateKey";
import { enforceRateLimits } from "../rateLimit";
import type { IngestOutcome } from "../../durable-objects/IssueGrouper";
import { culpritOf, groupHash, titleOf } from "../../domain/logs/fingerprint";
import { issueGrouperFor } from "../objects";
import { LOG_LIMITS, LOG_RATE } from "../../domain/limits";
import { normalizeEvent, userKey } from "../../domain/logs/normalizeEvent";

/** `x-svc-key` is preferred; `Authorization: Bearer` is accepted too. */
const presentedKey = (request: Request) => request.headers.get("x-svc-key")?.trim() || bearerToken(request);

/**
 * POST /api/app-logs-ingest (docs/api.md#ingest-log) → 200 {ok, group_hash, is_new}.
 *
 * Order: key (401/402) and the IP window in parallel, App Logs enabled (403), IP window (429),
 * body size (413, never buffering more than the limit), JSON and field rules (400), then one
 * call to the key's IssueGrouper, which holds the key's window (429), groups the event and
 * stores it durably. 500 only when that storage fails.
 *
 * A browser leaving a page may not send a request that needs a CORS preflight (a custom
 * header), so a `text/plain` request without the header may carry the key as the body's
 * `svc_key`, which no browser preflights; its body is then read before the key is checked.
 */
export async function ingestLog(request: IRequest, env: Env): Promise<Response> {
	let rawKey = presentedKey(request);
	let body: Record<string, unknown> | undefined;
	if (!rawKey && request.headers.get("content-type")?.toLowerCase().startsWith("text/plain")) {
		body = parseJsonObject(await readTextWithin(request, LOG_LIMITS.bodyChars));
		rawKey = typeof body.svc_key === "string" ? body.svc_key : null;
	}
	const [auth, ipWindow] = await Promise.allSettled([
		authenticateProjectKey(env, rawKey),
		enforceRateLimits(env, [{ subject: `ip:${clientIp(request)}`, windows: [LOG_RATE.perIp] }], "Too many log events from this address"),
	]);
	// The address's window counts only events the key and its own window accept: a refused
	// request gives its hit back, so a wrong key cannot use up the window the real one needs.
	const refundIp = ipWindow.status === "fulfilled" ? ipWindow.value : async () => {};
	if (auth.status === "rejected") {
		await refundIp();
		throw auth.reason;
	}
	const { key } = auth.value;
	if (!key.logsEnabled) {
		await refundIp();
		throw new HttpError(403, "App Logs are disabled for this project");
	}
	if (ipWindow.status === "rejected") throw ipWindow.reason;

	const receivedAt = new Date();
	// The stored event is built from the documented fields only: a body's svc_key is never kept.
	const event = normalizeEvent(body ?? parseJsonObject(await readTextWithin(request, LOG_LIMITS.bodyChars)), receivedAt);

	let outcome: IngestOutcome;
	try {
		const hash = await groupHash(event);
		const limit = Number.isSafeInteger(key.logsRateLimitPerMinute) && key.logsRateLimitPerMinute > 0 ? key.logsRateLimitPerMinute : LOG_RATE.defaultPerKey;
		outcome = await issueGrouperFor(env, key.id).ingest({
			owner: { keyId: key.id, userId: key.userId },
			ratePerMinute: limit,
			groupHash: hash,
			title: titleOf(event),
			culprit: culpritOf(event),
			level: event.level,
			environment: event.environment,
			release: event.release,
			userKey: userKey(event.user),
			eventId: crypto.randomUUID(),
			receivedAt: receivedAt.getTime(),
			timestamp: Date.parse(event.timestamp),
			eventJson: JSON.stringify(event),
		});
	} catch (err) {
		console.error("log event could not be grouped or stored:", err);
		await refundIp().catch(() => {});
		throw new HttpError(500, "The log event could not be stored; try again");
	}

	if (outcome.status !== "accepted") await refundIp();
	if (outcome.status === "rate_limited") throw tooManyRequests(outcome.retryAfterSeconds, "Too many log events for this project key");
	if (outcome.status === "revoked") throw new HttpError(401, "Project key is not valid");
	if (outcome.status === "too_many_issues") {
		throw new HttpError(403, `The project has reached ${outcome.limit} issues, the most one project may hold; issues whose events are past the log retention period are removed`);
	}
	return json({ ok: true, group_hash: outcome.groupHash, is_new: outcome.isNew });
}
