/**
 * Secrets an SDK sends inside an event (its request, breadcrumb data, `extra`, contexts and frames'
 * local variables), replaced before anything is stored, as Sentry's default server-side scrubbing does: the value of any member, form field or
 * query parameter whose name says it holds a password, a secret, a key, a token, credentials or a
 * session becomes "[Filtered]". Names are compared without case, `-`, `_` or `.`, so `apiKey`,
 * `api_key` and `API-KEY` are one name. Whatever the name, a card number, a private key or a URL's
 * password in a value is filtered where it stands (secretValues). Headers that carry credentials
 * are removed whole.
 */
import { boundedJson, isObject } from "./jsonFields";
import { FILTERED, filterSecretValues } from "./secretValues";

/** Removed from `request.headers` before anything is stored, compared case-insensitively. */
const SECRET_HEADERS: ReadonlySet<string> = new Set(["authorization", "cookie", "set-cookie", "x-svc-key", "x-api-key", "x-auth-token", "proxy-authorization"]);

export const isSecretHeader = (name: string) => SECRET_HEADERS.has(name.trim().toLowerCase());

/** A W3C baggage member, `key=value` and optional `;properties`, as a traced app passes it on. */
const BAGGAGE_MEMBER = /(^|,)(\s*)([^=,;\s]+)(\s*=\s*)([^,;]*)/g;

/**
 * A header's value with the secrets in it filtered: in `baggage`, the `sentry-public_key` that
 * Sentry's SDKs pass from page to server with every traced request (a DSN's key here is the
 * project key, removed wherever else it is sent) and any member a secret's name names.
 */
export function scrubHeaderValue(name: string, value: string): string {
	if (name.trim().toLowerCase() !== "baggage") return value;
	return value.replace(BAGGAGE_MEMBER, (member, start: string, space: string, key: string, equals: string) =>
		key.toLowerCase() === "sentry-public_key" || isSecretName(key) ? `${start}${space}${key}${equals}${FILTERED}` : member,
	);
}

/** Names that are a secret's wherever they appear in a longer name (`user_password`, `accessToken`). */
const SECRET_PART = /password|passwd|passphrase|secret|apikey|accesskey|privatekey|credential|token|mysqlpwd|sessionid|csrf|xsrf|cookie|authorization|authentication/;
/** Names that are a secret's only whole: `auth` but not `author`, `pwd` but not `pwdHint`... */
const SECRET_WHOLE = new Set(["auth", "pass", "pwd", "pin", "session", "sid", "jwt", "signature", "sig", "cvv", "cvc", "ssn"]);

function isSecretName(name: string): boolean {
	const bare = name.toLowerCase().replace(/[-_.\s]/g, "");
	return SECRET_WHOLE.has(bare) || SECRET_PART.test(bare);
}

/**
 * Bounded JSON (no cycles, bounded depth) with secret members' values filtered, and the secret
 * values in every other string: a copy where one is, else `value` itself, so a caller can tell
 * whether anything was.
 */
export function scrubJson(value: unknown): unknown {
	if (typeof value === "string") return URL_WITH_QUERY.test(value) ? scrubUrl(value) : filterSecretValues(value);
	if (Array.isArray(value)) {
		const items = value.map(scrubJson);
		return items.some((item, i) => item !== value[i]) ? items : value;
	}
	if (!isObject(value)) return value;
	const entries = Object.entries(value).map(([key, item]): [string, unknown] => [key, isSecretName(key) && item !== FILTERED ? FILTERED : scrubJson(item)]);
	// fromEntries defines own members, so a "__proto__" key stays plain data.
	return entries.some(([key, item]) => item !== value[key]) ? Object.fromEntries(entries) : value;
}

const formDecoded = (text: string) => decodeURIComponent(text.replace(/\+/g, " "));

/**
 * A form field's value with the secrets in it filtered, read decoded (a card number's spaces may be
 * `+` or `%20`) and written back encoded around each "[Filtered]"; as sent when there is none.
 */
