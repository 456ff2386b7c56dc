/**
 * The log event as `POST /api/app-logs-ingest` takes it, and the exception part built from
 * whatever was thrown.
 */
import { parseStack, type StackFrame } from "./stack.js";

export type { StackFrame };
export type Level = "fatal" | "error" | "warning" | "info" | "debug";
export type Primitive = string | number | boolean;

/** How an exception was caught, and where it sits in a chain (Sentry's field names). */
export interface Mechanism {
	type: string;
	handled: boolean;
	/** Ids of the chain: the reported exception is 0; others point at the one holding them. */
	exception_id: number;
	parent_id?: number;
	/** `cause`, or `errors[i]` for a member of an AggregateError. */
	source?: string;
	is_exception_group?: boolean;
	/** Made by the SDK to carry the stack of a captured message: its type means nothing. */
	synthetic?: boolean;
}

export interface ExceptionValue {
	/** Left out of a message's synthetic exception, as Sentry's SDKs leave it out. */
	type?: string;
	value: string;
	stacktrace?: { frames: StackFrame[] };
	mechanism: Mechanism;
}

export interface Breadcrumb {
	/** ISO 8601; set when the breadcrumb is added. */
	timestamp?: string;
	type?: string;
	category?: string;
	message?: string;
	level?: Level;
	data?: Record<string, unknown>;
}

export interface User {
	id?: string | number;
	email?: string;
	username?: string;
	ip_address?: string;
}

export interface RequestInfo {
	url?: string;
	method?: string;
	headers?: Record<string, string>;
	query_string?: string;
	body?: string;
}

export interface LogEvent {
	message?: string;
	level: Level;
	/** Every exception of a chain, the reported (outermost) one last. */
	exception?: { values: ExceptionValue[] };
	tags: Record<string, string>;
	breadcrumbs: Breadcrumb[];
	environment?: string;
	release?: string;
	platform: "node" | "javascript";
	timestamp: string;
	user?: User;
	request?: RequestInfo;
	contexts?: { runtime?: { name: string; version: string } };
	fingerprint?: string[];
	/** The scripts of the stack that carry a debug id: how svc finds their source maps. */
	debug_meta?: { images: DebugImage[] };
}

export interface DebugImage {
	type: "sourcemap";
	code_file: string;
	debug_id: string;
}

/** The endpoint's limits for messages and exception values. */
export const MAX_TEXT = 8_192;
/** Sentry's default depth for linked errors; also what stops a cause cycle that `seen` misses. */
const MAX_CHAIN = 10;

/** Cut to `max` UTF-16 units on a whole character: an emoji is kept or left out, never halved. */
export function cut(text: string, max: number): string {
	if (text.length <= max) return text;
	const last = text.charCodeAt(max - 1);
	return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/** JSON for anything: circular or unserializable values become their `String()`. */
export function describeValue(value: unknown): string {
	if (typeof value === "string") return value;
	try {
		return JSON.stringify(value) ?? String(value);
	} catch {
		return String(value);
	}
}

interface ErrorLike {
	name?: unknown;
	message: string;
	stack?: unknown;
	cause?: unknown;
	errors?: unknown;
}

/** Errors from other realms (iframes, `vm`) are not `instanceof Error`; judge by shape. */
const isErrorLike = (value: unknown): value is ErrorLike =>
	typeof value === "object" && value !== null && typeof (value as ErrorLike).message === "string" && ("stack" in value || "name" in value);

function describeException(thrown: unknown): Omit<ExceptionValue, "mechanism"> {
	if (!isErrorLike(thrown)) return { type: "Error", value: cut(describeValue(thrown), MAX_TEXT) };
	const exception: Omit<ExceptionValue, "mechanism"> = {
		type: String(thrown.name || "Error"),
		value: cut(thrown.message, MAX_TEXT),
	};
	const frames = parseStack(thrown.stack);
	if (frames.length > 0) exception.stacktrace = { frames };
	return exception;
}

/**
 * The thrown value and what it links to (`cause`, an AggregateError's `errors`), depth first,
 * as a list whose last entry is the thrown value itself: the endpoint reports the last one.
 */
export function exceptionChain(thrown: unknown, mechanism: { type: string; handled: boolean }): ExceptionValue[] {
	const chain: ExceptionValue[] = [];
	const seen = new Set<unknown>();
	const visit = (value: unknown, parentId?: number, source?: string) => {
		if (chain.length >= MAX_CHAIN || seen.has(value)) return;
		seen.add(value);
		const id = chain.length;
		const entry: ExceptionValue = {
			...describeException(value),
			mechanism: id === 0 ? { ...mechanism, exception_id: 0 } : { type: "chained", handled: mechanism.handled, exception_id: id, parent_id: parentId, source },
		};
		chain.push(entry);
		if (!isErrorLike(value)) return;
		if (Array.isArray(value.errors)) {
			entry.mechanism.is_exception_group = true;
			for (const [i, member] of value.errors.entries()) visit(member, id, `errors[${i}]`);
		}
		if (value.cause !== undefined) visit(value.cause, id, "cause");
	};
	visit(thrown);
	return chain.reverse();
}

/**
 * The debug ids of the scripts the exceptions ran in. `sentry-cli sourcemaps inject` makes each
 * script record its id under a stack taken inside it (`globalThis._sentryDebugIds`), so the newest
 * frame of that stack names the script's file, as the exceptions' frames do.
 */
export function debugImages(values: ExceptionValue[]): DebugImage[] {
	const ids = (globalThis as { _sentryDebugIds?: Record<string, unknown> })._sentryDebugIds;
	if (!ids || typeof ids !== "object") return [];
	const byFile = new Map<string, string>();
	for (const [stack, id] of Object.entries(ids)) {
		const file = parseStack(stack).at(-1)?.filename;
		if (file && typeof id === "string") byFile.set(file, id);
	}
	const files = new Set(values.flatMap((value) => value.stacktrace?.frames.map((frame) => frame.filename) ?? []));
	return [...byFile].filter(([file]) => files.has(file)).map(([code_file, debug_id]) => ({ type: "sourcemap", code_file, debug_id }));
}
