/**
 * The log event field rules (docs/api.md#ingest-log): turns a parsed JSON body into the event that is stored, or a 400.
 *
 * Policy for bad input, so that no shape of body can reach storage half-understood:
 * - a documented field of the wrong type (`message: 5`, `tags: []`, `exception.type: {}`,
 *   `request.headers: "x"`, ...) is a 400 naming the field; `null` counts as absent;
 * - inside lists and maps (frames, breadcrumbs, tags, headers, contexts) an entry of the wrong
 *   shape is dropped, and numbers or booleans where strings belong are written as strings, so one
 *   odd frame from an SDK does not lose the whole error;
 * - free-form values (breadcrumb `data`, `contexts.*`, a non-string request body) are copied with
 *   bounded depth, width and string length, so nesting of any depth is harmless;
 * - the documented fallbacks apply where there is one (timestamp → now, level → `error`); a
 *   timestamp too far in the future is replaced (eventTimestamp).
 */
import { clientEventIdOf } from "../api/issues";
import { InvalidInput } from "../errors";
import { FRAME_CONTEXT, FRAME_VARS, LOG_LIMITS, LOG_STORAGE_BOUNDS } from "../limits";
import { arrayField, bad, boundedJson, isObject, type Json, looseString, member, objectField, stringField } from "./jsonFields";
import { cutText } from "../text";
import { normalizeDebugId } from "../sourcemaps/artifactFiles";
import { crumbTimeMoved, readTimestamp } from "./eventTimestamp";
import { isSecretHeader, scrubBodyText, scrubHeaderValue, scrubJson, scrubUrl } from "./scrub";
import type { Breadcrumb, DebugImage, ExceptionMechanism, LogEvent, LogException, LogRequest, LogUser, StackFrame } from "./logEvent";

// ---------------------------------------------------------------------------
// Exception and frames

/** An SDK's source lines around a frame's line, the nearest kept; null when there are none. */
function contextLines(value: unknown, keep: "last" | "first"): string[] | null {
	if (!Array.isArray(value)) return null;
	const lines = value.filter((line) => typeof line === "string").map((line) => cutText(line, FRAME_CONTEXT.lineChars));
	const nearest = keep === "last" ? lines.slice(-FRAME_CONTEXT.lines) : lines.slice(0, FRAME_CONTEXT.lines);
	return nearest.length > 0 ? nearest : null;
}

/**
 * A frame's local variables: the first FRAME_VARS.names, each value as text (a string as it is, as
 * sentry-python sends its repr; anything else as JSON), secrets filtered by name.
 */
function readVars(value: unknown): Record<string, string> | undefined {
	if (!isObject(value)) return undefined;
	const vars: Record<string, string> = {};
	let count = 0;
	for (const [name, raw] of Object.entries(scrubJson(boundedJson(value)) as Record<string, unknown>)) {
		if (count >= FRAME_VARS.names) break;
		if (name.length > FRAME_VARS.nameChars) continue;
		const text = typeof raw === "string" ? raw : JSON.stringify(raw);
		if (text === undefined) continue;
		vars[name] = cutText(text, FRAME_VARS.valueChars);
		count++;
	}
	return count > 0 ? vars : undefined;
}

/**
 * One frame; `withContext` for the frames nearest the crash, which keep the lines around their
 * own, and `withVars` for the nearest of those, which keep their local variables.
 */
function readFrame(value: unknown, withContext: boolean, withVars: boolean): StackFrame | undefined {
	if (!isObject(value)) return undefined;
	const frame: StackFrame = {};
	for (const key of ["filename", "abs_path", "module", "function", "context_line"] as const) {
		const text = member(value, key);
		if (typeof text === "string" && text !== "") frame[key] = cutText(text, LOG_STORAGE_BOUNDS.frameString);
	}
	if (withContext && frame.context_line !== undefined) {
		const before = contextLines(member(value, "pre_context"), "last");
		const after = contextLines(member(value, "post_context"), "first");
		if (before) frame.pre_context = before;
		if (after) frame.post_context = after;
	}
	for (const key of ["lineno", "colno"] as const) {
		const n = member(value, key);
		if (typeof n === "number" && Number.isSafeInteger(n) && n >= 0) frame[key] = n;
	}
	const inApp = member(value, "in_app");
	if (typeof inApp === "boolean") frame.in_app = inApp;
	if (Object.keys(frame).length === 0) return undefined;
	const vars = withVars ? readVars(member(value, "vars")) : undefined;
	if (vars) frame.vars = vars;
	return frame;
}

