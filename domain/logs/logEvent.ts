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
	message: string | null;
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
	user: LogUser | null;
	contexts: { browser?: unknown; os?: unknown; device?: unknown; runtime?: unknown };
	fingerprint: string[] | null;
}
