/**
 * Sentry SDKs' endpoints (docs/api.md#sentry-sdks): an application instrumented with Sentry
 * changes only its DSN. Its error and message events take the path of /api/app-logs-ingest (the
 * same field rules, limits, scrubbing, grouping, key and IP windows, 401/402/403); user feedback
 * takes the path of /functions/v1/submit-feedback; every other item (transactions, sessions,
 * client reports, replays, profiles, attachments, check-ins...) is accepted and dropped.
 */
import type { IRequest } from "itty-router";
import { InvalidInput } from "../../domain/errors";
import { SENTRY_LIMITS } from "../../domain/limits";
import { clientEventIdOf } from "../../domain/api/issues";
import { clockDriftOf } from "../../domain/logs/eventTimestamp";
import { type Envelope, type EnvelopeReading, jsonPayload, readEnvelope } from "../../domain/sentry/envelope";
import { logEventBody, normalizeSentryEvent } from "../../domain/sentry/sentryEvent";
import { securityEvents } from "../../domain/sentry/securityReport";
import { storeBodyOf } from "../../domain/sentry/storeBody";
import { discardedEvents } from "../../domain/sentry/clientReport";
import { projectCollectorFor } from "../objects";
import { feedbackSubmission } from "../../domain/sentry/sentryFeedback";
import { readableBody } from "../../domain/feedback/submission";
import { sendAlertLater } from "../alerts/deliverAlert";
import { clientIp, decodedBodyReader, HttpError, json, readAll } from "../http";
import { type PresentedKey, presentedKey, sourceAddressTag } from "../keys/authenticateKey";
import { answerOf, bodyOrProblem, orStorageFailure, refusalError } from "../keys/keyAnswers";
import { callProjectCollector } from "../keys/projectCalls";
import { admitLogKey, inboundFilterOf, refuseAfterKeyChecks, storeLogEvent } from "../logs/logPipeline";

type Json = Record<string, unknown>;

/**
 * A member of the auth SDKs present: `X-Sentry-Auth: Sentry sentry_key=…, sentry_client=…` (or the
 * same in Authorization), else the query's parameter of that name.
 */
function sentryAuthOf(request: Request, name: "sentry_key" | "sentry_client"): string | null {
	const authorization = request.headers.get("authorization") ?? "";
	const auth = request.headers.get("x-sentry-auth") ?? (/^sentry\s/i.test(authorization) ? authorization : "");
	const fromAuth = new RegExp(`(?:^|[\\s,])${name}\\s*=\\s*([^,]+)`, "i").exec(auth)?.[1]?.trim();
	return fromAuth || new URL(request.url).searchParams.get(name)?.trim() || null;
}

