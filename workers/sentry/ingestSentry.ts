/**
 * Sentry SDKs' endpoints (docs/api.md#sentry-sdks): an application instrumented with Sentry
 * changes only its DSN. Its error and message events take the path of /api/app-logs-ingest (the
 * same field rules, limits, scrubbing, grouping, key and IP windows, 401/402/403); every other
 * item (transactions, sessions, client reports, replays, profiles, attachments, check-ins...) is
 * accepted and dropped.
 */
import type { IRequest } from "itty-router";
import type { ProjectKey } from "../../domain/keys/keyStore";
import { LOG_LIMITS } from "../../domain/limits";
import { normalizeEvent } from "../../domain/logs/normalizeEvent";
import { jsonPayload, parseEnvelope } from "../../domain/sentry/envelope";
import { logEventBody } from "../../domain/sentry/sentryEvent";
import { clientIp, HttpError, json, readDecodedBodyWithin } from "../http";
import { admitLogKey, countLogRequest, storeLogEvent } from "../logs/logPipeline";

type Json = Record<string, unknown>;

/** The key as SDKs present it: `X-Sentry-Auth: Sentry sentry_key=…, …` (or the same in Authorization), else `?sentry_key=`. */
function presentedKey(request: Request): string | null {
	const authorization = request.headers.get("authorization") ?? "";
	const auth = request.headers.get("x-sentry-auth") ?? (/^sentry\s/i.test(authorization) ? authorization : "");
	const fromAuth = /(?:^|[\s,])sentry_key\s*=\s*([^,\s]+)/i.exec(auth)?.[1];
	return fromAuth || new URL(request.url).searchParams.get("sentry_key")?.trim() || null;
}

/** The public key of a DSN (`https://<key>@host/42`), as an envelope header carries it. */
function keyOfDsn(dsn: unknown): string | null {
	if (typeof dsn !== "string" || !URL.canParse(dsn)) return null;
	return decodeURIComponent(new URL(dsn).username) || null;
}

function projectIdOf(request: IRequest): number {
	const id = request.params.project_id ?? "";
	if (!/^\d{1,15}$/.test(id)) throw new HttpError(400, "The project id in the URL must be the number at the end of the DSN");
	return Number(id);
}

/** The key's checks, and that the DSN it came with is its own. */
async function admitSentryKey(env: Env, rawKey: string | null, projectId: number): Promise<ProjectKey> {
	const { key } = await admitLogKey(env, rawKey);
	if (key.dsnId !== projectId) throw new HttpError(401, `The project key does not belong to project ${projectId}: check the DSN`);
	return key;
}

/** 32 hex digits, as Sentry writes event ids; anything else is not one. */
function eventIdOf(value: unknown): string | null {
	const hex = typeof value === "string" ? value.replaceAll("-", "").toLowerCase() : "";
	return /^[0-9a-f]{32}$/.test(hex) ? hex : null;
}

/** One error or message event into the log pipeline: IP window (429), field rules (400), the key's window and storage. */
async function storeSentryEvent(env: Env, request: Request, key: ProjectKey, payload: Json): Promise<void> {
	const refundIp = await countLogRequest(env, request);
	const receivedAt = new Date();
	const event = normalizeEvent(logEventBody(payload, clientIp(request)), receivedAt);
	await storeLogEvent(env, key, event, receivedAt, refundIp);
}

/**
 * Sentry SDKs stop sending for the time a 429 names, per data category: events (`error`,
 * `default`) are what the windows count.
 */
async function withSentryRateLimits(answer: () => Promise<Response>): Promise<Response> {
	try {
		return await answer();
	} catch (err) {
		if (!(err instanceof HttpError) || err.status !== 429) throw err;
		const headers = new Headers(err.headers);
		headers.set("x-sentry-rate-limits", `${headers.get("retry-after") ?? "60"}:error;default:key`);
		throw new HttpError(429, err.message, err.body, headers);
	}
}

/**
 * POST /api/:project_id/envelope/ → 200 {id}.
 *
 * Order: project id (400); a key presented in X-Sentry-Auth or the query (401/402/403, and the
 * DSN's project id, 401); body, decompressed within the log size limit (413, 415, 400); the
 * envelope (400); a key from the envelope header's DSN when none was presented; then, for an
 * event item, the path of /api/app-logs-ingest.
 */
export function ingestEnvelope(request: IRequest, env: Env): Promise<Response> {
	return withSentryRateLimits(async () => {
		const projectId = projectIdOf(request);
		const presented = presentedKey(request);
		let key = presented ? await admitSentryKey(env, presented, projectId) : null;
		const envelope = parseEnvelope(await readDecodedBodyWithin(request, LOG_LIMITS.bodyChars));
		key ??= await admitSentryKey(env, keyOfDsn(envelope.headers.dsn), projectId);

		const events = envelope.items.filter((item) => item.type === "event");
		if (events.length > 1) throw new HttpError(400, "Invalid envelope: more than one event item");
		const headerId = eventIdOf(envelope.headers.event_id);
		if (events.length === 0) return json({ id: headerId });

		const payload = jsonPayload(events[0].payload, "the event item");
		await storeSentryEvent(env, request, key, payload);
		return json({ id: eventIdOf(payload.event_id) ?? headerId ?? crypto.randomUUID().replaceAll("-", "") });
	});
}

/** POST /api/:project_id/store/ → 200 {id}: one event as the body, the key in X-Sentry-Auth or the query. */
export function ingestStore(request: IRequest, env: Env): Promise<Response> {
	return withSentryRateLimits(async () => {
		const projectId = projectIdOf(request);
		const key = await admitSentryKey(env, presentedKey(request), projectId);
		const payload = jsonPayload(await readDecodedBodyWithin(request, LOG_LIMITS.bodyChars), "the event");
		await storeSentryEvent(env, request, key, payload);
		return json({ id: eventIdOf(payload.event_id) ?? crypto.randomUUID().replaceAll("-", "") });
	});
}
