/**
 * Stack traces of V8 (Node, Chrome, Edge), SpiderMonkey (Firefox) and JavaScriptCore (Safari)
 * turned into frames as the ingest endpoint takes them: oldest call first, crash site last.
 */

export interface StackFrame {
	filename?: string;
	/** Node: the file named as @sentry/node names it (`lib.payments:charge`); grouping prefers it to the file. */
	module?: string;
	function?: string;
	lineno?: number;
	colno?: number;
	in_app: boolean;
	/** Node: the frame's line of source, and the lines before and after it. */
	context_line?: string;
	pre_context?: string[];
	post_context?: string[];
}

/** The endpoint keeps at most 200 frames. */
const MAX_FRAMES = 200;
const MAX_LINE = 1_024;

/** `    at fn (location)` or `    at location`, always indented. */
const V8_LINE = /^\s+at (?:(.+?) \((.*)\)|(.*))$/;
/**
 * `eval at outer (file:1:2), <anonymous>:1:1`: code run by eval, located by the call to eval
 * (the innermost `(file:line:column)` of nested evals).
 */
const V8_EVAL = /\((\S+:\d+:\d+)\)/;
/** Firefox: `file.js line 2 > eval:1:1` or `… line 2 > Function:1:1`, the eval call on line 2. */
const GECKO_EVAL = /^(.+?) line (\d+)(?: > (?:eval|Function))+(?::\d+:\d+)?$/;
/** Safari's frames without a location: a function name, `global code`, `eval code`. */
const JSC_BARE = /^(?:[\w$.]+|(?:global|eval|module) code)$/;
/** `location:line:column`, `location:line`, or a location alone (`<anonymous>`, `[native code]`). */
const POSITION = /^(.*?)(?::(\d+))?(?::(\d+))?$/;

/**
 * Not the application's code: dependencies, runtime internals, code without a file, browser
 * extensions, and this SDK (the npm package, or its files loaded on their own).
 */
const NOT_APP =
	/^(?:node:|internal[/\\]|native$|<anonymous>$|<unknown>$|\[native code\]$|index \d+$|(?:chrome|moz|safari|safari-web)-extension:)|[/\\]node_modules[/\\]|@svcapp[/\\_]logger|svc-logger(?:\.browser|\.node)?\.js$/;

export function isInApp(filename: string | undefined): boolean {
	return !!filename && !NOT_APP.test(filename);
}

function decodedPath(path: string): string {
	try {
		return decodeURI(path);
	} catch {
		return path;
	}
}

function frameAt(fn: string | undefined, location: string): StackFrame {
	// POSITION matches any text (every part is optional); the fallback only satisfies the types.
	const [, rawFile, line, column] = POSITION.exec(location.trim()) ?? ["", location.trim()];
	// Node shows ES modules as file URLs; the endpoint (and a person) wants the path, decoded.
	const filename = (rawFile.startsWith("file:///") ? decodedPath(rawFile.slice(7)) : rawFile).replace(/^\/([A-Za-z]:)/, "$1") || undefined;
	const frame: StackFrame = { in_app: isInApp(filename) };
	if (filename) frame.filename = filename;
	if (fn) frame.function = fn;
	if (line) frame.lineno = +line;
	if (column) frame.colno = +column;
	return frame;
}

function v8Frame(line: string): StackFrame | undefined {
	const match = V8_LINE.exec(line);
	if (!match) return undefined;
	// `at async file:1:2`: an anonymous async function.
	let location = match[2] ?? match[3].replace(/^async /, "");
	if (location.startsWith("eval at ")) location = V8_EVAL.exec(location)?.[1] ?? "<anonymous>";
	return frameAt(match[1], location);
}

/** Firefox and Safari: `fn@location`, `@location`, `fn` alone or `[native code]` alone (Safari). */
function geckoFrame(line: string): StackFrame | undefined {
	const text = line.trim();
	if (!text) return undefined;
	const at = text.indexOf("@");
	if (at < 0) {
		if (text === "[native code]") return frameAt(undefined, text);
		return JSC_BARE.test(text) ? { function: text, in_app: false } : undefined;
	}
	const fn = text.slice(0, at);
	const location = text.slice(at + 1);
	const evalCall = GECKO_EVAL.exec(location);
	if (evalCall) return frameAt(fn || "eval", `${evalCall[1]}:${evalCall[2]}`);
	return frameAt(fn, location);
}

/**
 * Frames of `error.stack`, oldest first. V8 stacks begin with the error's message, which may
 * itself hold an `@` or several lines, so once a line is a V8 frame only V8 frames are read.
 */
export function parseStack(stack: unknown): StackFrame[] {
	if (typeof stack !== "string" || !stack) return [];
	// No engine writes a frame this long; leaving such lines out bounds the regular expressions' work.
	const lines = stack.split("\n").filter((line) => line.length <= MAX_LINE);
	const isV8 = lines.some((line) => V8_LINE.test(line));
	const frames: StackFrame[] = [];
	for (const line of lines) {
		const frame = isV8 ? v8Frame(line) : geckoFrame(line);
		if (frame && (frame.filename || frame.function)) frames.push(frame);
		if (frames.length >= MAX_FRAMES) break;
	}
	return frames.reverse();
}