function scrubFormValue(value: string): string {
	let decoded: string;
	try {
		decoded = formDecoded(value);
	} catch {
		// Not valid percent-encoding: read as it was sent.
		return filterSecretValues(value);
	}
	const filtered = filterSecretValues(decoded);
	return filtered === decoded ? value : filtered.split(FILTERED).map(encodeURIComponent).join(FILTERED);
}

/**
 * `a=1&password=x`: each secret field's value filtered, and the secrets in every other value; the
 * text itself when nothing is.
 */
function scrubFormText(text: string): string {
	let changed = false;
	const fields = text.split("&").map((field) => {
		const equals = field.indexOf("=");
		if (equals <= 0) return field;
		let name = field.slice(0, equals);
		try {
			name = formDecoded(name);
		} catch {
			// An undecodable name is compared as it was sent.
		}
		const value = field.slice(equals + 1);
		const scrubbed = isSecretName(name) ? FILTERED : scrubFormValue(value);
		if (scrubbed === value) return field;
		changed = true;
		return `${field.slice(0, equals)}=${scrubbed}`;
	});
	return changed ? fields.join("&") : text;
}

/** A URL's query (`?a=1&token=x`, the `?` optional) with its secrets filtered as a form's are; the text itself when none is. */
export function scrubQuery(query: string): string {
	const bare = query.startsWith("?") ? query.slice(1) : query;
	const scrubbed = scrubFormText(bare);
	return scrubbed === bare ? query : query.slice(0, query.length - bare.length) + scrubbed;
}

/**
 * A URL, absolute or from the root, with a query or a fragment: a string value of this shape (a
 * breadcrumb's `data.url`, a navigation's `from` and `to`) is scrubbed as a request's URL is.
 */
const URL_WITH_QUERY = /^(?:[a-z][a-z\d+.-]*:\/\/|\/)[^\s?#]*[?#]/i;

/**
 * A URL with its password and the secrets in its path filtered, and its query's as a form's are;
 * so is a fragment that is a form (`#access_token=…&token_type=bearer`, as OAuth's implicit flow
 * returns a token).
 */
export function scrubUrl(url: string): string {
	const fragment = url.indexOf("#");
	const beforeFragment = fragment < 0 ? url : url.slice(0, fragment);
	const query = beforeFragment.indexOf("?");
	const scrubbed = query < 0 ? filterSecretValues(beforeFragment) : `${filterSecretValues(beforeFragment.slice(0, query))}?${scrubFormText(beforeFragment.slice(query + 1))}`;
	if (fragment < 0) return scrubbed;
	const hash = url.slice(fragment + 1);
	return `${scrubbed}#${FORM_TEXT.test(hash) ? scrubFormText(hash) : filterSecretValues(hash)}`;
}

/**
 * `name=value&...`: a name, `=`, then no whitespace. Written so that a text has one way to match:
 * a pattern that may split a field's text two ways tries every split of every field, before it
 * fails, on a text that turns out not to be a form only at its end (`a=1&bb&bb&... x`).
 */
const FORM_TEXT = /^[^\s=&]+=\S*$/;

/**
 * A request body as text: JSON with its secret members filtered (in a bounded copy: a body's
 * nesting has no bound of its own), form fields likewise; else the secrets in the text filtered.
 * A body with nothing to filter is kept exactly as sent.
 */
export function scrubBodyText(text: string): string {
	const trimmed = text.trim();
	if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
		let parsed: unknown;
		try {
			parsed = JSON.parse(trimmed);
		} catch {
			return filterSecretValues(text);
		}
		const copy = boundedJson(parsed);
		const scrubbed = scrubJson(copy);
		// Kept as sent, the text also holds what the bounded copy left out (members nested deeper,
		// the rest of long strings): secret values there are filtered in the text itself.
		return scrubbed === copy ? filterSecretValues(text) : JSON.stringify(scrubbed);
	}
	return FORM_TEXT.test(trimmed) ? scrubFormText(trimmed) : filterSecretValues(text);
}
