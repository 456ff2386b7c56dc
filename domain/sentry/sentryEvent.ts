/**
 * A Sentry event (the payload of an envelope's `event` item, or a store request's body) as the
 * log event body `/api/app-logs-ingest` takes, so both go through the same field rules, limits
 * and scrubbing (normalizeEvent). Only Sentry's own shapes are translated here; whatever has the
 * log event's shape already passes as is and is checked there.
 */
import { InvalidInput } from "../errors";
import { boundedJson, isObject, type Json, member } from "../logs/jsonFields";
import type { LogEvent } from "../logs/logEvent";
import { normalizeEvent } from "../logs/normalizeEvent";
import { filledIn } from "./printf";
import { userAgentContexts } from "./userAgentContexts";

/**
 * The event's text: `message` as a string, or `message` / `logentry` as `{message, params,
 * formatted}`: the text is `formatted`, else the template filled in, and the template is kept
 * beside it so that the values never split an issue.
 */
function messageOf(event: Json): { message?: unknown; template?: string } {
	for (const candidate of [member(event, "message"), member(event, "logentry")]) {
		if (isObject(candidate)) {
			const template = member(candidate, "message");
			const formatted = member(candidate, "formatted");
			if (typeof formatted === "string") return { message: formatted, template: typeof template === "string" ? template : undefined };
			if (typeof template === "string") return { message: filledIn(template, member(candidate, "params"), member(event, "platform") === "python"), template };
		} else if (candidate !== undefined && candidate !== null) {
			return { message: candidate };
		}
	}
	return {};
}

/**
 * The stack of the thread that captured a message, from `threads` (sentry-python's
 * attach_stacktrace, the JVM's and native SDKs'): the crashed one, else the current one, else the
 * only one.
 */
function threadStack(event: Json): unknown {
	const threads = listOf(member(event, "threads"));
	if (!Array.isArray(threads)) return undefined;
	const withStacks = threads.filter((thread) => isObject(thread) && isObject(member(thread, "stacktrace")));
	const thread =
		withStacks.find((t) => member(t, "crashed") === true) ?? withStacks.find((t) => member(t, "current") === true) ?? (withStacks.length === 1 ? withStacks[0] : undefined);
	return thread === undefined ? undefined : member(thread, "stacktrace");
}

/**
 * An exception whose `value` is not text (an SDK that put the thrown object there) with that value
 * as its JSON, bounded like any free-form value, as Sentry keeps it, instead of refusing the event.
 */
function withTextValue(exception: unknown): unknown {
	if (!isObject(exception)) return exception;
	const value = member(exception, "value");
	if (typeof value !== "object" || value === null) return exception;
	return { ...exception, value: JSON.stringify(boundedJson(value)) };
}

/**
 * `exception.values` passes as it is, and a plain list of exceptions (Sentry's shorthand for it)
 * as if it were one; any exception's `value` as text. A message sent with a stack of its own
 * (`stacktrace` at the top, or a thread's, as attach-stacktrace SDKs do) becomes the synthetic
 * exception newer SDKs send instead.
 */
function exceptionOf(event: Json, message: unknown): unknown {
	const exception = member(event, "exception");
	if (Array.isArray(exception)) return { values: exception.map(withTextValue) };
	if (isObject(exception)) {
		const values = member(exception, "values");
		return Array.isArray(values) ? { ...exception, values: values.map(withTextValue) } : withTextValue(exception);
	}
	if (exception !== undefined && exception !== null) return exception;
	const stacktrace = member(event, "stacktrace") ?? threadStack(event);
	if (!isObject(stacktrace)) return undefined;
	return { values: [{ value: typeof message === "string" ? message : undefined, stacktrace, mechanism: { type: "generic", synthetic: true } }] };
}

/** `{values: [...]}` (Python and others) or a plain list (JavaScript). */
function listOf(value: unknown): unknown {
	return isObject(value) && Array.isArray(member(value, "values")) ? member(value, "values") : value;
}

/**
 * The SDK a request's `sentry_client` names (X-Sentry-Auth's, or the query's), `raven-node/2.6.4`
 * or `raven-ruby 3.1.2`, for an event that does not name its own: the raven clients leave `sdk`
 * out, and Sentry takes it from there.
 */
function sdkOfClient(client: string | null): Json | undefined {
	const [, name, version] = /^([^/\s]+)[/\s](.+)$/.exec(client?.trim() ?? "") ?? [];
	return name ? { name, version: version.trim() } : undefined;
}