function readMechanism(exception: Json): ExceptionMechanism | undefined {
	const raw = member(exception, "mechanism");
	if (!isObject(raw)) return undefined;
	const mechanism: ExceptionMechanism = {};
	for (const key of ["type", "source"] as const) {
		const text = looseString(member(raw, key), LOG_STORAGE_BOUNDS.mechanismField);
		if (text) mechanism[key] = text;
	}
	for (const key of ["handled", "synthetic", "is_exception_group"] as const) {
		const flag = member(raw, key);
		if (typeof flag === "boolean") mechanism[key] = flag;
	}
	for (const key of ["exception_id", "parent_id"] as const) {
		const id = member(raw, key);
		if (typeof id === "number" && Number.isSafeInteger(id) && id >= 0) mechanism[key] = id;
	}
	return Object.keys(mechanism).length > 0 ? mechanism : undefined;
}

/** One exception; null when it says nothing (no type, value or frame). */
function readOneException(exception: Json, path: string): LogException | null {
	const type = stringField(exception, "type", path, LOG_STORAGE_BOUNDS.exceptionType)?.trim() || null;
	const value = stringField(exception, "value", path, LOG_LIMITS.exceptionValue, { numbers: true }) || null;
	const stacktrace = objectField(exception, "stacktrace", path);
	const rawFrames = stacktrace ? arrayField(stacktrace, "frames", `${path}stacktrace.`) : undefined;
	// At most 200 frames, in the order sent. Frames run oldest call first, crash site last (Sentry's
	// convention), so a longer stack loses its outermost callers, never the crash site or culprit.
	const kept = (rawFrames ?? []).slice(-LOG_LIMITS.frames);
	const frames = kept
		.map((raw, i) => readFrame(raw, kept.length - i <= FRAME_CONTEXT.frames, kept.length - i <= FRAME_VARS.frames))
		.filter((frame) => frame !== undefined);
	if (!type && !value && frames.length === 0) return null;
	const mechanism = readMechanism(exception);
	return { type, value, stacktrace: frames.length > 0 ? { frames } : null, ...(mechanism ? { mechanism } : {}) };
}

/**
 * `exception` as one object, or Sentry's `{values: [...]}`: a chain or group, causes and children
 * first, the reported exception last. Returns the reported one and the rest of the chain.
 */
function readExceptions(body: Json): { exception: LogException | null; chained: LogException[] } {
	const exception = objectField(body, "exception", "");
	if (!exception) return { exception: null, chained: [] };
	const values = member(exception, "values");
	if (!Array.isArray(values) || member(exception, "type") !== undefined || member(exception, "value") !== undefined) {
		return { exception: readOneException(exception, "exception."), chained: [] };
	}
	const first = Math.max(0, values.length - LOG_STORAGE_BOUNDS.chainedExceptions);
	const chain: LogException[] = [];
	for (let i = first; i < values.length; i++) {
		const entry = values[i];
		if (!isObject(entry)) throw bad("exception.values", "must hold exception objects");
		const read = readOneException(entry, `exception.values.${i}.`);
		if (read) chain.push(read);
	}
	return { exception: chain.pop() ?? null, chained: chain };
}

// ---------------------------------------------------------------------------
// Tags, breadcrumbs, request, user, contexts

/** The numeric `status_code` tag, clamped to 0-65535; other values as sent. */
function tagValue(key: string, raw: unknown): string | undefined {
	if (key === "status_code") {
		const numeric = typeof raw === "number" ? raw : typeof raw === "string" && /^\s*[+-]?\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : NaN;
		if (!Number.isNaN(numeric)) return String(Math.min(65_535, Math.max(0, Math.trunc(numeric))));
	}
	return looseString(raw, LOG_LIMITS.tagValue);
}

