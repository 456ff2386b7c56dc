/**
 * Secrets an SDK sends inside an event (its request, breadcrumb data, `extra`, contexts and frames'
 * local variables), replaced before anything is stored, as Sentry's default server-side scrubbing does: the value of any member, form field or
 * query parameter whose name says it holds a password, a secret, a key, a token, credentials or a
 * session becomes "[Filtered]". Names are compared without case, `-`, `_` or `.`, so `apiKey`,
 * `api_key` and `API-KEY` are one name. Headers that carry credentials are removed whole.
 */
import { boundedJson, isObject } from "./jsonFields";

const FILTERED = "[Filtered]";

/** Removed from `request.headers` before anything is stored, compared case-insensitively. */
const SECRET_HEADERS: ReadonlySet<string> = new Set(["authorization", "cookie", "set-cookie", "x-svc-key", "x-api-key", "x-auth-token", "proxy-authorization"]);

export const isSecretHeader = (name: string) => SECRET_HEADERS.has(name.trim().toLowerCase());

/** Names that are a secret's wherever they appear in a longer name (`user_password`, `accessToken`). */
const SECRET_PART = /password|passwd|passphrase|secret|apikey|accesskey|privatekey|credential|token|mysqlpwd|sessionid|csrf|xsrf|cookie|authorization|authentication/;
/** Names that are a secret's only whole: `auth` but not `author`, `pwd` but not `pwdHint`... */
const SECRET_WHOLE = new Set(["auth", "pass", "pwd", "pin", "session", "sid", "jwt", "signature", "sig", "cvv", "cvc", "ssn"]);

function isSecretName(name: string): boolean {
	const bare = name.toLowerCase().replace(/[-_.\s]/g, "");
	return SECRET_WHOLE.has(bare) || SECRET_PART.test(bare);
}

/**
 * Bounded JSON (no cycles, bounded depth) with secret members' values filtered: a copy where one
 * is, else `value` itself, so a caller can tell whether anything was.
 */
export function scrubJson(value: unknown): unknown {
	if (Array.isArray(value)) {
		const items = value.map(scrubJson);
		return items.some((item, i) => item !== value[i]) ? items : value;
	}
	if (!isObject(value)) return value;
	const entries = Object.entries(value).map(([key, item]): [string, unknown] => [key, isSecretName(key) && item !== FILTERED ? FILTERED : scrubJson(item)]);
	// fromEntries defines own members, so a "__proto__" key stays plain data.
	return entries.some(([key, item]) => item !== value[key]) ? Object.fromEntries(entries) : value;
}

/** `a=1&password=x`: each secret field's value filtered, the rest as sent; the text itself when none is. */
function scrubFormText(text: string): string {
	let changed = false;
	const fields = text.split("&").map((field) => {
		const equals = field.indexOf("=");
		if (equals <= 0) return field;
		let name = field.slice(0, equals);
		try {
			name = decodeURIComponent(name.replace(/\+/g, " "));
		} catch {
			// An undecodable name is compared as it was sent.
		}
		if (!isSecretName(name) || field.slice(equals + 1) === FILTERED) return field;
		changed = true;
		return `${field.slice(0, equals)}=${FILTERED}`;
	});
	return changed ? fields.join("&") : text;
}

/** A URL with its query's secret parameters filtered. */
export function scrubUrl(url: string): string {
	const query = url.indexOf("?");
	if (query < 0) return url;
	const fragment = url.indexOf("#", query);
	const end = fragment < 0 ? url.length : fragment;
	return url.slice(0, query + 1) + scrubFormText(url.slice(query + 1, end)) + url.slice(end);
}

/**
 * `name=value&...`: a name, `=`, then no whitespace. Written so that a text has one way to match:
 * a pattern that may split a field's text two ways tries every split of every field, before it
 * fails, on a text that turns out not to be a form only at its end (`a=1&bb&bb&... x`).
 */
const FORM_TEXT = /^[^\s=&]+=\S*$/;

/**
 * A request body as text: JSON with its secret members filtered (in a bounded copy: a body's
 * nesting has no bound of its own), form fields likewise; else as it came. A body with nothing to
 * filter is kept exactly as sent.
 */
export function scrubBodyText(text: string): string {
	const trimmed = text.trim();
	if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
		let parsed: unknown;
		try {
			parsed = JSON.parse(trimmed);
		} catch {
			return text;
		}
		const copy = boundedJson(parsed);
		const scrubbed = scrubJson(copy);
		return scrubbed === copy ? text : JSON.stringify(scrubbed);
	}
	return FORM_TEXT.test(trimmed) ? scrubFormText(trimmed) : text;
}
