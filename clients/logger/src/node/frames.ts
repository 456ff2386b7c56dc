/**
 * What Node adds to an event's frames, exactly as @sentry/node adds it, so that one bug reported
 * by either SDK is one issue: grouping keys a frame by its module (else its file), its function
 * and its line of source.
 * - `module`: the file's path named from the application's directory (the main script's):
 *   `lib/payments/charge.js` → `lib.payments:charge`, a dependency by its path under
 *   `node_modules` (`express.lib.router:layer`), any other file by its base name.
 * - `context_line`, `pre_context`, `post_context`: the frame's line of source and the lines
 *   around it, read from the file without holding up the application: asynchronously, reading
 *   no further than the last line needed and at most 4 MiB, within one second per file, with the
 *   files last read kept (10) and the unreadable ones remembered (20). Nothing here throws.
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { dirname, posix, sep } from "node:path";
import { createInterface } from "node:readline";
import { cut, type LogEvent, type StackFrame } from "../event.js";

// ---------------------------------------------------------------------------
// Module names

const isWindows = sep === "\\";
/** `C:\app\lib` → `/app/lib`: compared and split as POSIX paths. */
const posixPath = (path: string) => (isWindows ? path.replace(/^[A-Z]:/, "").replace(/\\/g, "/") : path);

function decoded(text: string): string {
	try {
		return decodeURIComponent(text);
	} catch {
		return text;
	}
}

/** The application's directory: the main script's, else the working directory. */
const appDirectory = () => posixPath(process.argv[1] ? dirname(process.argv[1]) : process.cwd());

