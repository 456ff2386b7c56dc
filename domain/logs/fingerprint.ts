/**
 * Issue grouping: which events are one bug. Pure functions, so the grouping table in the tests
 * runs against exactly what the ingest endpoint runs. docs/api.md#how-events-are-grouped says
 * the same for readers.
 *
 * The fingerprint is a list of strings; its SHA-256 (first 128 bits, 32 hex) is the group hash.
 *
 * 1. Built-in rules for known noisy errors (a failed webpack chunk load) win over everything.
 * 2. An explicit `fingerprint` array wins; `{{ default }}` in it stands for the computed list.
 * 3. An exception with a stack trace: its type plus one key per in-app frame, oldest first: for
 *    JavaScript the source file and function name, so Node and a page agree; else the module or
 *    file and function name, and for Python, PHP and Ruby (as in Sentry) and events without a
 *    platform the short context line (grouping/frames.ts, frameKey). Line and column
 *    numbers never count, so a rebuild or an edit elsewhere in the file keeps the group. Frames
 *    in `node_modules`, runtime internals and bundler helpers are not the app's; direct recursion
 *    and short mutual-recursion cycles collapse to one pass. Async parent frames only Firefox shows
 *    (`promise callback*init`) are left out. With no in-app frame anywhere, all frames count.
 *    Frames that identify nothing (eval, native code, the reporting SDK, blob: URLs...) never do.
 *    The type of a synthetic exception (an SDK's carrier of a message's stack) does not count; in
 *    JavaScript its capturing line of source does, else the message (callSiteKey).
 * 4. Without a stack: the exception type plus the parametrized value (numbers, ids, hashes,
 *    emails, IPs, URLs, dates and quoted values replaced by placeholders), after mapping the
 *    browsers' different wordings of one JavaScript error onto one wording; else the
 *    parametrized message.
 * 5. A chain or group of exceptions: the keys of the exceptions that decide it (grouping/chain.ts),
 *    one after the other; a group that comes down to one exception groups as that exception.
 */
import { builtInFingerprint } from "./grouping/builtInRules";
import { exceptionsForGrouping } from "./grouping/chain";
import { collapseRecursion, contextLineKey, frameKey, groupingFrames, groupsAsJavaScript, hasOwnFrameRules, identifiesNothing, isRuntimeOrBundlerFrame } from "./grouping/frames";
import { parametrize } from "./grouping/parametrize";
import { canonicalError } from "./grouping/wordings";
import { sha256Hex } from "../crypto";
import { cutText } from "../text";
import type { LogEvent, LogException, StackFrame } from "./logEvent";

export type GroupingInput = Pick<LogEvent, "message" | "message_template" | "exception" | "chained_exceptions" | "fingerprint" | "platform">;

// Fingerprint, hash, title, culprit

const UNCAUGHT = /^(?:Uncaught\s+(?:\(in promise\)\s+)?)?([A-Z][\w.$]*(?:Error|Exception))(?::\s+([\s\S]*))?$/;

/**
 * Where in its function a message's stack was captured. A JavaScript frame counts without its line
 * of source, so every message captured in one function would be one issue: the line that captured
 * it tells them apart, as in Sentry, and where the stack carries no source (a page's, unmapped),
 * the message's template or text, parametrized.
 */
function callSiteKey(frames: StackFrame[], message: string): string {
	const top = frames.at(-1);
	return (top && contextLineKey(top)) || parametrize(message);
}

/** An exception's part of the fingerprint: by its frames' keys, else by its value; [] when neither says anything. */
function exceptionKey(exception: LogException, frames: StackFrame[], event: GroupingInput): string[] {
	const synthetic = exception.mechanism?.synthetic === true;
	const canonical = canonicalError(synthetic ? null : exception.type, exception.value);
	const type = synthetic ? "" : (canonical.type ?? "");
	const keys = collapseRecursion(frames.map((frame) => frameKey(frame, event.platform)).filter(Boolean));
	if (keys.length > 0) {
		if (!synthetic || !groupsAsJavaScript(event.platform)) return ["stack", type, ...keys];
		return ["stack", type, ...keys, callSiteKey(frames, event.message_template ?? exception.value ?? "")];
	}
	if (exception.type || exception.value) return ["error", type, parametrize(canonical.value ?? "")];
	return [];
}

/** The reported exception and the rest of its chain, in the order sent. */
const exceptionsOf = (event: GroupingInput) => (event.exception ? [...event.chained_exceptions, event.exception] : event.chained_exceptions);

/**
 * The exceptions' part of the computed fingerprint; null without exceptions that say anything.
 * As Sentry's "app" variant: frames count only when in-app, unless no exception of those that
 * decide has an in-app frame; then, as its "system" variant, all but runtime internals.
 */
function exceptionsFingerprint(event: GroupingInput): string[] | null {
	const chain = exceptionsOf(event);
	const keys = new Map(
		chain.map((exception) => {
			const frames = groupingFrames(exception.stacktrace?.frames ?? []);
			const app = exceptionKey(exception, frames.app, event);
			return [exception, { app, system: exceptionKey(exception, frames.system, event), hasApp: app[0] === "stack" }];
		}),
	);
	const deciding = exceptionsForGrouping(chain, (exception) => JSON.stringify(keys.get(exception)));
	const variant = deciding.some((exception) => keys.get(exception)?.hasApp) ? "app" : "system";
	const parts = deciding.map((exception) => keys.get(exception)?.[variant] ?? []).filter((part) => part.length > 0);
	if (parts.length === 0) return null;
	return parts.length === 1 ? parts[0] : ["chain", ...parts.map((part) => JSON.stringify(part))];
}

