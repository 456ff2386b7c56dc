import type { ProjectCall, ProjectCallResult, ProjectCalls } from "../../durable-objects/projectCommands";
import { projectCollectorFor } from "../objects";

/**
 * Calls from this isolate's concurrent requests to one key's ProjectCollector, sent together
 * (docs/architecture.md#calls-sent-together). While one batch is on its way, the calls that
 * arrive wait and leave together in the next, so a busy key costs one object call and one commit
 * per batch rather than per request, and a quiet key's call leaves at once. Each call is still
 * answered for itself, after the object has stored what it accepted.
 *
 * In workerd a request can neither wait on I/O another request started nor be woken by another
 * request's code, so a waiting request looks, on a timer of its own, whether its answer has come,
 * and when no batch is on its way sends the next itself. It looks when the batch on its way is
 * due back (batches here have lately taken `typicalBatchMs`), then every millisecond.
 * A batch runs in its sender's waitUntil, so its answers arrive even if that client goes away.
 */

/**
 * A call whose body holds more characters leaves at once on its own, as if there were no batches:
 * its time in the object is mostly its own work (images to R2), which a batch would only queue
 * behind the calls before it.
 */
const SOLO_CHARS = 64_000;
/** A batch takes calls until their bodies hold this many characters: the object's call carries them all. */
const BATCH_CHARS = 1_000_000;
const BATCH_CALLS = 100;
/** How often a waiting call looks whether it was answered or may leave, once its batch is due. */
const POLL_MS = 1;
/** How long recent batches took, a moving average. */
let typicalBatchMs = POLL_MS;

interface Call {
	call: ProjectCall;
	chars: number;
	result?: ProjectCallResult | { failed: unknown };
}

interface KeyCalls {
	sending: boolean;
	/** When the batch on its way left. */
	sentAt: number;
	waiting: Call[];
}

const byKey = new Map<string, KeyCalls>();

/**
 * The object's answer to one call of `method` for the key, sent alone or with the calls this
 * isolate's other requests make meanwhile; `chars` is the size of the body it carries. Throws
 * when the object could not answer it (its batch failed), like a call of its own would.
 */
export async function callProjectCollector<M extends keyof ProjectCalls>(
	env: Env,
	ctx: ExecutionContext,
	keyId: string,
	method: M,
	command: ProjectCalls[M]["command"],
	chars: number,
): Promise<ProjectCalls[M]["outcome"]> {
	if (chars > SOLO_CHARS) return resultOf((await projectCollectorFor(env, keyId).calls([{ method, command } as ProjectCall]))[0]);
	let calls = byKey.get(keyId);
	if (!calls) {
		calls = { sending: false, sentAt: 0, waiting: [] };
		byKey.set(keyId, calls);
	}
	const mine: Call = { call: { method, command } as ProjectCall, chars };
	calls.waiting.push(mine);
	while (!mine.result) {
		// Whichever waiting request looks first sends the next batch from the front of the line, its
		// own call in it or not: a request that went away holds nobody up.
		if (!calls.sending) await sendNext(env, ctx, keyId, calls);
		else await scheduler.wait(Math.max(POLL_MS, calls.sentAt + typicalBatchMs - Date.now()));
	}
	return resultOf(mine.result);
}

function resultOf<M extends keyof ProjectCalls>(result: ProjectCallResult | { failed: unknown }): ProjectCalls[M]["outcome"] {
	if ("failed" in result) throw typeof result.failed === "string" ? new Error(result.failed) : result.failed;
	return result.outcome as ProjectCalls[M]["outcome"];
}

/** Sends the calls at the front of the key's queue as one batch, and hands each its result. */
async function sendNext(env: Env, ctx: ExecutionContext, keyId: string, calls: KeyCalls): Promise<void> {
	const batch: Call[] = [];
	let chars = 0;
	while (calls.waiting.length > 0 && batch.length < BATCH_CALLS && chars + calls.waiting[0].chars <= BATCH_CHARS) {
		const next = calls.waiting.shift() as Call;
		chars += next.chars;
		batch.push(next);
	}
	calls.sending = true;
	calls.sentAt = Date.now();
	const sent = (async () => {
		try {
			const results = await projectCollectorFor(env, keyId).calls(batch.map((c) => c.call));
			batch.forEach((c, i) => {
				c.result = results[i];
			});
		} catch (failed) {
			for (const c of batch) c.result = { failed };
		} finally {
			typicalBatchMs += (Date.now() - calls.sentAt - typicalBatchMs) / 8;
			calls.sending = false;
			if (calls.waiting.length === 0 && byKey.get(keyId) === calls) byKey.delete(keyId);
		}
	})();
	// The batch answers other requests too: it runs to the end even if this request's client goes.
	ctx.waitUntil(sent);
	await sent;
}
