/**
 * One configured logger: the scope (user, tags, breadcrumbs), event building and the transport.
 * Every entry point runs inside `guarded`, so the SDK never throws into the host application and
 * never records or captures anything caused by its own work.
 */
import { name, version } from "../package.json";
import {
	type Breadcrumb,
	cut,
	describeValue,
	debugImages,
	exceptionChain,
	type ExceptionValue,
	type Level,
	type LogEvent,
	MAX_TEXT,
	type Primitive,
	type RequestInfo,
	type User,
} from "./event.js";
import { guarded } from "./guard.js";
import { installIntegrations, runtime } from "./integrations.js";
import { parseStack } from "./stack.js";
import { createTransport } from "./transport.js";

export const SDK_NAME: string = name;
export const SDK_VERSION: string = version;

export interface Options {
	/** The project key (`svc_…`), sent as the `x-svc-key` header. */
	key: string;
	/** The svc service address, e.g. `https://svc.example.com`; `/api/app-logs-ingest` is added. */
	endpoint: string;
	environment?: string;
	release?: string;
	/** Report uncaught exceptions and unhandled rejections (default true). */
	captureUncaught?: boolean;
	/** Record `console.error` and `console.warn` calls as breadcrumbs (default true). */
	consoleBreadcrumbs?: boolean;
	/** Events waiting or in flight beyond this are dropped (default 30). */
	maxQueue?: number;
	/** How long Node waits for pending events after an uncaught exception (default 2000 ms). */
	shutdownTimeoutMs?: number;
	/** Send each captured message with the stack it was captured at, as Sentry's SDKs do (default true). */
	attachStacktrace?: boolean;
	/** Node: lines of source read around each frame's line, as @sentry/node reads them (default 5; 0 reads no file). */
	contextLines?: number;
	/** Last look at each event: return it (changed or not) to send it, `null` to drop it. */
	beforeSend?: (event: LogEvent) => LogEvent | null | undefined;
}

/** Per-event additions to `captureException` and `captureMessage`. */
export interface CaptureContext {
	level?: Level;
	tags?: Record<string, Primitive>;
	user?: User;
	request?: RequestInfo;
	/** Overrides grouping; `{{ default }}` in it stands for the computed fingerprint. */
	fingerprint?: string[];
}

export interface Client {
	captureException(error: unknown, context?: CaptureContext): void;
	/** `site`: an Error made where the message was captured; its stack, less its newest frame, is sent. */
	captureMessage(message: string, level?: Level, context?: CaptureContext, site?: Error): void;
	addBreadcrumb(breadcrumb: Breadcrumb): void;
	setUser(user: User | null): void;
	setTag(key: string, value: Primitive | null | undefined): void;
	flush(timeoutMs: number): Promise<boolean>;
	close(timeoutMs: number): Promise<boolean>;
}

/** The endpoint's limits: body characters, breadcrumbs kept, breadcrumb message characters. */
const MAX_BODY = 512_000;
const MAX_BREADCRUMBS = 100;
const MAX_BREADCRUMB_MESSAGE = 2_000;
/** @sentry/node's default. */
const CONTEXT_LINES = 5;

/**
 * What the runtime adds to an event before it is sent, when it has a stack: the Node entry
 * (node/index.ts) sets it to name each frame's module and read its lines of source; browsers have none.
 */
export const runtimeEnrichment: { enrich?: (event: LogEvent, contextLines: number) => Promise<void> } = {};

/** True once `work` settles, false if `timeoutMs` passes first; no timer is left behind. */
function settlesWithin(work: Promise<unknown>, timeoutMs: number): Promise<boolean> {
	let timer: ReturnType<typeof setTimeout> | undefined;
	const timeout = new Promise<boolean>((resolve) => {
		timer = setTimeout(() => resolve(false), Math.max(0, timeoutMs));
	});
	return Promise.race([work.then(() => true), timeout]).finally(() => clearTimeout(timer));
}