export function moduleOf(filename: string, base: string): string {
	const parsed = posix.parse(posixPath(filename));
	const name = decoded([".js", ".mjs", ".cjs"].includes(parsed.ext) ? parsed.name : parsed.base);
	const dir = parsed.dir || ".";
	const dependency = dir.lastIndexOf("/node_modules");
	if (dependency >= 0) return `${dir.slice(dependency + "/node_modules/".length).replace(/\//g, ".")}:${name}`;
	if (!dir.startsWith(base)) return name;
	const inApp = dir.slice(base.length + 1).replace(/\//g, ".");
	return inApp ? `${inApp}:${name}` : name;
}

// ---------------------------------------------------------------------------
// Lines of source

/** Files of source, not minified: other files' lines say nothing useful, or are too long to. */
const SOURCE_FILE = /\.(?:[cm]?[jt]sx?|vue|svelte|astro|mdx)$/;
const MINIFIED_FILE = /\.min\.[cm]?js$/;
/** Frames past these are in generated code. */
const MAX_LINENO = 10_000;
const MAX_COLNO = 1_000;
const MAX_FILE_BYTES = 4 * 1024 * 1024;
const READ_BUDGET_MS = 1_000;
const MAX_CONTEXT_LINES = 50;
const CACHED_FILES = 10;
const REMEMBERED_FAILURES = 20;
/** Longer lines are cut, as Sentry cuts them: grouping ignores a line over 120 characters anyway. */
const MAX_LINE = 150;
const CUT_LINE = 140;

/** A file's lines read so far; `last` is its last line once a read reached its end (or the byte limit). */
interface FileLines {
	lines: Map<number, string>;
	last?: number;
}

/** A map that forgets its least recently used entry past `limit`. */
function recentlyUsed<V>(limit: number) {
	const entries = new Map<string, V>();
	return {
		get(key: string): V | undefined {
			const value = entries.get(key);
			if (value !== undefined) {
				entries.delete(key);
				entries.set(key, value);
			}
			return value;
		},
		set(key: string, value: V) {
			entries.delete(key);
			entries.set(key, value);
			if (entries.size > limit) entries.delete(entries.keys().next().value as string);
		},
	};
}

const cachedFiles = recentlyUsed<FileLines>(CACHED_FILES);
const unreadableFiles = recentlyUsed<true>(REMEMBERED_FAILURES);

const cutLine = (line: string) => (line.length > MAX_LINE ? `${cut(line, CUT_LINE)} {snip}` : line);

function wantsContext(frame: StackFrame): frame is StackFrame & { filename: string; lineno: number } {
	const { filename, lineno, colno } = frame;
	if (typeof filename !== "string" || typeof lineno !== "number" || lineno < 1) return false;
	if (lineno > MAX_LINENO || (colno !== undefined && colno > MAX_COLNO)) return false;
	const path = filename.split(/[?#]/, 1)[0].toLowerCase();
	return !path.startsWith("node:") && !path.startsWith("data:") && SOURCE_FILE.test(path) && !MINIFIED_FILE.test(path);
}

/** The line numbers from `line - around` to `line + around` (from line 1). */
function* linesAround(line: number, around: number) {
	for (let n = Math.max(1, line - around); n <= line + around; n++) yield n;
}

const isKnown = (file: FileLines, line: number) => file.lines.has(line) || (file.last !== undefined && line > file.last);

/**
 * Reads the `wanted` lines of `path` into `file`; stops after the last of them, at the byte limit
 * or when the time budget is spent. Only regular files are opened: opening a FIFO would wait for
 * a writer, holding one of libuv's few threads.
 */
function readLines(path: string, wanted: Set<number>, file: FileLines): Promise<void> {
	return new Promise((resolve) => {
		const lastWanted = Math.max(...wanted);
		let stream: ReturnType<typeof createReadStream> | undefined;
		let reader: ReturnType<typeof createInterface> | undefined;
		let done = false;
		const finish = () => {
			if (done) return;
			done = true;
			clearTimeout(timer);
			reader?.close();
			stream?.destroy();
			resolve();
		};
		const unreadable = () => {
			if (!done) unreadableFiles.set(path, true);
			finish();
		};
		const timer = setTimeout(finish, READ_BUDGET_MS);
		stat(path)
			.then((info) => {
				if (done) return;
				if (!info.isFile()) return unreadable();
				const input = createReadStream(path, { end: MAX_FILE_BYTES - 1 });
				const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
				stream = input;
				reader = lines;
				let lineNumber = 0;
				let endsWithNewline = false;
				input.on("data", (chunk: Buffer) => {
					endsWithNewline = chunk[chunk.length - 1] === 0x0a;
				});
				// readline passes the stream's errors on: unheard, they would be thrown into the application.
				input.on("error", unreadable);
				lines.on("error", unreadable);
				lines.on("line", (line) => {
					if (done) return;
					lineNumber++;
					if (wanted.has(lineNumber)) file.lines.set(lineNumber, cutLine(line));
					if (lineNumber >= lastWanted) finish();
				});
				lines.on("close", () => {
					if (done) return;
					// The whole file, or its first MAX_FILE_BYTES: a line the limit cuts short is not kept.
					const cutShort = input.bytesRead >= MAX_FILE_BYTES && !endsWithNewline;
					if (cutShort) file.lines.delete(lineNumber);
					file.last = cutShort ? lineNumber - 1 : lineNumber;
					finish();
				});
			})
			.catch(unreadable);
	});
}

/** Sets the frame's line and the lines around it when the file has them all, as @sentry/node does. */
function addContext(frame: StackFrame, lineno: number, file: FileLines, around: number) {
	const before: string[] = [];
	for (let n = Math.max(1, lineno - around); n < lineno; n++) {
		const line = file.lines.get(n);
		if (line === undefined) return;
		before.push(line);
	}
	const line = file.lines.get(lineno);
	if (line === undefined) return;
	const after: string[] = [];
	for (let n = lineno + 1; n <= lineno + around; n++) {
		const next = file.lines.get(n);
		if (next === undefined) break;
		after.push(next);
	}
	frame.pre_context = before;
	frame.context_line = line;
	frame.post_context = after;
}

/**
 * Every frame of the event gets its module and, when `contextLines` is 1 or more, its line of
 * source with up to that many lines (at most 50) before and after it.
 */
export async function enrichFrames(event: LogEvent, contextLines: number): Promise<void> {
	const frames = (event.exception?.values ?? []).flatMap((exception) => exception.stacktrace?.frames ?? []);
	const base = appDirectory();
	for (const frame of frames) if (frame.filename) frame.module = moduleOf(frame.filename, base);
	const around = Math.min(Math.floor(contextLines), MAX_CONTEXT_LINES);
	if (!(around > 0)) return;

	const wantedByFile = new Map<string, Set<number>>();
	for (const frame of frames) {
		if (!wantsContext(frame) || unreadableFiles.get(frame.filename)) continue;
		const wanted = wantedByFile.get(frame.filename) ?? new Set<number>();
		for (const n of linesAround(frame.lineno, around)) wanted.add(n);
		wantedByFile.set(frame.filename, wanted);
	}
	await Promise.all(
		[...wantedByFile].map(([path, wanted]) => {
			const file = cachedFiles.get(path) ?? { lines: new Map() };
			cachedFiles.set(path, file);
			const missing = new Set([...wanted].filter((n) => !isKnown(file, n)));
			return missing.size > 0 ? readLines(path, missing, file) : undefined;
		}),
	);
	// As @sentry/node: any frame whose lines are known gets them, even one that would not have had its file read.
	for (const frame of frames) {
		const file = frame.filename === undefined ? undefined : cachedFiles.get(frame.filename);
		if (file && typeof frame.lineno === "number") addContext(frame, frame.lineno, file, around);
	}
}
