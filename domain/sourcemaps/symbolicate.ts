/**
 * Symbolication: the frames of minified JavaScript mapped back to the code as it was written,
 * before the event is grouped (docs/api.md#source-maps). Which source map a frame needs is found
 * by the caller (`MapResolver`: by the event's debug ids, else by release and URL); this module
 * does the mapping and says, in the event, why a frame was left as it came.
 *
 * A mapped frame takes the original file, line, column and context lines, and its function's
 * original name: where the minified script was uploaded too, the name its declaration had in the
 * original code (found before the frame in the script, then mapped); else the name the calling
 * frame used at the call, as the map records it; else none, so that a name that changes with
 * every build never reaches grouping. `in_app` follows the original path: false under
 * node_modules. The frame as it came stays beside it, in `minified`.
 */
import { FRAME_CONTEXT, LOG_STORAGE_BOUNDS, SYMBOLICATION_LIMITS } from "../limits";
import type { LogEvent, LogException, StackFrame, Symbolication } from "../logs/logEvent";
import { identifiesNothing } from "../logs/grouping/frames";
import { cutText } from "../text";
import type { MinifiedScript } from "./minifiedScript";
import { displayPath, isDependencyPath, type OriginalPosition, type SourceMap } from "./sourceMap";

/** A file frames were loaded from, and the debug id the event gives it. */
export interface FrameFile {
	file: string;
	debugId: string | null;
}

/** The source map for a file (and the minified script when it was uploaded too), or why there is none to use. */
export type MapOutcome = { map: SourceMap; url: string; script: MinifiedScript | null } | { problem: string };

type Found = { map: SourceMap; script: MinifiedScript | null; position: OriginalPosition };

/** Finds the maps of an event's files: one call per event, so its lookups can be batched and bounded. */
export type MapResolver = (files: FrameFile[], release: string | null) => Promise<Map<string, MapOutcome>>;

const URL_FILE = /^[a-z][a-z0-9+.-]*:\/\//i;

const fileOf = (frame: StackFrame) => frame.abs_path ?? frame.filename ?? null;

/**
 * The file a frame's code came from, when the frame can be mapped: it has a line and column, was
 * loaded from a URL or carries a debug id (a Node build after `sentry-cli sourcemaps inject`),
 * and is not the error reporter's own (an SDK's wrapper, which no map of the app covers).
 */
function mappableFile(frame: StackFrame, debugIds: Map<string, string>): string | null {
	const file = fileOf(frame);
	if (!file || !frame.lineno || !frame.colno || identifiesNothing(frame)) return null;
	return URL_FILE.test(file) || debugIds.has(file) ? file : null;
}

const exceptionsOf = (event: LogEvent) => (event.exception ? [...event.chained_exceptions, event.exception] : event.chained_exceptions);

/** What the frame was, as it came, for the owner to see beside the mapped one. */
function minifiedOf(frame: StackFrame): StackFrame["minified"] {
	const { filename, abs_path, function: fn, lineno, colno, context_line } = frame;
	return Object.fromEntries(Object.entries({ filename, abs_path, function: fn, lineno, colno, context_line }).filter(([, v]) => v !== undefined));
}

/** The original name of the function a frame ran in: by its declaration in the script, else as its caller called it. */
function functionNameOf(frame: StackFrame, found: Found, caller: Found | null): string | null {
	const declaration = found.script?.declarationOf(frame.function, frame.lineno ?? 0, frame.colno ?? 0);
	const declared = declaration ? found.map.originalPosition(declaration.line, declaration.column) : null;
	const name = declared ? (declared.name ?? found.map.identifierAt(declared.source, declared.line, declared.column)) : null;
	return name ?? caller?.position.name ?? null;
}

/** A map's names are cut as a frame's own strings are. */
const bounded = (text: string) => cutText(text, LOG_STORAGE_BOUNDS.frameString);