function readTags(body: Json): { tags: Record<string, string>; raw: Json } {
	const raw = objectField(body, "tags", "") ?? {};
	const tags: [string, string][] = [];
	for (const [key, value] of Object.entries(raw)) {
		if (tags.length >= LOG_LIMITS.tags) break;
		// A key is stored as sent, so one that is not well-formed Unicode is left out.
		if (key === "" || key.length > LOG_STORAGE_BOUNDS.tagKey || !key.isWellFormed()) continue;
		const text = tagValue(key, value);
		if (text !== undefined) tags.push([key, text]);
	}
	return { tags: Object.fromEntries(tags), raw };
}

function readBreadcrumbs(body: Json, clockDrift: number): Breadcrumb[] {
	const raw = arrayField(body, "breadcrumbs", "") ?? [];
	const crumbs: Breadcrumb[] = [];
	// The newest 100: SDKs append, so the newest are last.
	for (const item of raw.slice(-LOG_LIMITS.breadcrumbs)) {
		if (!isObject(item)) continue;
		const crumb: Breadcrumb = {};
		const timestamp = member(item, "timestamp");
		if (typeof timestamp === "string") crumb.timestamp = crumbTimeMoved(cutText(timestamp, 100), clockDrift);
		else if (typeof timestamp === "number" && Number.isFinite(timestamp)) crumb.timestamp = crumbTimeMoved(timestamp, clockDrift);
		for (const key of ["type", "category", "level"] as const) {
			const text = looseString(member(item, key), LOG_STORAGE_BOUNDS.breadcrumbField);
			if (text !== undefined) crumb[key] = text;
		}
		const message = looseString(member(item, "message"), LOG_STORAGE_BOUNDS.breadcrumbMessage);
		if (message !== undefined) crumb.message = message;
		const data = member(item, "data");
		if (data !== undefined) {
			const copy = boundedJson(data);
			if (copy !== undefined) crumb.data = scrubJson(copy);
		}
		crumbs.push(crumb);
	}
	return crumbs;
}

function headerEntries(value: unknown): [unknown, unknown][] {
	if (isObject(value)) return Object.entries(value);
	// Also accepted: a list of [name, value] pairs, as some SDKs send.
	if (Array.isArray(value)) return value.filter((pair): pair is [unknown, unknown] => Array.isArray(pair) && pair.length === 2);
	throw bad("request.headers", "must be an object of header values");
}

function readHeaders(request: Json): Record<string, string> {
	const raw = member(request, "headers");
	if (raw === undefined || raw === null) return {};
	const headers: [string, string][] = [];
	for (const [name, value] of headerEntries(raw)) {
		if (headers.length >= LOG_STORAGE_BOUNDS.headers) break;
		if (typeof name !== "string" || name.trim() === "" || name.length > LOG_STORAGE_BOUNDS.headerName) continue;
		if (isSecretHeader(name)) continue;
		const text = Array.isArray(value)
			? cutText(value.filter((v) => typeof v === "string").join(", "), LOG_LIMITS.headerValue)
			: looseString(value, LOG_LIMITS.headerValue);
		if (text !== undefined) headers.push([name, scrubHeaderValue(name, text)]);
	}
	return Object.fromEntries(headers);
}

/** Text of a value that may be a string or any JSON (form data, parsed bodies), its secrets filtered. */
function scrubbedTextOf(value: unknown): string | undefined {
	if (value === undefined || value === null) return undefined;
	if (typeof value === "string") return scrubBodyText(value);
	const copy = boundedJson(value);
	return copy === undefined ? undefined : JSON.stringify(scrubJson(copy));
}

