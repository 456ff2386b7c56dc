import type { ProjectCall, ProjectCallResult, ProjectCalls } from "../../durable-objects/projectCommands";
import { projectCollectorFor } from "../objects";

/**
 * Calls from this isolate's concurrent requests to one key's ProjectCollector, sent together
 * (docs/architecture.md#calls-sent-together). While one batch is on its way, the calls that
 * arrive wait and leave together in the next, so a busy key costs one object call and one commit
 * per batch rather than per request, and a quiet key's call leaves at once. Each call is still
 * answered for itself, after the object has stored what it accepted.
 *
 * In workerd a request cannot wait on I/O another request started, so each batch is sent by one
 * of the waiting requests, in its own context, and runs in its waitUntil, so its answers arrive
 * even if that client goes away. When a batch comes back its sender wakes the calls it carried and
 * the first call still waiting, which sends the next. Where workerd does not let a request go on
 * in its own context once another request's code has woken it (its test pool turns that off), a
 * waiting request is woken by a timer of its own instead: when the batch on its way is due back
 * (batches here have lately taken `typicalBatchMs`), then every millisecond. Either way a waiting
 * request keeps a timer: workerd ends a request that waits on nothing of its own as hung, and a
 * woken request that was cut short meanwhile holds the others up only until their timers fire.
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
/** Whether a request woken by another request's code goes on in its own context (workerd's default). */
const WAKES_ACROSS_REQUESTS = Cloudflare.compatibilityFlags.handle_cross_request_promise_resolution === true;
/** Without wake-ups: how often a waiting call looks whether it was answered or may leave, once its batch is due. */
const POLL_MS = 1;
/** With wake-ups: how long a waiting call trusts them before it looks for itself. */
const WAKE_TIMEOUT_MS = 50;
/** How long recent batches took, a moving average. */
let typicalBatchMs = POLL_MS;

interface Call {
	call: ProjectCall;
	chars: number;
	result?: ProjectCallResult | { failed: unknown };
	/** Ends the request's current wait; a no-op when it is not waiting. */
	wake: () => void;
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
	const mine: Call = { call: { method, command } as ProjectCall, chars, wake: () => {} };
	calls.waiting.push(mine);
	while (!mine.result) {
		// Whichever waiting request looks first sends the next batch from the front of the line, its
		// own call in it or not: a request that went away holds nobody up.
		if (!calls.sending) await sendNext(env, ctx, keyId, calls);
		else await nextLook(mine, calls);
	}
	return resultOf(mine.result);
}

function resultOf<M extends keyof ProjectCalls>(result: ProjectCallResult | { failed: unknown }): ProjectCalls[M]["outcome"] {
	if ("failed" in result) throw typeof result.failed === "string" ? new Error(result.failed) : result.failed;
	return result.outcome as ProjectCalls[M]["outcome"];
}

/** Waits until the request should look again: woken by a batch's sender where workerd allows it, else by its own timer. */
async function nextLook(mine: Call, calls: KeyCalls): Promise<void> {
	if (!WAKES_ACROSS_REQUESTS) {
		await scheduler.wait(Math.max(POLL_MS, calls.sentAt + typicalBatchMs - Date.now()));
		return;
	}
	await Promise.race([new Promise<void>((resolve) => (mine.wake = resolve)), scheduler.wait(WAKE_TIMEOUT_MS)]);
	// Only a waiting request is woken: a promise of a request that has ended is not resolved.
	mine.wake = () => {};
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
			for (const c of batch) c.wake();
			calls.waiting[0]?.wake();
			if (calls.waiting.length === 0 && byKey.get(keyId) === calls) byKey.delete(keyId);
		}
	})();
	// The batch answers other requests too: it runs to the end even if this request's client goes.
	ctx.waitUntil(sent);
	await sent;
}