/** Without the lines around each frame's line (Node), which are what an oversized event can best do without. */
const withoutSurroundingLines = (key: string, value: unknown) => (key === "pre_context" || key === "post_context" ? undefined : value);

/** `https://host/` or `https://host/prefix` → `…/api/app-logs-ingest`; a full ingest URL is kept. */
const ingestUrl = (endpoint: string) => endpoint.replace(/\/+$/, "").replace(/(?:\/api\/app-logs-ingest)?$/, "/api/app-logs-ingest");

const textTags = (tags: Record<string, Primitive> = {}) => {
	const out: Record<string, string> = {};
	for (const key of Object.keys(tags)) if (tags[key] != null) out[key] = String(tags[key]);
	return out;
};

export function createClient(options: Options): Client {
	if (typeof options?.key !== "string" || !options.key || typeof options.endpoint !== "string") {
		throw new TypeError("@svcapp/logger: init needs a key and an endpoint");
	}
	const maxQueue = options.maxQueue ?? 30;
	const transport = createTransport(ingestUrl(options.endpoint), options.key, maxQueue);
	const tags: Record<string, string> = {};
	const breadcrumbs: Breadcrumb[] = [];
	let user: User | undefined;
	let closed = false;
	/** Errors already sent: one reported and then rethrown is not reported again as uncaught. */
	const reported = new WeakSet<object>();

	/** Events waiting for the runtime's enrichment, bounded as the transport's queue is. */
	const enriching = new Set<Promise<void>>();

	function send(fields: Pick<LogEvent, "level" | "message" | "exception" | "debug_meta">, context: CaptureContext = {}) {
		if (closed) return;
		const event: LogEvent = {
			...fields,
			level: context.level ?? fields.level,
			// The SDK's tags first: the endpoint keeps only the first 50.
			tags: { sdk_name: SDK_NAME, sdk_version: SDK_VERSION, ...tags, ...textTags(context.tags) },
			breadcrumbs: breadcrumbs.slice(),
			platform: runtime.platform,
			timestamp: new Date().toISOString(),
		};
		event.tags.sdk_name = SDK_NAME;
		event.tags.sdk_version = SDK_VERSION;
		if (options.environment) event.environment = options.environment;
		if (options.release) event.release = options.release;
		const who = context.user ?? user;
		if (who) event.user = who;
		const request = context.request ?? runtime.request();
		if (request) event.request = request;
		if (runtime.contexts) event.contexts = runtime.contexts;
		if (context.fingerprint) event.fingerprint = context.fingerprint.map(String);
		const { enrich } = runtimeEnrichment;
		if (!enrich || !event.exception) return deliver(event);
		if (enriching.size >= maxQueue) return;
		// The enrichment never rejects and bounds its own time; `beforeSend` sees the enriched event.
		const work: Promise<void> = enrich(event, options.contextLines ?? CONTEXT_LINES)
			.catch(() => {})
			.then(() => {
				enriching.delete(work);
				guarded(() => deliver(event));
			});
		enriching.add(work);
	}

	function deliver(built: LogEvent) {
		const event = options.beforeSend ? options.beforeSend(built) : built;
		if (!event) return;
		let body = JSON.stringify(event);
		if (body.length > MAX_BODY) body = JSON.stringify(event, withoutSurroundingLines);
		if (body.length > MAX_BODY) body = JSON.stringify({ ...event, breadcrumbs: [] }, withoutSurroundingLines);
		if (body.length <= MAX_BODY) transport.send(body);
	}

	/**
	 * The stack `site` was made with, less its newest frame (the SDK function that made it). V8
	 * keeps `Error.stackTraceLimit` frames (10 unless changed), of which Sentry's SDKs spend two on
	 * their own functions and this SDK one: of a stack cut at that limit, the oldest frame is left
	 * out too, so both SDKs send the same frames.
	 */
	function messageStack(message: string, site: Error | undefined): Pick<LogEvent, "exception" | "debug_meta"> {
		if (!site || options.attachStacktrace === false) return {};
		const all = parseStack(site.stack);
		const limit = (Error as { stackTraceLimit?: unknown }).stackTraceLimit;
		const frames = all.slice(typeof limit === "number" && all.length >= limit ? 1 : 0, -1);
		if (frames.length === 0) return {};
		const values = [{ value: message, stacktrace: { frames }, mechanism: { type: "generic", handled: true, synthetic: true, exception_id: 0 } }];
		return { exception: { values }, ...debugMeta(values) };
	}

	/** The debug ids of the scripts the frames ran in (after `sentry-cli sourcemaps inject`): their maps are found by them, whatever the release. */
	function debugMeta(values: ExceptionValue[]): Pick<LogEvent, "debug_meta"> {
		const images = debugImages(values);
		return images.length > 0 ? { debug_meta: { images } } : {};
	}

	/** Resolves true once nothing waits for enrichment or the transport, false if `timeoutMs` passes first. */
	async function flush(timeoutMs: number): Promise<boolean> {
		const deadline = Date.now() + timeoutMs;
		while (enriching.size > 0) {
			if (!(await settlesWithin(Promise.all(enriching), deadline - Date.now()))) return false;
		}
		return transport.flush(Math.max(0, deadline - Date.now()));
	}

	function captureThrown(error: unknown, mechanism: { type: string; handled: boolean }, level: Level, context?: CaptureContext) {
		if (typeof error === "object" && error !== null) {
			if (reported.has(error)) return;
			reported.add(error);
		}
		const values = exceptionChain(error, mechanism);
		send({ level, exception: { values }, ...debugMeta(values) }, context);
	}

	function record(breadcrumb: Breadcrumb) {
		const { type, category, message, level, data } = breadcrumb;
		const entry: Breadcrumb = { timestamp: breadcrumb.timestamp ?? new Date().toISOString() };
		if (type) entry.type = String(type);
		if (category) entry.category = String(category);
		if (message != null) entry.message = cut(describeValue(message), MAX_BREADCRUMB_MESSAGE);
		if (level) entry.level = level;
		// A copy now: later changes to the object do not rewrite history, and a value JSON cannot
		// hold (a cycle, a BigInt) costs the data, never the event.
		if (data !== undefined) {
			try {
				entry.data = JSON.parse(JSON.stringify(data));
			} catch {}
		}
		breadcrumbs.push(entry);
		if (breadcrumbs.length > MAX_BREADCRUMBS) breadcrumbs.shift();
	}

	const client: Client = {
		captureException: (error, context) => guarded(() => captureThrown(error, { type: "generic", handled: true }, "error", context)),
		captureMessage: (message, level = "info", context, site) =>
			guarded(() => {
				const text = cut(describeValue(message), MAX_TEXT);
				send({ level, message: text, ...messageStack(text, site) }, context);
			}),
		addBreadcrumb: (breadcrumb) => guarded(() => record(breadcrumb)),
		setUser: (next) =>
			guarded(() => {
				user = next ? { ...next } : undefined;
			}),
		setTag: (key, value) =>
			guarded(() => {
				if (value == null) delete tags[key];
				else tags[key] = String(value);
			}),
		flush,
		close(timeoutMs) {
			closed = true;
			uninstall();
			return flush(timeoutMs);
		},
	};

	const uninstall = installIntegrations({
		captureUncaught: options.captureUncaught !== false,
		consoleBreadcrumbs: options.consoleBreadcrumbs !== false,
		shutdownTimeoutMs: options.shutdownTimeoutMs ?? 2_000,
		capture: (error, mechanism, level) => guarded(() => captureThrown(error, { type: mechanism, handled: false }, level)),
		addBreadcrumb: record,
		flush: client.flush,
		drain: transport.drain,
	});
	return client;
}