function readRequest(body: Json): LogRequest | null {
	const raw = objectField(body, "request", "");
	if (!raw) return null;
	const request: LogRequest = { headers: readHeaders(raw) };
	const url = stringField(raw, "url", "request.", LOG_STORAGE_BOUNDS.url);
	if (url) request.url = scrubUrl(url);
	const method = stringField(raw, "method", "request.", LOG_STORAGE_BOUNDS.method);
	if (method) request.method = method;
	const query = scrubbedTextOf(member(raw, "query_string"));
	if (query) request.query_string = cutText(query, LOG_STORAGE_BOUNDS.queryString);
	const text = scrubbedTextOf(member(raw, "body"));
	if (text !== undefined) {
		request.body = cutText(text, LOG_LIMITS.requestBody);
		if (text.length > LOG_LIMITS.requestBody) request.body_truncated = true;
	}
	return request;
}

function readUser(body: Json): LogUser | null {
	const raw = objectField(body, "user", "");
	if (!raw) return null;
	const user: LogUser = {};
	for (const key of ["id", "email", "username"] as const) {
		const text = stringField(raw, key, "user.", LOG_LIMITS.userField, { numbers: true });
		if (text) user[key] = text;
	}
	const ip = stringField(raw, "ip_address", "user.", LOG_STORAGE_BOUNDS.ipAddress);
	if (ip) user.ip_address = ip;
	return Object.keys(user).length > 0 ? user : null;
}

const KNOWN_CONTEXTS = ["browser", "os", "device", "runtime"] as const;

const isKnownContext = (name: unknown): name is (typeof KNOWN_CONTEXTS)[number] => (KNOWN_CONTEXTS as readonly unknown[]).includes(name);

/**
 * A known context's own text members without the whitespace around them, as the tags drawn of
 * them (`os`, `browser`…) show and are searched: @sentry/node reads a Debian's version from
 * /etc/debian_version with its newline (`12.11\n`), which `os:"Debian 12.11"` would not find.
 */
const trimmedText = (context: Json): Json => Object.fromEntries(Object.entries(context).map(([name, value]) => [name, typeof value === "string" ? value.trim() : value]));

/**
 * `contexts`: the four the dashboard reads, and apart (`custom_contexts`) the rest as an SDK or
 * `setContext("order", {...})` sent them, each an object, bounded like any free-form value. As in
 * Sentry, a context's kind is its `type`, its key by default: sentry-cli sends its runtime as
 * `rust` with `type: "runtime"`, which is the runtime unless one is sent under its own key.
 */
function readContexts(body: Json): Pick<LogEvent, "contexts" | "custom_contexts"> {
	const raw = objectField(body, "contexts", "");
	const contexts: LogEvent["contexts"] = {};
	if (!raw) return { contexts };
	const others: [string, unknown][] = [];
	for (const [key, value] of Object.entries(raw)) {
		if (!isObject(value)) continue;
		const kind = isKnownContext(key) ? key : value.type;
		// One sent under the kind's own key is that kind, whatever comes before it.
		if (isKnownContext(kind) && contexts[kind] === undefined && (kind === key || !isObject(raw[kind]))) contexts[kind] = scrubJson(boundedJson(trimmedText(value)));
		else others.push([key, value]);
	}
	// Bounded as a free-form value (the first 50, names well-formed and short), each context as
	// deep as a known one: depth -1, as the map of them is no level of their own.
	const custom = scrubJson(boundedJson(Object.fromEntries(others), -1)) as Record<string, unknown>;
	return Object.keys(custom).length > 0 ? { contexts, custom_contexts: custom } : { contexts };
}

/**
 * `extra` (Sentry's additional data): an object, bounded like any free-form value, its secrets
 * filtered. Not a field of the documented event, so a value of another shape is dropped, not a 400.
 */
function readExtra(body: Json): Pick<LogEvent, "extra"> {
	const raw = member(body, "extra");
	const extra = isObject(raw) ? (scrubJson(boundedJson(raw)) as Record<string, unknown>) : {};
	return Object.keys(extra).length > 0 ? { extra } : {};
}

function readFingerprint(body: Json): string[] | null {
	const raw = arrayField(body, "fingerprint", "");
	if (!raw) return null;
	const parts = raw
		.slice(0, LOG_STORAGE_BOUNDS.fingerprintParts)
		.map((part) => looseString(part, LOG_STORAGE_BOUNDS.fingerprintPart))
		.filter((part) => part !== undefined && part !== "") as string[];
	return parts.length > 0 ? parts : null;
}