/** The computed fingerprint (what `{{ default }}` stands for). */
function defaultFingerprint(event: GroupingInput): string[] {
	const fromExceptions = exceptionsFingerprint(event);
	if (fromExceptions) return fromExceptions;
	const message = event.message ?? "";
	// A message that is an error's text (`Uncaught TypeError: …` from window.onerror) groups as that error.
	const uncaught = UNCAUGHT.exec(message.trim());
	if (uncaught) {
		const { type, value } = canonicalError(uncaught[1], uncaught[2] ?? null);
		return ["error", type ?? "", parametrize(value ?? "")];
	}
	// Messages made from one template are one issue whatever values filled it (Sentry's logentry).
	return ["message", parametrize(event.message_template ?? message)];
}

const DEFAULT_PLACEHOLDER = /^\{\{\s*default\s*\}\}$/i;

/**
 * The event's fingerprint: a built-in rule's, else its own `fingerprint` array with
 * `{{ default }}` expanded, else the default.
 */
export function fingerprintOf(event: GroupingInput): string[] {
	const builtIn = builtInFingerprint(exceptionsOf(event), event.message);
	if (builtIn) return builtIn;
	if (!event.fingerprint || event.fingerprint.length === 0) return defaultFingerprint(event);
	return event.fingerprint.flatMap((part) => (DEFAULT_PLACEHOLDER.test(part.trim()) ? defaultFingerprint(event) : [part]));
}

/** Most events repeat a known issue: the hashes of recent fingerprints (short ones), oldest out first. */
const recentHashes = new Map<string, string>();
const RECENT_HASHES = 1_000;
const RECENT_HASH_CHARS = 2_000;

/** 32 hex characters: the first 128 bits of the SHA-256 of the fingerprint. */
async function groupHashOf(fingerprint: string[]): Promise<string> {
	const text = JSON.stringify(fingerprint);
	let hash = recentHashes.get(text);
	if (hash === undefined) {
		hash = (await sha256Hex(text)).slice(0, 32);
		if (text.length <= RECENT_HASH_CHARS) {
			if (recentHashes.size >= RECENT_HASHES) recentHashes.delete(recentHashes.keys().next().value as string);
			recentHashes.set(text, hash);
		}
	}
	return hash;
}

export const groupHash = (event: GroupingInput) => groupHashOf(fingerprintOf(event));

/**
 * Whether the earlier rules may group the event elsewhere: those before JavaScript frames counted
 * by source file and function name, before a line of source stopped counting for the platforms
 * whose SDKs send one only where the source is at hand (Go's...), and before a Ruby block was
 * `block` whatever its nesting.
 */
export const hasPreviousGroupHash = (event: GroupingInput) => hasOwnFrameRules(event.platform);

/**
 * The group hash under the earlier rules (module or file, function and line of source: what
 * events without a platform still follow), when it differs: an issue opened before the change
 * keeps taking its events instead of a new issue opening beside it, as Sentry keeps a secondary
 * hash while a project moves to new grouping. Null for Python, PHP and events without a
 * platform, whose rules did not change.
 */
export async function previousGroupHash(event: GroupingInput, current: string): Promise<string | null> {
	if (!hasPreviousGroupHash(event)) return null;
	const previous = await groupHashOf(fingerprintOf({ ...event, platform: null }));
	return previous === current ? null : previous;
}

const TITLE_MAX = 1_000;
const firstLine = (text: string) => text.trim().split(/\r?\n/, 1)[0] ?? "";

/** `Type: first line of value`, else the message's first line. */
export function titleOf(event: Pick<LogEvent, "message" | "exception">): string {
	const { exception } = event;
	let title = "";
	if (exception && (exception.type || exception.value)) {
		const value = firstLine(exception.value ?? "");
		title = exception.type && value ? `${exception.type}: ${value}` : (exception.type ?? value);
	} else {
		title = firstLine(event.message ?? "");
	}
	return cutText(title, TITLE_MAX) || "(no message)";
}

const frameLabel = (frame: StackFrame) => {
	const file = frame.filename ?? frame.module ?? frame.abs_path;
	// A mapped frame whose map names no function keeps the name the runtime reported
	// (`window.runScenario`) for the label only: grouping never reads a name a build may change.
	const fn = frame.function || frame.minified?.function || "<anonymous>";
	return file ? `${fn} (${file})` : fn;
};

/**
 * The last frame with `in_app: true`, as `function (file)`. Without one, the last
 * frame that is not a runtime internal, as other trackers do; without frames, none. Frames that
 * identify nothing (the reporting SDK's own, eval, native code) are never the culprit.
 */
export function culpritOf(event: Pick<LogEvent, "exception">): string | null {
	const frames = event.exception?.stacktrace?.frames ?? [];
	const chosen =
		frames.findLast((f) => f.in_app === true && !identifiesNothing(f)) ?? frames.findLast((f) => !isRuntimeOrBundlerFrame(f) && !identifiesNothing(f));
	return chosen ? cutText(frameLabel(chosen), TITLE_MAX) : null;
}
