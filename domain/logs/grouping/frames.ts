/**
 * Stack frames for grouping: whose code a frame is (the app's, a library's, the runtime's or a
 * bundler's, or nobody's in particular), and the key a frame contributes, the same in every
 * browser and runtime.
 */
import type { StackFrame } from "../logEvent";

/**
 * Frames that identify nothing, whatever else is in the stack: they never contribute, not even
 * when nothing else is left. Engines show them for the same bug in some browsers and not others
 * (Safari's `forEach@[native code]`, Chrome's `at new Promise (<anonymous>)`), code run by `eval`
 * claims the file that called eval, and V8's `Promise.all (index 3)` position becomes the file
 * name "index 3" in Sentry's Node parser.
 */
const NOWHERE_FILE =
	/^(?:\[native code\]|native code|native|\(native\)|<native>|eval code|<anonymous>|<unknown>|<asynchronous suspension>|index \d+)$/i;
const EVAL_FUNCTION = /^(?:eval|eval code)$/;
/** Blob URLs name a random id each page load: `blob:https://app.example.com/3f2b8c1e-…`. */
const BLOB_URL = /^blob:/i;
/** A URL with nothing after the host (an inline script reported as the page): no file named. */
const BARE_URL = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*\/?(?:[?#].*)?$/i;
/** The error reporter's own code: Sentry's SDKs on every platform, and svc's logger. */
const SDK_PATH =
	/(?:^|[/\\])(?:@sentry(?:-internal)?|@svcapp[/\\]logger|sentry_sdk)[/\\]|(?:^|[/\\])svc-logger(?:\.browser|\.node)?\.js$|^package:sentry(?:_\w+)?\/|^https?:\/\/browser\.sentry-cdn\.com\//i;
const SDK_MODULE = /^(?:@sentry(?:-internal)?\/|@svcapp\/logger(?:\/|$)|sentry_sdk(?:\.|$)|io\.sentry\.)/;
const SDK_FUNCTION = new Set(["sentryWrapped"]);
/** The Dart and Flutter SDKs: `dart:async/zone.dart`, Flutter web's `org-dartlang-sdk:///…`, `package:flutter/…`. */
const DART_SDK_PATH =
	/^(?:dart:|org-dartlang-sdk:|package:flutter\/|lib\/ui\/(?:hooks|platform_dispatcher)\.dart$)|(?:^|[/\\])(?:packages[/\\]flutter|third_party[/\\]dart[/\\]sdk)[/\\]/i;

const pathOf = (frame: StackFrame) => frame.abs_path ?? frame.filename ?? "";
/** `Object.eval` and `window.eval` are eval too. */
const lastNameSegment = (fn: string | undefined) => fn?.trim().split(".").pop() ?? "";

export function identifiesNothing(frame: StackFrame): boolean {
	const path = pathOf(frame).trim();
	const fn = lastNameSegment(frame.function);
	return (
		NOWHERE_FILE.test(path) ||
		EVAL_FUNCTION.test(fn) ||
		BLOB_URL.test(path) ||
		BARE_URL.test(path) ||
		SDK_PATH.test(path) ||
		SDK_MODULE.test(frame.module ?? "") ||
		SDK_FUNCTION.has(fn) ||
		DART_SDK_PATH.test(path)
	);
}

/** Runtime internals: Node, Deno and Bun modules. */
const RUNTIME_FILE = /^(?:node:|internal[/\\]|bun:|deno:|ext:)/i;

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

export function isRuntimeOrBundlerFrame(frame: StackFrame): boolean {
	const path = pathOf(frame).trim();
	if (path === "" && !frame.module) return true; // nothing says where it is: e.g. `new Promise`, `Array.map`
	if (RUNTIME_FILE.test(path) || BUNDLER_FILE.test(path)) return true;
	const fn = frame.function?.replace(/^async\s+/, "");
	return fn !== undefined && BUNDLER_FUNCTION.has(fn);
}

/** In-app for grouping: not marked `in_app: false`, and not a dependency whatever it says. */
function isAppFrame(frame: StackFrame): boolean {
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
function fileKey(frame: StackFrame): string {
	if (frame.module) {
		const segments = frame.module.split(/[/\\]/);
		segments.push(stripContentHash(segments.pop() ?? ""));
		return segments.join("/");
	}
	return stripContentHash(pathSegments(pathOf(frame)).pop() ?? "");
}

/** A path's or URL's parts between slashes, up to its query or fragment: `/a/b.js?v=1` → `a`, `b.js`. */
const pathSegments = (path: string) => path.split(/[?#]/)[0].split(/[/\\]/).filter(Boolean);

/** A script's extension: Node runs `orders.js` or `orders.mjs` built from the `orders.ts` a page's source map names. */
const SCRIPT_EXTENSION = /\.[cm]?[jt]sx?$/i;

/**
 * File names that frameworks give to one file per folder (Next.js's `route` and `page`,
 * SvelteKit's `+page`, a component folder's `index`), and bracketed route segments (`[id]`):
 * such a file is told apart by its folder.
 */
const PER_FOLDER_NAME = /^(?:index|_index|route|page|layout|template|loading|error|not-found|default|middleware|handler|mod|utils|helpers|_app|_document|_layout|\+(?:page|layout|server|error)(?:\.server)?|\[.*\])(?:\.(?:svelte|vue|astro))?$/i;

/**
 * Folders that builds, bundlers and servers put code in (`src/`, `dist/`, a page's `assets/`):
 * they say nothing of what the code is, and differ between where Node runs a file and where a
 * page loads it.
 */
const CODE_FOLDERS = new Set(["src", "lib", "dist", "build", "out", "assets", "static", "js", "chunks", "public", "scripts", "bundles"]);

/**
 * The folder wrangler bundles a Worker into for each run (`.wrangler/tmp/dev-` and six random
 * characters, as `wrangler dev` names it): a new name each start, nothing of what the code is.
 */
const WRANGLER_RUN_FOLDER = /^[a-z][\w-]*-[A-Za-z0-9]{6}$/;
const isWranglerRunFolder = (segments: string[], folder: string) =>
	WRANGLER_RUN_FOLDER.test(folder) && segments.at(-1) === "tmp" && segments.at(-2) === ".wrangler";

/** A URL's scheme and authority (`https://shop.example`, `webpack://shop`, `file://`). */
const URL_ORIGIN_PART = /^[a-z][\w+.-]*:\/\/[^/]*/i;

/** Node's module of a file: its folders from the app's root joined by dots, a colon, the file's name (`routes.users:route`). */
function moduleSegments(module: string): string[] {
	const colon = module.lastIndexOf(":");
	return colon < 0 ? module.split("/") : [...module.slice(0, colon).split("."), module.slice(colon + 1)];
}

/**
 * The source file a JavaScript frame ran in, named the same from Node and from a page: its base
 * name without content hash or script extension, and for a per-folder name its folder too
 * (`users/route`, `cart/index`) unless that folder only says where built code lives. Not the rest
 * of the path: Node's (`/srv/shop/lib/orders.js`, or its module `lib:orders`) is not what a page's
 * URL gives (`/assets/orders-8f3a2c.js`), and code shared by both is one bug.
 */
function sourceFileKey(frame: StackFrame): string {
	const path = pathOf(frame).replace(URL_ORIGIN_PART, "");
	// No path before the query (or none at all): the module names the file.
	const segments = (/^(?:[?#]|$)/.test(path) ? moduleSegments(frame.module ?? "") : pathSegments(path)).filter((s) => s && s !== "." && s !== "..");
	const base = stripContentHash(segments.pop() ?? "").replace(SCRIPT_EXTENSION, "");
	const folder = PER_FOLDER_NAME.test(base) ? segments.pop() : undefined;
	return folder && !CODE_FOLDERS.has(folder.toLowerCase()) && !isWranglerRunFolder(segments, folder) ? `${folder}/${base}` : base;
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

/** Sentry's JavaScript family: browsers and Node. */
const JAVASCRIPT_PLATFORM = /^(?:javascript|node)$/i;

/** Whether a platform's frames count by source file and function name (see frameKey). */
export const groupsAsJavaScript = (platform: string | null) => JAVASCRIPT_PLATFORM.test(platform ?? "");

/**
 * Platforms whose line of source counts beside the module and function, as Sentry counts it only
 * for JavaScript, Python, PHP and Ruby; so do this service's own events without a platform. Go,
 * Java, .NET, native code and the rest group by module and function: their SDKs send a line of
 * source only where the source is on the machine (sentry-go reads it from disk as it reports), so
 * a binary deployed without its source and one run beside it would make one bug two issues.
 */
const CONTEXT_LINE_PLATFORM = /^(?:python|php|ruby)$/i;

/** Whether a platform's frames count their line of source (JavaScript's: see frameKey). */
const countsContextLine = (platform: string | null) => !platform || CONTEXT_LINE_PLATFORM.test(platform);

/** Whether the platform's frames follow rules of their own, which events without a platform do not. */
export const hasOwnFrameRules = (platform: string | null) => groupsAsJavaScript(platform) || !countsContextLine(platform) || isRuby(platform);

/**
 * Ruby names a block by where it sits, `block in pay` or `block (2 levels) in Order#pay`: as
 * Sentry does, every Ruby block is `block`, so wrapping code in one more block keeps its issue
 * (the line of source, which Ruby's frames count, still tells blocks apart).
 */
const RUBY_BLOCK = /^block\s/;
const isRuby = (platform: string | null) => /^ruby$/i.test(platform ?? "");

/** Node's slots for timer callbacks: `Timeout._onTimeout` is an anonymous function, as a page shows it. */
const NODE_CALLBACK_SLOT = /^_on(?:Timeout|Immediate)$/;

/** Where a page loads code from: Sentry keeps no context line of a nameless frame from there. */
const URL_ORIGIN = /^(?:https?|blob|file|applewebdata):/i;

const CONTEXT_LINE_MAX = 120;

/** The line of source, whitespace collapsed; "" when there is none or it is long (minified code). */
export function contextLineKey(frame: StackFrame): string {
	const line = (frame.context_line ?? "").trim().replace(/\s+/g, " ");
	return line.length <= CONTEXT_LINE_MAX ? line : "";
}

/**
 * One frame's part of the fingerprint; "" for a frame that says nothing.
 *
 * JavaScript (`javascript`, `node`): the source file and the function name; the line of source
 * only for a nameless frame not loaded from a URL, as Sentry does. A page's frames carry no line of
 * source and no module while Node's carry both, so counting either beside a function name would
 * make one bug in shared code two issues. Other platforms: module (else file) and function (a
 * Ruby block's as `block`), and the line of source where the platform counts it (countsContextLine).
 */
export function frameKey(frame: StackFrame, platform: string | null): string {
	let file: string;
	let fn = normalizeFunctionName(frame.function);
	let line: string;
	if (groupsAsJavaScript(platform)) {
		file = sourceFileKey(frame);
		if (NODE_CALLBACK_SLOT.test(fn)) fn = "";
		line = fn || URL_ORIGIN.test(pathOf(frame).trim()) ? "" : contextLineKey(frame);
	} else {
		file = fileKey(frame);
		if (isRuby(platform) && RUBY_BLOCK.test(frame.function?.trim() ?? "")) fn = "block";
		line = countsContextLine(platform) ? contextLineKey(frame) : "";
	}
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
function withoutAsyncParents(frames: StackFrame[]): StackFrame[] {
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

/**
 * The frames that may decide the group, the way Sentry computes its "app" and "system" variants:
 * `app` the in-app ones, `system` all but runtime internals and bundler helpers (all of them when
 * that leaves none). Frames that identify nothing are in neither.
 */
export function groupingFrames(allFrames: StackFrame[]): { app: StackFrame[]; system: StackFrame[] } {
	const frames = withoutAsyncParents(allFrames).filter((f) => !identifiesNothing(f));
	const own = frames.filter((f) => !isRuntimeOrBundlerFrame(f));
	return { app: own.filter(isAppFrame), system: own.length > 0 ? own : frames };
}
