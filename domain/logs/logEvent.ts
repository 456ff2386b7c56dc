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

export interface LogException {
	type: string | null;
	value: string | null;
	stacktrace: { frames: StackFrame[] } | null;
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
	exception: LogException | null;
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