function mappedFrame(frame: StackFrame, { map, position }: Found, functionName: string | null, withContext: boolean): StackFrame {
	const context = withContext ? map.context(position.source, position.line, FRAME_CONTEXT.lines, FRAME_CONTEXT.lineChars) : null;
	const mapped: StackFrame = {
		filename: bounded(displayPath(position.source)),
		abs_path: bounded(position.source),
		lineno: position.line,
		colno: position.column,
		in_app: !isDependencyPath(position.source),
	};
	if (functionName) mapped.function = bounded(functionName);
	if (context) Object.assign(mapped, { pre_context: context.pre, context_line: context.line, post_context: context.post });
	mapped.minified = minifiedOf(frame);
	return mapped;
}

interface FrameResult {
	frames: StackFrame[];
	mapped: number;
	candidates: number;
}

function symbolicateFrames(frames: StackFrame[], debugIds: Map<string, string>, outcomes: Map<string, MapOutcome>, notes: Set<string>): FrameResult {
	let candidates = 0;
	const found = frames.map((frame): Found | null => {
		const file = mappableFile(frame, debugIds);
		if (file === null) return null;
		candidates++;
		const outcome = outcomes.get(file);
		if (!outcome || "problem" in outcome) {
			if (outcome) notes.add(outcome.problem);
			return null;
		}
		const position = outcome.map.originalPosition(frame.lineno ?? 0, frame.colno ?? 0);
		if (!position) notes.add(`${outcome.url} maps nothing at ${file}:${frame.lineno}:${frame.colno}`);
		return position ? { map: outcome.map, script: outcome.script, position } : null;
	});
	let mapped = 0;
	const out = frames.map((frame, i) => {
		const here = found[i];
		if (!here) return frame;
		mapped++;
		// Frames run oldest first: the one before this is its caller, stopped at the call to it.
		return mappedFrame(frame, here, functionNameOf(frame, here, found[i - 1] ?? null), frames.length - i <= FRAME_CONTEXT.frames);
	});
	return { frames: out, mapped, candidates };
}

/**
 * The event with its JavaScript frames mapped where a source map allows, and `symbolication`
 * saying how many were and why the others were not; the event as it came when no frame is a
 * JavaScript frame from a URL or with a debug id.
 */
export async function symbolicate(event: LogEvent, resolve: MapResolver): Promise<LogEvent> {
	const debugIds = new Map((event.debug_meta?.images ?? []).filter((image) => image.code_file).map((image) => [image.code_file as string, image.debug_id]));
	const files = new Map<string, FrameFile>();
	for (const exception of exceptionsOf(event)) {
		for (const frame of exception.stacktrace?.frames ?? []) {
			const file = mappableFile(frame, debugIds);
			if (file !== null) files.set(file, { file, debugId: debugIds.get(file) ?? null });
		}
	}
	if (files.size === 0) return event;

	const outcomes = await resolve([...files.values()], event.release);
	const notes = new Set<string>();
	const totals = { mapped: 0, frames: 0 };
	const mapException = (exception: LogException): LogException => {
		if (!exception.stacktrace) return exception;
		const result = symbolicateFrames(exception.stacktrace.frames, debugIds, outcomes, notes);
		totals.mapped += result.mapped;
		totals.frames += result.candidates;
		return { ...exception, stacktrace: { frames: result.frames } };
	};
	const exception = event.exception ? mapException(event.exception) : null;
	const chained = event.chained_exceptions.map(mapException);
	const symbolication: Symbolication = { frames: totals.frames, mapped: totals.mapped, notes: [...notes].slice(0, SYMBOLICATION_LIMITS.notes) };
	return { ...event, exception, chained_exceptions: chained, symbolication };
}

/** The event as it came, saying why symbolication could not run at all. */
export function unsymbolicated(event: LogEvent, note: string): LogEvent {
	return { ...event, symbolication: { frames: 0, mapped: 0, notes: [note] } };
}