/**
 * Tags as an object (pairs `[[key, value]]` are Sentry's other form), after the SDK's name and
 * version, which fill the log event's `sdk`, and before `transaction`, `server_name` and `logger`
 * (the logger's name, from a logging integration), which Sentry also shows as tags.
 */
function tagsOf(event: Json, client: string | null): unknown {
	const raw = member(event, "tags");
	if (raw !== undefined && raw !== null && !isObject(raw) && !Array.isArray(raw)) return raw;
	const own: [string, unknown][] = Array.isArray(raw)
		? raw.filter((pair): pair is [string, unknown] => Array.isArray(pair) && pair.length === 2 && typeof pair[0] === "string")
		: Object.entries(raw ?? {});
	const sdk = member(event, "sdk") ?? sdkOfClient(client);
	const tags: Record<string, unknown> = {};
	if (isObject(sdk)) {
		if (typeof member(sdk, "name") === "string") tags.sdk_name = member(sdk, "name");
		if (typeof member(sdk, "version") === "string") tags.sdk_version = member(sdk, "version");
	}
	for (const [key, value] of own) tags[key] = value;
	for (const key of ["transaction", "server_name", "logger"]) {
		const value = member(event, key);
		if (typeof value === "string" && value !== "" && !Object.hasOwn(tags, key)) tags[key] = value;
	}
	return tags;
}

/** Sentry's `data` is the body; cookies and the server's environment are never kept. */
function requestOf(event: Json): unknown {
	const request = member(event, "request");
	if (!isObject(request)) return request;
	const { data, cookies: _cookies, env: _env, ...rest } = request;
	return data === undefined || Object.hasOwn(rest, "body") ? rest : { ...rest, body: data };
}

/** The User-Agent among the request's headers (an object, or `[name, value]` pairs), in any letter case. */
function userAgentOf(request: unknown): string | undefined {
	const headers = isObject(request) ? member(request, "headers") : undefined;
	const pairs = Array.isArray(headers) ? headers : isObject(headers) ? Object.entries(headers) : [];
	for (const pair of pairs) {
		if (Array.isArray(pair) && typeof pair[0] === "string" && pair[0].toLowerCase() === "user-agent" && typeof pair[1] === "string") return pair[1];
	}
	return undefined;
}

/**
 * The contexts, with those the request's User-Agent names where the SDK sent none, as Relay adds
 * them: `browser`, `device`, and the operating system as `os` for a browser event, else as
 * `client_os` (a server SDK's `os` is the server's; the User-Agent is its client's).
 */
function contextsOf(event: Json): unknown {
	const contexts = member(event, "contexts");
	if (contexts !== undefined && contexts !== null && !isObject(contexts)) return contexts;
	const userAgent = userAgentOf(member(event, "request"));
	if (userAgent === undefined) return contexts;
	const named = userAgentContexts(userAgent);
	const osKey = member(event, "platform") === "javascript" ? "os" : "client_os";
	const filled: Json = { ...contexts };
	for (const [key, value] of [
		["browser", named.browser],
		["device", named.device],
		[osKey, named.os],
	] as const) {
		if (value && (member(filled, key) === undefined || member(filled, key) === null)) filled[key] = { ...value };
	}
	return filled;
}

/** Platforms whose SDKs, before `sdk.settings.infer_ip`, left the address out and meant `{{auto}}`. */
const LEGACY_AUTO_IP_PLATFORMS: ReadonlySet<unknown> = new Set(["javascript", "cocoa", "objc"]);

/**
 * The user's address as Relay fills it in, from `sdk.settings.infer_ip`: `"auto"` (what the
 * JavaScript SDKs 9+ send with `sendDefaultPii`) asks for the address the event came from when the
 * user has none; `"never"` (their default, or a value Relay does not know) for no address, an
 * `{{auto}}` one dropped; without the setting, `ip_address: "{{auto}}"` asks for it, and so does
 * no address at all from a browser or Apple SDK (the older ones sent none and relied on that).
 */
