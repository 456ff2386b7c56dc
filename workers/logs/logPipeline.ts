/**
 * The one path every log event takes, whichever endpoint it came through (the svc JSON at
 * /api/app-logs-ingest, Sentry envelopes and store requests): the key and its owner, the per-IP
 * window, then grouping and storage in the key's IssueGrouper, which holds the key's window.
 */
import type { IngestOutcome } from "../../durable-objects/IssueGrouper";
import type { ProjectKey } from "../../domain/keys/keyStore";
import { LOG_RATE } from "../../domain/limits";
import { culpritOf, groupHash, titleOf } from "../../domain/logs/fingerprint";
import type { LogEvent } from "../../domain/logs/logEvent";
import { userKey } from "../../domain/logs/normalizeEvent";
import { clientIp, HttpError, tooManyRequests } from "../http";
import { authenticateProjectKey } from "../keys/authenticateKey";
import { issueGrouperFor } from "../objects";
import { enforceRateLimits, type Refund } from "../rateLimit";

const noRefund: Refund = async () => {};

/**
 * A hit from the request's IP window, whatever its key: 429 when more than 120 in 60 s. The
 * window counts only events the key and its own window accept: what refuses the request later
 * gives the hit back (`refundIp`), so a wrong key cannot use up the window the real one needs.
 */
export const countLogRequest = (env: Env, request: Request): Promise<Refund> =>
	enforceRateLimits(env, [{ subject: `ip:${clientIp(request)}`, windows: [LOG_RATE.perIp] }], "Too many log events from this address");

/**
 * The key may send log events: 401 (no or unknown key), 402 (owner without access), 403 (App Logs
 * disabled). With `countedRequest`, that request also takes a hit from its IP window (429),
 * in parallel with the key lookup; a 401, 402 or 403 still wins over a full window, and gives
 * the hit back.
 */
export async function admitLogKey(env: Env, rawKey: string | null, countedRequest?: Request): Promise<{ key: ProjectKey; refundIp: Refund }> {
	const [auth, ipWindow] = await Promise.allSettled([
		authenticateProjectKey(env, rawKey),
		countedRequest ? countLogRequest(env, countedRequest) : noRefund,
	]);
	const refundIp = ipWindow.status === "fulfilled" ? ipWindow.value : noRefund;
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
	return { key, refundIp };
}

/**
 * Groups a normalized event and stores it durably in one call to the key's IssueGrouper, which
 * also takes the hit from the key's window (429). 401 when the key was revoked meanwhile, 403 when
 * the event would open an issue past the project's cap; 500 only when grouping or storage fails.
 * Whatever refuses the event gives the IP hit back.
 */
export async function storeLogEvent(
	env: Env,
	key: ProjectKey,
	event: LogEvent,
	receivedAt: Date,
	refundIp: Refund,
): Promise<{ groupHash: string; isNew: boolean }> {
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
	return { groupHash: outcome.groupHash, isNew: outcome.isNew };
}