/** The key as SDKs present it, in X-Sentry-Auth (or Authorization), else `?sentry_key=`. */
function sentryKeyOf(request: Request): string | null {
	return sentryAuthOf(request, "sentry_key")?.split(/\s/)[0] || null;
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

/**
 * One error or message event into the log pipeline: key, IP window (429), field rules (400), the
 * key's window and storage. One an inbound filter drops is answered as stored, as Sentry answers
 * it, once the key's checks pass.
 */
async function storeSentryEvent(
	env: Env,
	ctx: ExecutionContext,
	request: Request,
	key: PresentedKey,
	projectId: number,
	payload: Json,
	{ eventId, sentAt }: { eventId: string; sentAt?: unknown },
): Promise<void> {
	const receivedAt = new Date();
	// The raw address fills a `{{auto}}` user IP, as Sentry does; the windows count its tag. The
	// event keeps the id the SDK is answered with, and its time is corrected by the sender's clock.
	const body = { ...logEventBody(payload, clientIp(request), sentryAuthOf(request, "sentry_client")), event_id: eventId };
	const event = await bodyOrProblem(async () => normalizeSentryEvent(body, receivedAt, clockDriftOf(sentAt, receivedAt)));
	// Relay filters by the exceptions an SDK sent, not by a message's stack (made one here).
	const sentException = payload.exception !== undefined && payload.exception !== null;
	if ("body" in event && sentException && (await inboundFilterOf(env, key, event.body, projectId))) return;
	await storeLogEvent(env, ctx, key, { ip: await sourceAddressTag(key, request), dsnId: projectId }, event, receivedAt);
}

const newEventId = () => crypto.randomUUID().replaceAll("-", "");

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
 * DSN's project id, 401); the envelope, read as it is decompressed, within Sentry's limits (413,
 * 415, 400); a key from the envelope header's DSN when none was presented; then, for an event
 * item, the path of /api/app-logs-ingest.
 */
export function ingestEnvelope(request: IRequest, env: Env, ctx: ExecutionContext): Promise<Response> {
	return withSentryRateLimits(async () => {
		const projectId = projectIdOf(request);
		const presented = sentryKeyOf(request);
		let key = presented ? await presentedKey(env, presented) : null;
		const read = await bodyOrProblem(async () => readEnvelope(await decodedBodyReader(request, { sentBytes: SENTRY_LIMITS.sentBytes, decodedBytes: SENTRY_LIMITS.envelopeBytes }), envelopeReading()));
		if (!key) {
			if ("problem" in read) throw refusalError(read.problem);
			key = await presentedKey(env, keyOfDsn(read.body.headers.dsn));
		}
		// Everything the envelope can be refused for, answered once the key's own checks pass.
		const item = "problem" in read ? read : await bodyOrProblem(async () => eventItem(read.body));
		if ("problem" in item) return refuseAfterKeyChecks(env, key, item.problem, projectId);
		const { headerId, sentAt, payload, feedback, discarded } = item.body;
		let id = headerId;
		if (feedback) await storeSentryFeedback(env, ctx, request, key, feedback);
		else if (payload) {
			id = clientEventIdOf(payload.event_id) ?? headerId ?? newEventId();
			await storeSentryEvent(env, ctx, request, key, projectId, payload, { eventId: id, sentAt });
		}
		if (discarded > 0) await countClientDiscards(env, key, projectId, discarded);
		// Nothing kept (a session, a transaction...): the key's checks alone.
		else if (!feedback && !payload) await admitLogKey(env, key, projectId);
		return json({ id });
	});
}

/** The events the SDK says it dropped (its client report), counted as the key's `client_discard` outcome once the key's checks pass. */
async function countClientDiscards(env: Env, key: PresentedKey, dsnId: number, events: number): Promise<void> {
	const check = { keyId: key.keyId, keyHash: key.keyHash, dsnId };
	answerOf(key, await orStorageFailure(projectCollectorFor(env, key.keyId).clientDiscarded(check, events), "The client report"));
}

const isFeedback = (type: string) => type === "feedback" || type === "user_report";

/**
 * What is kept of an envelope: its event (a second one is a 400), its first user feedback item and
 * its first client report, each within Sentry's event size (413, as Sentry answers, since the SDK
 * would only send it again), and the files attached after the feedback item (the widget's
 * screenshot), within the feedback's images. Everything else (attachments of events, replays...)
 * streams past unkept.
 */
function envelopeReading(): EnvelopeReading {
	const whole = { upTo: SENTRY_LIMITS.eventBytes, larger: "refuse" } as const;
	let event = false;
	let feedback = false;
	let clientReport = false;
	const files = { count: 0, bytes: 0 };
	return {
		keep(type, headers) {
			if (type === "event") {
				if (event) throw new HttpError(400, "Invalid envelope: more than one event item");
				event = true;
				return whole;
			}
			// The SDK's word on what it dropped: counted when it fits, never a reason to refuse the envelope.
			if (type === "client_report" && !clientReport) {
				clientReport = true;
				return { ...whole, larger: "skip" };
			}
			if (isFeedback(type) && !feedback) {
				feedback = true;
				return whole;
			}
			// A file that would pass the feedback's images is read past, as one of another kind would be.
			const { length } = headers;
			if (type !== "attachment" || !feedback || typeof length !== "number") return false;
			if (files.count === SENTRY_LIMITS.feedbackFiles || files.bytes + length > SENTRY_LIMITS.feedbackFileBytes) return false;
			files.count++;
			files.bytes += length;
			return { upTo: length, larger: "skip" };
		},
		headerBytes: SENTRY_LIMITS.eventBytes,
		tooLarge: (what: string) => new HttpError(413, `${what} exceeds ${SENTRY_LIMITS.eventBytes} bytes, the most one event may take`),
	};
}

/**
 * A user feedback item as a feedback submission, the files attached after it (images for the key's
 * form, if they are), and the bytes of all of them (as many as the submission's characters, or more).
 */
interface SentryFeedback {
	submission: Record<string, unknown>;
	files: Uint8Array[];
	bytes: number;
}

/**
 * The envelope's event item, if any, else the feedback submission its user feedback item makes;
 * the id and the time sent its header gives; and the error events its client report says the SDK
 * dropped.
 */
function eventItem(envelope: Envelope): {
	headerId: string | null;
	sentAt: unknown;
	payload: Json | null;
	feedback: SentryFeedback | null;
	discarded: number;
} {
	const headerId = clientEventIdOf(envelope.headers.event_id);
	const sentAt = envelope.headers.sent_at;
	const report = envelope.items.find((item) => item.type === "client_report" && item.payload)?.payload;
	// A report is the SDK's word: one that is no JSON object counts nothing, and refuses nothing.
	const discarded = report ? discardedEvents(tryJsonPayload(report) ?? {}) : 0;
	const event = envelope.items.find((item) => item.type === "event" && item.payload);
	if (event?.payload) return { headerId, sentAt, payload: jsonPayload(event.payload, "the event item"), feedback: null, discarded };
	const sent = envelope.items.find((item) => isFeedback(item.type) && item.payload);
	if (!sent?.payload) return { headerId, sentAt, payload: null, feedback: null, discarded };
	const submission = feedbackSubmission(sent.type, jsonPayload(sent.payload, `the ${sent.type} item`));
	const files = envelope.items.flatMap((item) => (item.type === "attachment" && item.payload ? [item.payload] : []));
	const bytes = files.reduce((sum, file) => sum + file.byteLength, sent.payload.byteLength);
	return { headerId, sentAt, payload: null, feedback: submission && { submission, files, bytes }, discarded };
}

function tryJsonPayload(bytes: Uint8Array): Json | null {
	try {
		return jsonPayload(bytes, "the client report");
	} catch {
		return null;
	}
}

/**
 * User feedback into the project's feedback inbox, as /functions/v1/submit-feedback stores it: the
 * key's and the address's feedback windows (429) and its field rules (400) apply.
 */
async function storeSentryFeedback(env: Env, ctx: ExecutionContext, request: Request, key: PresentedKey, { submission, files, bytes }: SentryFeedback): Promise<void> {
	const command = { keyId: key.keyId, keyHash: key.keyHash, ip: await sourceAddressTag(key, request), body: readableBody(submission), files };
	// The item's size stands for the submission's (a copy made from it): no second serialization to measure it.
	const { alert } = answerOf(key, await orStorageFailure(callProjectCollector(env, ctx, key.keyId, "submitFeedback", command, bytes), "Feedback"));
	// A feedback alert due goes to the webhook after the answer.
	if (alert) sendAlertLater(env, ctx, key.keyId, alert);
}

/** A store request's body is one event, not an envelope: its 400s say so. */
const invalidEvent = (problem: string) => new InvalidInput(`Invalid event: ${problem}`);

/**
 * The event's JSON from a store body, whatever its `Content-Encoding`; as the raven clients send it
 * (zlib-compressed and base64-encoded, saying nothing), inflated too. Sentry's event size bounds
 * the body as read and the JSON inflated from it (413).
 */
async function storeEventBytes(request: Request): Promise<Uint8Array> {
	const limits = { sentBytes: SENTRY_LIMITS.sentBytes, decodedBytes: SENTRY_LIMITS.eventBytes };
	const body = storeBodyOf(await readAll(await decodedBodyReader(request, limits)));
	if ("json" in body) return body.json;
	const deflated = new Request(request.url, { method: "POST", body: body.zlib, headers: { "content-encoding": "deflate" } });
	try {
		return await readAll(await decodedBodyReader(deflated, limits));
	} catch (err) {
		if (err instanceof HttpError && err.status === 400) throw invalidEvent("the body is base64 but not of zlib-compressed JSON");
		throw err;
	}
}

/** An envelope sent to the store endpoint says so by its type, and is read as one, as Sentry reads it. */
const ENVELOPE_TYPE = /^application\/x-sentry-envelope\s*(?:;|$)/i;

/** POST /api/:project_id/store/ → 200 {id}: one event as the body, the key in X-Sentry-Auth or the query. */
export function ingestStore(request: IRequest, env: Env, ctx: ExecutionContext): Promise<Response> {
	if (ENVELOPE_TYPE.test(request.headers.get("content-type") ?? "")) return ingestEnvelope(request, env, ctx);
	return withSentryRateLimits(async () => {
		const projectId = projectIdOf(request);
		const key = await presentedKey(env, sentryKeyOf(request));
		const read = await bodyOrProblem(async () => jsonPayload(await storeEventBytes(request), "the body", invalidEvent));
		if ("problem" in read) return refuseAfterKeyChecks(env, key, read.problem, projectId);
		const id = clientEventIdOf(read.body.event_id) ?? newEventId();
		await storeSentryEvent(env, ctx, request, key, projectId, read.body, { eventId: id });
		return json({ id });
	});
}

const invalidReport = (problem: string) => new InvalidInput(`Invalid security report: ${problem}`);

/**
 * POST /api/:project_id/security/?sentry_key= → 201: a browser's Content-Security-Policy
 * violation reports (docs/api.md#csp-reports), from a site's `report-uri` or `report-to`. Each
 * violation takes the store endpoint's path as an event (the key's checks, the windows, grouping);
 * a body of reports that are no violations stores nothing once the key's checks pass.
 */
export function ingestSecurityReport(request: IRequest, env: Env, ctx: ExecutionContext): Promise<Response> {
	return withSentryRateLimits(async () => {
		const projectId = projectIdOf(request);
		const key = await presentedKey(env, sentryKeyOf(request));
		const read = await bodyOrProblem(async () => {
			const bytes = await readAll(await decodedBodyReader(request, { sentBytes: SENTRY_LIMITS.eventBytes, decodedBytes: SENTRY_LIMITS.eventBytes }));
			let body: unknown;
			try {
				body = JSON.parse(new TextDecoder().decode(bytes));
			} catch {
				throw invalidReport("the body is not valid JSON");
			}
			try {
				return securityEvents(body, request.headers.get("user-agent"));
			} catch (err) {
				throw invalidReport(err instanceof Error ? err.message : String(err));
			}
		});
		if ("problem" in read) return refuseAfterKeyChecks(env, key, read.problem, projectId);
		if (read.body.length === 0) await admitLogKey(env, key, projectId);
		for (const payload of read.body) await storeSentryEvent(env, ctx, request, key, projectId, payload, { eventId: newEventId() });
		return new Response(null, { status: 201 });
	});
}
