/**
 * @svcapp/logger: errors and messages from Node and browser applications to svc's
 * `POST /api/app-logs-ingest`. One logger per process or page; every function is safe to call
 * before `init` (it does nothing) and never throws.
 */
import { type CaptureContext, type Client, createClient, type Options } from "./client.js";
import type { Breadcrumb, Level, Primitive, User } from "./event.js";
import { guarded } from "./guard.js";

export { SDK_NAME, SDK_VERSION } from "./client.js";
export type { CaptureContext, Options } from "./client.js";
export type { Breadcrumb, ExceptionValue, Level, LogEvent, Mechanism, Primitive, RequestInfo, StackFrame, User } from "./event.js";
export { parseStack } from "./stack.js";

let client: Client | undefined;

/** Starts the logger; a second call replaces the first (whose pending events still go out). */
export function init(options: Options): void {
	client?.close(0);
	client = guarded(() => createClient(options));
}

/** Reports an error (or any thrown value) with its `cause` chain. */
export function captureException(error: unknown, context?: CaptureContext): void {
	client?.captureException(error, context);
}

/** Reports a message, with the stack it was captured at unless `attachStacktrace` is false. */
export function captureMessage(message: string, level: Level = "info", context?: CaptureContext): void {
	// Made here, so that this function is the stack's only frame of the SDK's, and the one left out.
	client?.captureMessage(message, level, context, new Error());
}

/** Kept in a ring of the newest 100, sent with every later event. */
export function addBreadcrumb(breadcrumb: Breadcrumb): void {
	client?.addBreadcrumb(breadcrumb);
}

export function setUser(user: User | null): void {
	client?.setUser(user);
}

/** `null` or `undefined` removes the tag. */
export function setTag(key: string, value: Primitive | null | undefined): void {
	client?.setTag(key, value);
}

/** Resolves true once every pending event is sent, false if `timeoutMs` passes first. */
export function flush(timeoutMs = 2_000): Promise<boolean> {
	return client ? client.flush(timeoutMs) : Promise.resolve(true);
}

/** Flushes, then stops: hooks removed, later calls do nothing until the next `init`. */
export function close(timeoutMs = 2_000): Promise<boolean> {
	const closing = client;
	client = undefined;
	return closing ? closing.close(timeoutMs) : Promise.resolve(true);
}