function userOf(event: Json, clientIp: string): unknown {
	const user = member(event, "user");
	if (user !== undefined && user !== null && !isObject(user)) return user;
	const sent = isObject(user) ? member(user, "ip_address") : undefined;
	const absent = sent === undefined || sent === null || sent === "";
	const setting = inferIpSetting(event);
	const inferred =
		setting === undefined
			? sent === "{{auto}}" || (absent && LEGACY_AUTO_IP_PLATFORMS.has(member(event, "platform")))
			: setting === "auto" && (sent === "{{auto}}" || absent);
	if (inferred) return { ...user, ip_address: clientIp };
	if (!isObject(user) || sent !== "{{auto}}") return user;
	const { ip_address: _auto, ...rest } = user;
	return rest;
}

/** `sdk.settings.infer_ip`, undefined when not sent. */
function inferIpSetting(event: Json): unknown {
	const sdk = member(event, "sdk");
	const settings = isObject(sdk) ? member(sdk, "settings") : undefined;
	const setting = isObject(settings) ? member(settings, "infer_ip") : undefined;
	return setting === null ? undefined : setting;
}

/** Seconds since the epoch (what the SDKs send) as ISO 8601; strings pass as they are. */
function timestampOf(event: Json): unknown {
	const timestamp = member(event, "timestamp");
	if (typeof timestamp !== "number" || !Number.isFinite(timestamp)) return timestamp;
	const ms = timestamp * 1000;
	return Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : undefined;
}

/**
 * Level names Sentry SDKs send for the five the console knows: the JavaScript SDK's `log` and the
 * `critical` of Python's logging, which Sentry (Relay) stores as `info` and `fatal`, and `warn`,
 * which Relay does not know (it stores such an event as an error) but which can only mean
 * `warning`. Only here: the log event endpoint stores any level as it is sent.
 */
const LEVEL_ALIASES: ReadonlyMap<unknown, string> = new Map([
	["log", "info"],
	["critical", "fatal"],
	["warn", "warning"],
]);

/** Python logging's numeric levels (logging.DEBUG ... logging.CRITICAL), which Relay also takes. */
const PYTHON_LEVELS: ReadonlyMap<unknown, string> = new Map([
	[10, "debug"],
	[20, "info"],
	[30, "warning"],
	[40, "error"],
	[50, "fatal"],
]);

/**
 * The level as Relay reads it: a name (its aliases above), or a Python logging number. Any other
 * number, and a value of another type, is dropped as Relay drops it, so the event keeps the
 * default level (`error`) rather than being refused.
 */
function levelOf(event: Json): unknown {
	const level = member(event, "level");
	if (typeof level === "string") return LEVEL_ALIASES.get(level) ?? level;
	return PYTHON_LEVELS.get(level);
}

export function logEventBody(event: Json, clientIp: string, client: string | null = null): Json {
	const { message, template } = messageOf(event);
	const body: Json = {
		message,
		message_template: template,
		level: levelOf(event),
		exception: exceptionOf(event, message),
		tags: tagsOf(event, client),
		breadcrumbs: listOf(member(event, "breadcrumbs")),
		request: requestOf(event),
		environment: member(event, "environment"),
		release: member(event, "release"),
		platform: member(event, "platform"),
		timestamp: timestampOf(event),
		user: userOf(event, clientIp),
		contexts: contextsOf(event),
		extra: member(event, "extra"),
		fingerprint: member(event, "fingerprint"),
		debug_meta: member(event, "debug_meta"),
	};
	return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
}

/**
 * The event under the log event's field rules, as Relay keeps one: a member of the wrong shape
 * (`fingerprint: "x"`, `user: "bob"`, a frame list that is not a list) is dropped and the event
 * kept, where /api/app-logs-ingest refuses it, so one odd value an app set does not lose its error;
 * what was dropped is kept with it (`processing_errors`). Refused only when what is left is no
 * event (no message, no exception): then with the first member dropped, which says why.
 */
export function normalizeSentryEvent(body: Json, now: Date, clockDrift: number): LogEvent {
	let rest = body;
	const dropped: InvalidInput[] = [];
	for (;;) {
		try {
			const event = normalizeEvent(rest, now, clockDrift);
			return dropped.length === 0 ? event : { ...event, processing_errors: dropped.map((err) => err.field?.problem ?? err.message) };
		} catch (err) {
			if (!(err instanceof InvalidInput)) throw err;
			const member = err.field?.member;
			if (member === undefined || !Object.hasOwn(rest, member)) throw dropped[0] ?? err;
			dropped.push(err);
			rest = Object.fromEntries(Object.entries(rest).filter(([key]) => key !== member));
		}
	}
}
