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
import type { LogEvent, StackFrame } from "./normalizeEvent";

export type GroupingInput = Pick<LogEvent, "message" | "exception" | "fingerprint">;

// ---------------------------------------------------------------------------
// Frames: whose code is it?

/**
 * Runtime internals: Node, Deno, Bun, V8 natives, anonymous eval, and V8's `Promise.all (index 3)`,
 * whose position Sentry's Node parser reports as the file name "index 3".
 */
const RUNTIME_FILE = /^(?:node:|internal[/\\]|bun:|deno:|ext:|native$|\[native code\]$|<anonymous>$|<native>$|<unknown>$|\(native\)$|index \d+$)/i;

/** Code a bundler or transpiler adds around the app's own. */
const BUNDLER_FILE =
	/(?:^|[/\\(])(?:webpack[/\\](?:bootstrap|runtime|universalModuleDefinition)|\(webpack\)|@vite[/\\]client|vite[/\\]dist[/\\]client|__vite|regenerator-runtime|@babel[/\\]runtime|tslib|core-js|@swc[/\\]helpers)/i;
const BUNDLER_FUNCTION = new Set([
	"__webpack_require__",
	"__webpack_require__.e",
	"__awaiter",
	"__generator",
	"__async",
	"__require",
	"__esm",
	"__commonJS",
	"__toESM",
	"asyncGeneratorStep",
	"_asyncToGenerator",
	"_next",
	"_throw",
	"Generator.next",
	"Generator.throw",
	"Generator.return",
	"AsyncGenerator.next",
	"AsyncGenerator.throw",
]);

/** Other people's code: dependencies, browser extensions, well-known CDNs. */
const LIBRARY_FILE =
	/(?:^|[/\\])(?:node_modules|bower_components|jspm_packages|site-packages|dist-packages|vendor[/\\]bundle|gems)[/\\]|^(?:chrome|moz|safari|safari-web|ms-browser)-extension:|^https?:\/\/(?:[^/]*\.)?(?:unpkg\.com|cdn\.jsdelivr\.net|cdnjs\.cloudflare\.com|ajax\.googleapis\.com|googletagmanager\.com|google-analytics\.com|connect\.facebook\.net|js\.stripe\.com)\//i;

const pathOf = (frame: StackFrame) => frame.abs_path ?? frame.filename ?? "";

export function isRuntimeOrBundlerFrame(frame: StackFrame): boolean {
	const path = pathOf(frame).trim();
	if (path === "" && !frame.module) return true; // nothing says where it is: e.g. `new Promise`, `Array.map`
	if (RUNTIME_FILE.test(path) || BUNDLER_FILE.test(path)) return true;
	const fn = frame.function?.replace(/^async\s+/, "");
	return fn !== undefined && BUNDLER_FUNCTION.has(fn);
}

/** In-app for grouping: not marked `in_app: false`, and not a dependency whatever it says. */
export function isAppFrame(frame: StackFrame): boolean {
	return frame.in_app !== false && !LIBRARY_FILE.test(pathOf(frame)) && !LIBRARY_FILE.test(frame.module ?? "");
}

// ---------------------------------------------------------------------------
// Frame keys

const HEX_TOKEN = /[.-]([0-9a-f]{6,64})(?=[.-]|$)/gi;
const BASE64_TOKEN = /[.-]([A-Za-z0-9_-]{8})(?=\.[A-Za-z0-9]+$)/;

/** `main-8f3a2c.js`, `main.8f3a2c1d.chunk.js`, `index-BxY7_q2k.js` → `main.js`, `main.chunk.js`, `index.js`. */
export function stripContentHash(name: string): string {
	let out = name.replace(HEX_TOKEN, (whole, token: string) => (/\d/.test(token) || token.length >= 8 ? "" : whole));
	// Rollup and Vite: eight base64url characters; told from words by digits, inner capitals or _/-.
	out = out.replace(BASE64_TOKEN, (whole, token: string) => (/\d|[_-]|.[A-Z]/.test(token) && /[a-z]/i.test(token) ? "" : whole));
	// A name that is only a hash (`[contenthash].js`).
	return out.replace(/^[0-9a-f]{8,64}(?=\.)/i, (token) => (/\d/.test(token) ? "<hash>" : token));
}

/** Base name of a path or URL: no directories, origin, query or fragment; content hash removed. */
export function fileKey(frame: StackFrame): string {
	if (frame.module) {
		const segments = frame.module.split(/[/\\]/);
		segments.push(stripContentHash(segments.pop() ?? ""));
		return segments.join("/");
	}
	const path = pathOf(frame).split(/[?#]/)[0];
	const base = path.split(/[/\\]/).filter(Boolean).pop() ?? "";
	return stripContentHash(base);
}

/**
 * Firefox prefixes the frames of an async parent stack with what scheduled it: `async*save`,
 * `promise callback*init`, `setTimeout handler*tick`, `EventListener.handleEvent*`. (Not C++'s
 * `operator*`.)
 */
const ASYNC_CAUSE = /^(?!operator\*)([A-Za-z][\w$. ]*)\*/;

const ANONYMOUS = /^(?:<anonymous>|anonymous|<unknown>|\?|Anonymous function|global code|module code|eval code|eval|<eval>|<lambda>|<module>)$/i;

/**
 * A function name as every browser and runtime would agree on it: Chrome's `async
 * UserService.load`, Firefox's `load` and `UserService.prototype.load` are all `load`; Firefox's
 * `loadUser/<` (an anonymous function in loadUser) is anonymous, as Chrome shows it.
 */
export function normalizeFunctionName(name: string | undefined): string {
	if (!name) return "";
	let fn = name.trim().replace(ASYNC_CAUSE, "");
	fn = fn.replace(/^(?:(?:async|new|static|get|set)\s+|\*)+/, "");
	fn = fn.replace(/\s*\[as [^\]]*\]$/, "").replace(/\s*\(index \d+\)$/, "");
	if (fn.includes("/")) fn = fn.split("/").pop() ?? ""; // Firefox: outer/inner<
	fn = fn.replace(/[<@]+$/, "");
	// Class and namespace prefixes: Chrome and Firefox disagree on them, the method name they share.
	fn = fn.split(/\.|::/).pop() ?? "";
	// Compiler-numbered closures: lambda$main$0, <Main>b__0_1, $1 anonymous classes.
	fn = fn.replace(/\$\d+/g, "$").replace(/__\d+(?:_\d+)*$/, "__");
	return ANONYMOUS.test(fn) ? "" : fn;
}

const CONTEXT_LINE_MAX = 120;

/** One frame's part of the fingerprint; "" for a frame that says nothing. */
export function frameKey(frame: StackFrame): string {
	const file = fileKey(frame);
	const fn = normalizeFunctionName(frame.function);
	const context = (frame.context_line ?? "").trim().replace(/\s+/g, " ");
	const line = context.length <= CONTEXT_LINE_MAX ? context : "";
	return file || fn || line ? `${file}|${fn}|${line}` : "";
}

/** `a a a b` → `a b`; `a b a b a b c` → `a b c`: recursion is one pass, however deep. */
export function collapseRecursion(keys: string[]): string[] {
	let out = keys;
	for (let period = 1; period <= 4; period++) {
		const next: string[] = [];
		for (const key of out) {
			next.push(key);
			const n = next.length;
			if (n >= 2 * period && next.slice(n - period).every((k, i) => k === next[n - 2 * period + i])) {
				next.length = n - period;
			}
		}
		out = next;
	}
	return out;
}

/**
 * The frames every browser shows. Past an async boundary Chrome's Error.stack shows only the
 * awaiting functions (`at async save`); Firefox also shows their synchronous callers and the
 * stacks that scheduled a promise callback, timer or event listener. Walking from the newest
 * frame: keep frames up to the first `cause*` frame, then only `async*` ones, and stop at any
 * other cause, so one bug is one issue whichever browser reported it.
 */
export function withoutAsyncParents(frames: StackFrame[]): StackFrame[] {
	const kept: StackFrame[] = [];
	let crossed = false;
	for (let i = frames.length - 1; i >= 0; i--) {
		const cause = ASYNC_CAUSE.exec(frames[i].function?.trim() ?? "")?.[1];
		if (cause === undefined) {
			if (!crossed) kept.push(frames[i]);
			continue;
		}
		if (cause.trim() !== "async") break;
		crossed = true;
		kept.push(frames[i]);
	}
	return kept.length > 0 ? kept.reverse() : frames;
}

/** The frames that decide the group: in-app ones, else all but internals, else all. */
export function groupingFrames(allFrames: StackFrame[]): StackFrame[] {
	const frames = withoutAsyncParents(allFrames);
	const own = frames.filter((f) => !isRuntimeOrBundlerFrame(f));
	const inApp = own.filter(isAppFrame);
	if (inApp.length > 0) return inApp;
	return own.length > 0 ? own : frames;
}

// ---------------------------------------------------------------------------
// Error wordings

interface Wording {
	/** Types the rule applies to; an event without a type always qualifies. */
	types: string[];
	patterns: RegExp[];
	canonical: (match: RegExpExecArray) => { type: string; value: string };
}

const TYPE_ERROR = ["TypeError", "Error"];

/** The same JavaScript error in Chrome (V8), Firefox (SpiderMonkey) and Safari (JavaScriptCore) words. */
const WORDINGS: Wording[] = [
	{
		types: TYPE_ERROR,
		patterns: [
			/^Cannot (?:read|set) propert(?:y|ies) (?:.* )?of (undefined|null)(?: \((?:reading|setting) .*\))?\.?$/, // Chrome
			/^can't access property .+?, .+ is (undefined|null)$/, // Firefox 72+
			/^can't access property .+ of (undefined|null)$/,
			/^(undefined|null) has no properties$/, // Firefox, older
			/^(undefined|null) is not an object(?: \(evaluating .*\))?\.?$/, // Safari
			/^Unable to get property .+ of (undefined) or null reference$/, // legacy Edge
		],
		canonical: (m) => ({ type: "TypeError", value: `Cannot access property of ${m[1]}` }),
	},
	{
		types: ["TypeError"],
		patterns: [/^.+ is (undefined|null)$/], // Firefox, older: `a.b is undefined`; only as a TypeError
		canonical: (m) => ({ type: "TypeError", value: `Cannot access property of ${m[1]}` }),
	},
	{
		types: TYPE_ERROR,
		patterns: [
			/^(.+?) is not a function\. \(In '.*', '.*' is .*\)$/, // Safari
			/^(?:undefined|null) is not a function \(evaluating '(.+?)(?:\(.*\))?'\)$/, // Safari, older
			/^(.+?) is not a function$/, // Chrome, Firefox
		],
		canonical: (m) => ({ type: "TypeError", value: `${m[1]} is not a function` }),
	},
	{
		types: ["ReferenceError", "Error"],
		patterns: [/^(\S+) is not defined$/, /^Can't find variable: (\S+)$/],
		canonical: (m) => ({ type: "ReferenceError", value: `${m[1]} is not defined` }),
	},
	{
		types: ["ReferenceError", "Error"],
		patterns: [
			/^Cannot access .+ before initialization$/,
			/^can't access lexical declaration .+ before initialization$/,
			/^Cannot access uninitialized variable\.?$/,
		],
		canonical: () => ({ type: "ReferenceError", value: "Cannot access variable before initialization" }),
	},
	{
		types: ["RangeError", "InternalError", "Error"],
		patterns: [/^Maximum call stack size exceeded\.?$/, /^too much recursion$/],
		canonical: () => ({ type: "RangeError", value: "Maximum call stack size exceeded" }),
	},
	{
		types: TYPE_ERROR,
		patterns: [
			/^Failed to fetch$/,
			/^NetworkError when attempting to fetch resource\.?$/,
			/^Load failed$/,
			/^The network connection was lost\.?$/,
			/^Network request failed$/,
		],
		canonical: () => ({ type: "TypeError", value: "Failed to fetch" }),
	},
	{
		types: ["SyntaxError", "Error"],
		patterns: [
			/^Unexpected token .* in JSON at position \d+$/,
			/^Unexpected end of JSON input$/,
			/^Unexpected (?:token|non-whitespace character) .*JSON.*$/,
			/^.* is not valid JSON$/,
			/^JSON\.parse: .+$/,
			/^JSON Parse error: .+$/,
		],
		canonical: () => ({ type: "SyntaxError", value: "Invalid JSON" }),
	},
	{
		types: TYPE_ERROR,
		patterns: [/^Cannot convert undefined or null to object$/, /^can't convert (?:undefined|null) to object$/],
		canonical: () => ({ type: "TypeError", value: "Cannot convert undefined or null to object" }),
	},
	{
		types: TYPE_ERROR,
		patterns: [/^Assignment to constant variable\.?$/, /^invalid assignment to const .+$/, /^Attempted to assign to readonly property\.?$/],
		canonical: () => ({ type: "TypeError", value: "Assignment to constant variable" }),
	},
	{
		types: ["TypeError", "Error", "ChunkLoadError"],
		patterns: [
			/^Failed to fetch dynamically imported module: .+$/,
			/^error loading dynamically imported module.*$/,
			/^Importing a module script failed\.?$/,
			/^Loading (?:CSS )?chunk .+ failed.*$/,
		],
		canonical: () => ({ type: "TypeError", value: "Failed to load a dynamically imported module" }),
	},
	{
		types: ["TypeError", "Error"],
		patterns: [/^(?:.+ )?is not iterable(?: .*)?$/, /^.+ is not iterable.*$/],
		canonical: () => ({ type: "TypeError", value: "Value is not iterable" }),
	},
	{
		types: ["Error"],
		patterns: [/^ResizeObserver loop (?:limit exceeded|completed with undelivered notifications)\.?$/],
		canonical: () => ({ type: "Error", value: "ResizeObserver loop limit exceeded" }),
	},
];

const WORDING_MAX = 1_000;

/** One wording per JavaScript error, whichever browser threw it. */
export function canonicalError(type: string | null, value: string | null): { type: string | null; value: string | null } {
	// Engines word these errors in a line; longer values are something else, and skipping them
	// keeps the patterns' backtracking bounded.
	if (value === null || value.length > WORDING_MAX) return { type, value };
	const text = value.trim();
	for (const rule of WORDINGS) {
		if (type !== null && !rule.types.includes(type)) continue;
		for (const pattern of rule.patterns) {
			const match = pattern.exec(text);
			if (match) return rule.canonical(match);
		}
	}
	return { type, value };
}

// ---------------------------------------------------------------------------
// Parametrization

const MONTH = "(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*";
const WEEKDAY = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*";

/** In order: later patterns never see what earlier ones replaced. */
const PARAMETERS: Array<[RegExp, string]> = [
	// Quoted values: '…', "…", `…`, “…”, ‘…’ (an apostrophe inside a word does not open a quote).
	[/(?<![\w'])'[^'\n]{0,300}'(?!\w)/g, "<quoted>"],
	[/(?<!\w)"[^"\n]{0,300}"(?!\w)/g, "<quoted>"],
	[/`[^`\n]{0,300}`/g, "<quoted>"],
	[/“[^”\n]{0,300}”|‘[^’\n]{0,300}’/g, "<quoted>"],
	// Starts only where a scheme can start, so a long run of scheme characters is scanned once.
	[/(?<![a-z0-9+.-])[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`)\]]+/gi, "<url>"],
	[/(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, "<email>"],
	[/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, "<uuid>"],
	[/\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?(?!\w)/g, "<date>"],
	[
		new RegExp(
			`\\b(?:${WEEKDAY},?\\s+)?(?:\\d{1,2}\\s+${MONTH}|${MONTH}\\s+\\d{1,2}),?\\s+\\d{4}(?:\\s+\\d{1,2}:\\d{2}(?::\\d{2})?)?(?:\\s*(?:GMT|UTC)(?:[+-]\\d{2}:?\\d{2})?)?(?:\\s+\\([^)\\n]{0,60}\\))?`,
			"gi",
		),
		"<date>",
	],
	[/\b\d{1,2}\/\d{1,2}\/\d{2,4}\b/g, "<date>"],
	[/\b(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?\b/g, "<ip>"],
	[/(?<![\w:])(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}(?![\w:])/gi, "<ip>"],
	[/(?<![\w:])(?=[0-9a-f:]*\d)(?:[0-9a-f]{1,4}:){0,6}(?:[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){0,6}[0-9a-f]{0,4}(?![\w:])/gi, "<ip>"],
	[/\b\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?\b/g, "<time>"],
	[/\b[0-9a-f]{32,128}\b/gi, "<hash>"],
	[/\b0x[0-9a-f]+\b/gi, "<hex>"],
	[/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,31}\b/gi, "<hex>"],
	// Random ids and tokens: long, with letters and at least two digits (cus_9s6XKzkNRiz8i3).
	[/(?<![\w-])(?=[\w-]*\d[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]{16,}/g, "<id>"],
	// Numbers, also with units (31ms, 5MB); not inside identifiers (utf8, x86_64, v2).
	[/(?<![A-Za-z_\d.])\d+(?:[.,]\d+)*/g, "<num>"],
];

/** Replaces the parts of a message that change from one occurrence of a bug to the next. */
export function parametrize(text: string): string {
	let out = text;
	for (const [pattern, placeholder] of PARAMETERS) out = out.replace(pattern, placeholder);
	return out.replace(/\s+/g, " ").trim();
}

// ---------------------------------------------------------------------------
// Fingerprint, hash, title, culprit

const UNCAUGHT = /^(?:Uncaught\s+(?:\(in promise\)\s+)?)?([A-Z][\w.$]*(?:Error|Exception))(?::\s+([\s\S]*))?$/;

/** The computed fingerprint (what `{{ default }}` stands for). */
export function defaultFingerprint(event: GroupingInput): string[] {
	const exception = event.exception;
	const frames = exception?.stacktrace?.frames ?? [];
	if (frames.length > 0) {
		const keys = collapseRecursion(groupingFrames(frames).map(frameKey).filter(Boolean));
		if (keys.length > 0) {
			const { type } = canonicalError(exception!.type, exception!.value);
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
export async function groupHashOf(fingerprint: string[]): Promise<string> {
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
	return title.slice(0, TITLE_MAX) || "(no message)";
}

const frameLabel = (frame: StackFrame) => {
	const file = frame.filename ?? frame.module ?? frame.abs_path;
	const fn = frame.function || "<anonymous>";
	return file ? `${fn} (${file})` : fn;
};

/**
 * The last frame with `in_app: true` (spec 2.3), as `function (file)`. Without one, the last
 * frame that is not a runtime internal, as other trackers do; without frames, none.
 */
export function culpritOf(event: Pick<LogEvent, "exception">): string | null {
	const frames = event.exception?.stacktrace?.frames ?? [];
	const chosen = frames.findLast((f) => f.in_app === true) ?? frames.findLast((f) => !isRuntimeOrBundlerFrame(f));
	return chosen ? frameLabel(chosen).slice(0, TITLE_MAX) : null;
}
