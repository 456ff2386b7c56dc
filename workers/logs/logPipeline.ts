/**
 * The one path every log event takes, whichever endpoint it came through (the svc JSON at
 * /api/app-logs-ingest, Sentry envelopes and store requests): symbolication and the fingerprint
 * here, then one call to the key's ProjectCollector, which answers for the key (401/402/403),
 * the IP's and the key's windows (429), groups the event and stores it durably. An issue alert
 * the object finds due goes to the project's webhook once the request has been answered.
 */
import type { LogEventCommand, LogOutcome, Refusal } from "../../durable-objects/projectCommands";
import { culpritOf, groupHash, hasPreviousGroupHash, previousGroupHash, titleOf } from "../../domain/logs/fingerprint";
import { fromBrowserExtension } from "../../domain/logs/browserExtensions";
import { occurredAt } from "../../domain/logs/eventTimestamp";
import type { LogEvent } from "../../domain/logs/logEvent";
import { userKey } from "../../domain/logs/normalizeEvent";
import { handledOf } from "../../domain/api/issues";
import { sendAlertLater } from "../alerts/deliverAlert";
import { learnArtifactsVersion, type PresentedKey } from "../keys/authenticateKey";
import { answerOf, orStorageFailure, refusalError } from "../keys/keyAnswers";
import { callProjectCollector } from "../keys/projectCalls";
import { projectCollectorFor } from "../objects";
import { symbolicateEvent } from "../sourcemaps/symbolication";

/** Sentry endpoints name the project in the URL: it must be the key's DSN project. */
type LogSource = { ip: string; dsnId?: number };

/**
 * Symbolicates a normalized event (which never fails it), fingerprints it, and hands it to the
 * key's object, which answers in order: key (401/402/403), the IP's window (429), `event`'s
 * problem if it has one (413/400), a new issue past the project's cap (403), the key's window
 * (429). 500 only when grouping or storage fails.
 */
export async function storeLogEvent(
	env: Env,
	ctx: ExecutionContext,
	key: PresentedKey,
	source: LogSource,
	event: { body: LogEvent } | { problem: Refusal },
	receivedAt: Date,
): Promise<{ groupHash: string; isNew: boolean }> {
	let built = "problem" in event ? null : await eventCommand(env, key, event.body, receivedAt);
	for (;;) {
		const command = built ? { body: built.command } : (event as { problem: Refusal });
		const outcome = answerOf(
			key,
			await orStorageFailure<LogOutcome>(
				callProjectCollector(
					env,
					ctx,
					key.keyId,
					"ingestLog",
					{ keyId: key.keyId, keyHash: key.keyHash, artifactsVersion: key.artifactsVersion, ...source, ...command },
					built?.command.eventJson.length ?? 0,
				),
				"The log event",
			),
		);
		if (outcome.status === "accepted") {
			// An issue alert due (an issue opened or reopened) goes to the webhook after the answer.
			if (outcome.alert) sendAlertLater(env, ctx, key.keyId, outcome.alert);
			return { groupHash: outcome.groupHash, isNew: outcome.isNew };
		}
		// The object asks only about an event it was given (a body it could not read is refused first).
		if (!built || !("body" in event)) throw new Error(`the project's object answered ${outcome.status} for a refused body`);
		if (outcome.status === "stale_artifacts") {
			// Source maps changed since this isolate last heard: symbolicate against the new ones.
			key = learnArtifactsVersion(key, outcome.artifactsVersion);
			built = await eventCommand(env, key, event.body, receivedAt);
		} else {
			// A new issue, unless one was opened under the previous grouping rules: its hash, once.
			built.command.previousGroupHash = await previousGroupHash(built.symbolicated, built.command.groupHash);
		}
	}
}

async function eventCommand(env: Env, key: PresentedKey, event: LogEvent, receivedAt: Date): Promise<{ command: LogEventCommand; symbolicated: LogEvent }> {
	// Grouping sees the code as written, so a rebuild that renames everything is the same issue.
	const symbolicated = await symbolicateEvent(env, { id: key.keyId, artifactsVersion: key.artifactsVersion }, event);
	const command: LogEventCommand = {
		groupHash: await groupHash(symbolicated),
		// Left out for events whose earlier rules differed (JavaScript's, Go's...): asked for only by a new issue.
		previousGroupHash: hasPreviousGroupHash(symbolicated) ? undefined : null,
		title: titleOf(symbolicated),
		culprit: culpritOf(symbolicated),
		level: symbolicated.level,
		environment: symbolicated.environment,
		release: symbolicated.release,
		userKey: userKey(symbolicated.user),
		unhandled: handledOf(symbolicated) === "no",
		eventId: crypto.randomUUID(),
		clientEventId: symbolicated.event_id ?? null,
		receivedAt: receivedAt.getTime(),
		timestamp: occurredAt(symbolicated.timestamp, receivedAt.getTime()),
		eventJson: JSON.stringify(symbolicated),
	};
	return { command, symbolicated };
}

/**
 * The key's checks alone (401/402/403, and the DSN's project for Sentry), for a request that
 * stores nothing; `dropping` names why its event is not stored, which the object counts.
 */
export async function admitLogKey(env: Env, key: PresentedKey, dsnId?: number, dropping?: "invalid" | "browser-extension"): Promise<{ filtered: boolean }> {
	const outcome = await orStorageFailure(projectCollectorFor(env, key.keyId).admitLogs({ keyId: key.keyId, keyHash: key.keyHash, dsnId }, dropping), "The log event");
	return answerOf(key, outcome);
}

/**
 * The inbound filter that drops the event, if one does (docs/api.md#inbound-filter-browser-extensions):
 * decided before symbolication, grouping and the windows, as Sentry's Relay filters before its
 * quotas, so a dropped event costs the key one check (401/402/403) and counts against nothing but
 * the key's filtered events.
 */
export async function inboundFilterOf(env: Env, key: PresentedKey, event: LogEvent, dsnId?: number): Promise<"browser-extensions" | null> {
	if (!fromBrowserExtension(event)) return null;
	return (await admitLogKey(env, key, dsnId, "browser-extension")).filtered ? "browser-extensions" : null;
}

/** Answers a problem with the request's event only once the key is known to be good; counted as an invalid event. */
export async function refuseAfterKeyChecks(env: Env, key: PresentedKey, problem: Refusal, dsnId?: number): Promise<never> {
	await admitLogKey(env, key, dsnId, "invalid");
	throw refusalError(problem);
}
