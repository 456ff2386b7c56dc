/**
 * Issue grouping: which events are one bug. Pure functions, so the grouping table in the tests
 * runs against exactly what the ingest endpoint runs.
 *
 * The fingerprint is a list of strings; its SHA-256 (first 128 bits, 32 hex) is the group hash.
 *
 * 1. An explicit `fingerprint` array wins; `{{ default }}` in it stands for the computed list.
 * 2. With a stack trace: the exception type plus one key per in-app frame, oldest first:
 *    module (else the file's base name without a bundle content hash), the normalized function
 *    name, and the context line when it is short. Line and column numbers never count, so
 *    a rebuild or an edit elsewhere in the file keeps the group. Frames in `node_modules`,
 *    runtime internals and bundler helpers are not the app's; direct recursion and short
 *    mutual-recursion cycles collapse to one pass. Async parent frames only Firefox shows
 *    (`promise callback*init`) are left out. With no in-app frame, all frames count.
 * 3. Without a stack: the exception type plus the parametrized value (numbers, ids, hashes,
 *    emails, IPs, URLs, dates and quoted values replaced by placeholders), after mapping the
 *    browsers' different wordings of one JavaScript error onto one wording; else the
 *    parametrized message.
 */
import { collapseRecursion, frameKey, groupingFrames, isRuntimeOrBundlerFrame } from "./grouping/frames";
import { parametrize } from "./grouping/parametrize";
import { canonicalError } from "./grouping/wordings";
import { cutText } from "../text";
import type { LogEvent, StackFrame } from "./logEvent";

export type GroupingInput = Pick<LogEvent, "message" | "exception" | "fingerprint">;

// Fingerprint, hash, title, culprit

const UNCAUGHT = /^(?:Uncaught\s+(?:\(in promise\)\s+)?)?([A-Z][\w.$]*(?:Error|Exception))(?::\s+([\s\S]*))?$/;

/** The computed fingerprint (what `{{ default }}` stands for). */
function defaultFingerprint(event: GroupingInput): string[] {
	const exception = event.exception;
	const frames = exception?.stacktrace?.frames ?? [];
	if (frames.length > 0) {
		const keys = collapseRecursion(groupingFrames(frames).map(frameKey).filter(Boolean));
		if (keys.length > 0) {
			const { type } = canonicalError(exception?.type ?? null, exception?.value ?? null);
			return ["stack", type ?? "", ...keys];
		}
	}
	if (exception && (exception.type || exception.value)) {
		const { type, value } = canonicalError(exception.type, exception.value);
		return ["error", type ?? "", parametrize(value ?? "")];
	}
	const message = event.message ?? "";
	// A message that is an error's text (`Uncaught TypeError: …` from window.onerror) groups as that error.
	const uncaught = UNCAUGHT.exec(message.trim());
	if (uncaught) {
		const { type, value } = canonicalError(uncaught[1], uncaught[2] ?? null);
		return ["error", type ?? "", parametrize(value ?? "")];
	}
	return ["message", parametrize(message)];
}

const DEFAULT_PLACEHOLDER = /^\{\{\s*default\s*\}\}$/i;

/** The event's fingerprint: its own `fingerprint` array with `{{ default }}` expanded, else the default. */
export function fingerprintOf(event: GroupingInput): string[] {
	if (!event.fingerprint || event.fingerprint.length === 0) return defaultFingerprint(event);
	return event.fingerprint.flatMap((part) => (DEFAULT_PLACEHOLDER.test(part.trim()) ? defaultFingerprint(event) : [part]));
}

/** 32 hex characters: the first 128 bits of the SHA-256 of the fingerprint. */
async function groupHashOf(fingerprint: string[]): Promise<string> {
	const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(JSON.stringify(fingerprint)));
	return [...new Uint8Array(digest).slice(0, 16)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export const groupHash = (event: GroupingInput) => groupHashOf(fingerprintOf(event));

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
	const fn = frame.function || "<anonymous>";
	return file ? `${fn} (${file})` : fn;
};

/**
 * The last frame with `in_app: true`, as `function (file)`. Without one, the last
 * frame that is not a runtime internal, as other trackers do; without frames, none.
 */
export function culpritOf(event: Pick<LogEvent, "exception">): string | null {
	const frames = event.exception?.stacktrace?.frames ?? [];
	const chosen = frames.findLast((f) => f.in_app === true) ?? frames.findLast((f) => !isRuntimeOrBundlerFrame(f));
	return chosen ? cutText(frameLabel(chosen), TITLE_MAX) : null;
}