/**
 * `debug_meta.images` of type `sourcemap`: the scripts that carry a debug id (after
 * `sentry-cli sourcemaps inject`), by the URL their frames name, for symbolication. Other image
 * types (native code) are not kept, nor are entries without a file or a debug id.
 */
function readDebugMeta(body: Json): LogEvent["debug_meta"] {
	const meta = objectField(body, "debug_meta", "");
	const raw = meta ? arrayField(meta, "images", "debug_meta.") : undefined;
	const images: DebugImage[] = [];
	for (const image of raw ?? []) {
		if (images.length >= LOG_STORAGE_BOUNDS.debugImages) break;
		if (!isObject(image) || member(image, "type") !== "sourcemap") continue;
		// Cut as frame files are, so that a long URL still names the same file in both.
		const codeFile = looseString(member(image, "code_file"), LOG_STORAGE_BOUNDS.frameString);
		const debugId = normalizeDebugId(member(image, "debug_id"));
		if (codeFile && debugId) images.push({ type: "sourcemap", code_file: codeFile, debug_id: debugId });
	}
	return images.length > 0 ? { images } : null;
}

// ---------------------------------------------------------------------------

/** A top-level name (environment, release, platform): strings, or numbers written as strings (`release: 2`). */
function nameField(body: Json, key: string): string | null {
	return stringField(body, key, "", LOG_STORAGE_BOUNDS.name, { numbers: true })?.trim() || null;
}

/**
 * Applies every field rule of a log event; throws a 400 for input that cannot be an event.
 * `clockDrift`: how far the sender's clock is behind (clockDriftOf), corrected in the timestamp and the breadcrumbs'.
 */
export function normalizeEvent(body: Json, now = new Date(), clockDrift = 0): LogEvent {
	const givenTemplate = stringField(body, "message_template", "", LOG_LIMITS.message);
	const template = givenTemplate?.trim() ? givenTemplate : undefined;
	// Without its filled-in form (absent or blank), the template is the message.
	const givenMessage = stringField(body, "message", "", LOG_LIMITS.message);
	const message = givenMessage?.trim() ? givenMessage : (template ?? givenMessage ?? null);
	const { exception, chained } = readExceptions(body);
	if ((message === null || message.trim() === "") && !exception) {
		throw new InvalidInput("Invalid log event: either message or exception (with a type, value or stack trace) is required");
	}
	const level = stringField(body, "level", "", LOG_STORAGE_BOUNDS.level)?.trim() || "error";
	const { tags, raw: rawTags } = readTags(body);
	const fromTag = (key: string) => looseString(member(rawTags, key), LOG_LIMITS.tagValue)?.trim() || null;
	const platform = nameField(body, "platform");

	// An id of another form is not the sender's id for the event: dropped, the event kept.
	const eventId = clientEventIdOf(member(body, "event_id"));
	return {
		...(eventId !== null && { event_id: eventId }),
		message: message !== null && message.trim() !== "" ? message : null,
		...(template !== undefined && template !== message && { message_template: template }),
		level,
		exception,
		chained_exceptions: chained,
		tags,
		breadcrumbs: readBreadcrumbs(body, clockDrift),
		request: readRequest(body),
		// Top-level fields win over the tags of the same name.
		environment: nameField(body, "environment") ?? fromTag("environment"),
		release: nameField(body, "release") ?? fromTag("release"),
		platform,
		sdk: { name: fromTag("sdk_name") ?? platform, version: fromTag("sdk_version") },
		...readTimestamp(body, now, clockDrift),
		user: readUser(body),
		...readContexts(body),
		...readExtra(body),
		fingerprint: readFingerprint(body),
		debug_meta: readDebugMeta(body),
	};
}

/** Who was affected, for the distinct user count: id, else email, username or IP. */
export function userKey(user: LogUser | null): string | null {
	if (!user) return null;
	if (user.id) return `id:${user.id}`;
	if (user.email) return `email:${user.email.toLowerCase()}`;
	if (user.username) return `username:${user.username}`;
	if (user.ip_address) return `ip:${user.ip_address}`;
	return null;
}
