/** A log event as it is stored: what normalizeEvent makes of a request body. */

export interface StackFrame {
	filename?: string;
	abs_path?: string;
	module?: string;
	function?: string;
	lineno?: number;
	colno?: number;
	context_line?: string;
	in_app?: boolean;
	/** The frame's local variables by name, each value as text (FRAME_VARS). */
	vars?: Record<string, string>;
	/** The lines before and after `context_line`, as the SDK sent them or symbolication found them. */
	pre_context?: string[];
	post_context?: string[];
	/** Set by symbolication: the frame as it came, before it was mapped to the original code. */
	minified?: Pick<StackFrame, "filename" | "abs_path" | "function" | "lineno" | "colno" | "context_line">;
}

/** A script the event's frames ran in and its debug id (Sentry's `debug_meta.images` of type `sourcemap`). */
export interface DebugImage {
	type: "sourcemap";
	/** The script's URL, as the frames name it. */
	code_file: string;
	/** Lower-case UUID. */
	debug_id: string;
}

/** How symbolication went: candidate frames, how many were mapped, and why the others were not. */
export interface Symbolication {
	frames: number;
	mapped: number;
	notes: string[];
}

/** How an exception was captured, and its place in a chain or group (Sentry's `mechanism`). */
export interface ExceptionMechanism {
	type?: string;
	handled?: boolean;
	/** Made up by the SDK to carry a stack trace (a captured message): its type means nothing. */
	synthetic?: boolean;
	/** A wrapper of other exceptions: AggregateError, ExceptionGroup, AggregateException. */
	is_exception_group?: boolean;
	/** This exception's id within the event; the reported one is 0. */
	exception_id?: number;
	/** The id of the exception that holds this one as its cause or child. */
	parent_id?: number;
	/** Where the parent holds it: `cause`, `errors[1]`, `__context__`. */
	source?: string;
}

export interface LogException {
	type: string | null;
	value: string | null;
	stacktrace: { frames: StackFrame[] } | null;
	mechanism?: ExceptionMechanism;
}

export interface Breadcrumb {
	timestamp?: string | number;
	type?: string;
	category?: string;
	message?: string;
	level?: string;
	data?: unknown;
}

export interface LogRequest {
	url?: string;
	method?: string;
	headers: Record<string, string>;
	query_string?: string;
	body?: string;
	body_truncated?: true;
}

export interface LogUser {
	id?: string;
	email?: string;
	username?: string;
	ip_address?: string;
}

/** The event as stored. */
export interface LogEvent {
	/** The id the sender gave the event (Sentry's `event_id`), 32 lower-case hex digits. */
	event_id?: string;
	message: string | null;
	/** The message before its values were filled in (Sentry's `logentry.message`): grouping reads it in place of `message`. */
	message_template?: string;
	level: string;
	/** The reported exception: the outermost of a chain, the group of a group. */
	exception: LogException | null;
	/**
	 * The other exceptions of its chain or group, as sent in Sentry's `exception.values`: causes and
	 * children before what holds them, so `exception` would come next. Empty for a lone exception.
	 */
	chained_exceptions: LogException[];
	tags: Record<string, string>;
	breadcrumbs: Breadcrumb[];
	request: LogRequest | null;
	environment: string | null;
	release: string | null;
	platform: string | null;
	sdk: { name: string | null; version: string | null };
	/** ISO 8601. */
	timestamp: string;
	/** The `timestamp` as sent, only when it was too far in the future and the time received replaced it. */
	original_timestamp?: string;
	user: LogUser | null;
	contexts: { browser?: unknown; os?: unknown; device?: unknown; runtime?: unknown };
	/** Other contexts by name (`setContext("order", {...})`, an SDK's `app` or `trace`); only when there are some. */
	custom_contexts?: Record<string, unknown>;
	/** Sentry's `extra`: additional data by name; only when there is some. */
	extra?: Record<string, unknown>;
	fingerprint: string[] | null;
	debug_meta: { images: DebugImage[] } | null;
	/** Present when the event had JavaScript frames that source maps could map. */
	symbolication?: Symbolication;
	/**
	 * What a Sentry event lost to keep the rest: each member that broke a field rule, dropped, in the
	 * rule's words (`fingerprint must be an array`), as Sentry notes its processing errors. Only when one was.
	 */
	processing_errors?: string[];
}
