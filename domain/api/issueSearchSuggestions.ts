/**
 * The issue list's search box suggestions, as Sentry's search bar gives them: the word at the
 * cursor completed to one of the list's keys or a tag's, and after `key:` that key's values.
 * Dependency-free: the console bundles it; the API answers the tags' keys and values.
 */
import { ISSUE_PERIODS } from "./issues";
import { FIELD_KEYS, IS_VALUES, LATEST_RELEASE, PERIOD_KEYS, searchValue, tagKeyName } from "./issueSearch";

/** GET /api/issues/tag-keys: the project's tag keys in order; `partial` when there were more than answered. */
export interface TagKeysView {
	keys: string[];
	partial: boolean;
}

/**
 * GET /api/issues/tag-values: a tag's most common values, most events first; `partial` when the
 * tag had more rows than the bound counts (the values past it were not counted).
 */
export interface TagValuesView {
	key: string;
	values: Array<{ value: string; count: number }>;
	partial: boolean;
}

/** The list's own keys as Sentry spells them, with what each searches (parseIssueSearch reads each). */
export const SEARCH_KEYS: ReadonlyArray<[key: string, detail: string]> = [
	["is", "status, or unhandled"],
	["level", "the issue's level"],
	["environment", "an environment it was seen in"],
	["release", "a release it was seen in"],
	["firstRelease", "first seen in a release"],
	["user", "a person it happened to, by id or email"],
	["user.id", "a person, by id"],
	["user.email", "a person, by email"],
	["has", "a tag with any value"],
	["lastSeen", "last seen within a period"],
	["firstSeen", "first seen within a period"],
	["age", "first seen within a period"],
	["message", "text in the title or culprit"],
	["timesSeen", "its events, more (>100) or fewer (<10)"],
	["error.unhandled", "an event the app did not catch (true), or another (false)"],
	["error.handled", "an event the app caught or that had no exception (true), or another (false)"],
];

/** The list's keys, lower-cased, that ask about an issue as a whole: the periods and its first release. */
const ISSUE_ONLY_SEARCH_KEYS: ReadonlySet<string> = new Set([...PERIOD_KEYS, "firstrelease", "timesseen"]);
const isIssueOnly = ([key]: readonly [string, string]) => ISSUE_ONLY_SEARCH_KEYS.has(key.toLowerCase());

/**
 * The keys, as typed, that ask about an issue as a whole and so cannot search one issue's events:
 * its statuses and substatuses (`is:` but `is:unhandled`), its first release and the periods.
 */
const ISSUE_ONLY_KEYS: readonly string[] = [
	...IS_VALUES.filter((value) => value !== "unhandled").map((value) => `is:${value}`),
	...SEARCH_KEYS.filter(isIssueOnly).map(([key]) => `${key}:`),
];
/** ISSUE_ONLY_KEYS in a sentence: "is:unresolved, …, firstSeen: and age:". */
export const ISSUE_ONLY_KEYS_LISTED = `${ISSUE_ONLY_KEYS.slice(0, -1).join(", ")} and ${ISSUE_ONLY_KEYS.at(-1)}`;

/**
 * What a search searches: the issue list, or one issue's events, which takes the list's keys but
 * those about an issue as a whole (the periods, `is:` but `is:unhandled`).
 */
export type SearchScope = "issues" | "events";
/** An event's own words for the keys: what each finds among its issue's events. */
const EVENT_DETAILS: Readonly<Record<string, string>> = {
	is: "unhandled",
	level: "the event's level",
	environment: "the event's environment",
	release: "the event's release",
	message: "text in the message or an exception",
};
const keysOf = (scope: SearchScope) =>
	scope === "issues" ? SEARCH_KEYS : SEARCH_KEYS.filter((key) => !isIssueOnly(key)).map(([key, detail]) => [key, EVENT_DETAILS[key] ?? detail] as const);

/** The list's keys whose values are the tags of their names (drawn from every event, no own tag taking their name). */
const FIELD_TAGS: ReadonlySet<string> = new Set(["level", "environment", "release", "user"]);
const PERIOD_VALUES = Object.keys(ISSUE_PERIODS).map((period) => `-${period}`);

/** The token the cursor is in: its span in the text, and what was typed of it before the cursor. */
type TokenSpan = { start: number; end: number; negated: boolean };
export type KeyToken = TokenSpan & { kind: "key"; typed: string };
/** `key` as typed (`Level`, `tags[level]`); `typed` the value before the cursor, without its opening quote. */
export type ValueToken = TokenSpan & { kind: "value"; key: string; typed: string };
export type SearchTokenAt = KeyToken | ValueToken;

/**
 * The token around `cursor`: a run of text between spaces (spaces inside quotes belong to it);
 * null when what is typed of it can be neither a key nor a key's value (a URL, a quote).
 */
export function tokenAt(text: string, cursor: number): SearchTokenAt | null {
	let start = 0;
	let quoted = false;
	for (let i = 0; i < cursor; i++) {
		if (text[i] === '"') quoted = !quoted;
		else if (!quoted && /\s/.test(text[i])) start = i + 1;
	}
	let end = cursor;
	for (; end < text.length && (quoted || !/\s/.test(text[end])); end++) if (text[end] === '"') quoted = !quoted;
	const typed = text.slice(start, cursor);
	const value = /^(!?)(tags\[[^\]\s]+\]|[a-z][\w.-]*):("?)([^"]*)$/i.exec(typed);
	if (value) return value[4].startsWith("//") ? null : { start, end, negated: value[1] === "!", kind: "value", key: value[2], typed: value[4] };
	const key = /^(!?)([\w.-]*)$/.exec(typed);
	return key ? { start, end, negated: key[1] === "!", kind: "key", typed: key[2] } : null;
}

/** One suggestion: what it shows, and the token it puts in place of the one at the cursor. */
export interface Suggestion {
	label: string;
	/** What a key searches ("tag" for a tag's). */
	detail?: string;
	/** A tag value's events, as the API counted them. */
	count?: number;
	token: string;
	/** A whole `key:value`: the box moves on past it. A key alone waits for its value. */
	whole: boolean;
}

/** Where a key's values come from: fixed ones, the project's tag keys (`has:`), a tag's values, or none to offer. */
export type ValueSource = { fixed: string[] } | { tagKeys: true } | { tag: string } | null;

export function valueSource(key: string, scope: SearchScope = "issues"): ValueSource {
	const field = key.toLowerCase();
	if (field === "is") return { fixed: scope === "issues" ? IS_VALUES : ["unhandled"] };
	if (PERIOD_KEYS.has(field)) return scope === "issues" ? { fixed: PERIOD_VALUES } : null;
	if (field === "has") return { tagKeys: true };
	if (field === "error.handled" || field === "error.unhandled") return { fixed: ["true", "false"] };
	if (field === "firstrelease") return scope === "issues" ? { tag: "release" } : null;
	if (FIELD_TAGS.has(field)) return { tag: field };
	if (FIELD_KEYS.has(field)) return null;
	return { tag: /^tags\[(.+)\]$/i.exec(key)?.[1] ?? key };
}

/** Names that hold `typed` (any letter case), those that start with it first, each group in the order given. */
function matching<T>(items: readonly T[], typed: string, nameOf: (item: T) => string): T[] {
	const word = typed.toLowerCase();
	const at = (item: T) => nameOf(item).toLowerCase().indexOf(word);
	return [...items.filter((item) => at(item) === 0), ...items.filter((item) => at(item) > 0)];
}

/** The list's own keys `!` negates: `has:`, and those standing for drawn tags (parseIssueSearch). */
const NEGATABLE_KEYS: ReadonlySet<string> = new Set(["has", "level", "environment", "release"]);

/**
 * The keys the word at the cursor can become: the list's own, then the project's tags (but the
 * drawn `level`, `environment`, `release` and `user`, which the list's keys of their names stand
 * for; another named as a key in `tags[…]`). A negated word (`!`) only a tag's, `has:`, or a key
 * the search negates as the tag drawn of its name (NEGATABLE_KEYS).
 */
export function keySuggestions(token: KeyToken, tagKeys: readonly string[], scope: SearchScope = "issues"): Suggestion[] {
	const not = token.negated ? "!" : "";
	const own = keysOf(scope).filter(([key]) => !token.negated || NEGATABLE_KEYS.has(key)).map(([key, detail]) => [key, { label: `${key}:`, detail, token: `${not}${key}:`, whole: false }] as const);
	const tags = tagKeys.flatMap((key) => {
		const name = FIELD_TAGS.has(key) ? null : tagKeyName(key);
		return name === null ? [] : [[key, { label: `${name}:`, detail: "tag", token: `${not}${name}:`, whole: false }] as const];
	});
	// Matched on the key's own name, not its `tags[…]`.
	return matching([...own, ...tags], token.typed, ([key]) => key).map(([, suggestion]) => suggestion);
}

/** The keys, lower-cased, whose value can be LATEST_RELEASE: the project's newest release. */
const LATEST_KEYS: ReadonlySet<string> = new Set(["release", "firstrelease"]);

/**
 * The values the token's key can take, from `values` (a tag's, as the API ranks them, or the
 * tag keys for `has:`) or its fixed ones; those a search cannot hold (a double quote) left out.
 * `release:` and `firstRelease:` offer `latest` first, as Sentry's search bar does (a release
 * named so is offered quoted, as its name).
 */
export function valueSuggestions(token: ValueToken, values: ReadonlyArray<{ value: string; count?: number }>, scope: SearchScope = "issues"): Suggestion[] {
	const source = valueSource(token.key, scope);
	const offered: ReadonlyArray<{ value: string; count?: number }> = source && "fixed" in source ? source.fixed.map((value) => ({ value })) : values;
	const prefix = `${token.negated ? "!" : ""}${token.key}:`;
	const latest: Suggestion[] =
		source !== null && !token.negated && LATEST_KEYS.has(token.key.toLowerCase())
			? [{ label: LATEST_RELEASE, detail: "the newest release", token: `${prefix}${LATEST_RELEASE}`, whole: true }]
			: [];
	const suggestions = offered
		.filter(({ value }) => value !== "" && !value.includes('"'))
		.map(({ value, count }) => ({ label: value, count, token: `${prefix}${searchValue(value)}`, whole: true }));
	return matching([...latest, ...suggestions], token.typed, (suggestion) => suggestion.label);
}

/** The text with the token at the cursor replaced by the suggestion's, and where the cursor goes: past a space after a whole one. */
export function applySuggestion(text: string, token: SearchTokenAt, suggestion: Suggestion): { text: string; cursor: number } {
	const after = text.slice(token.end);
	const space = suggestion.whole && !/^\s/.test(after) ? " " : "";
	const head = text.slice(0, token.start) + suggestion.token;
	return { text: head + space + after, cursor: head.length + (suggestion.whole ? 1 : 0) };
}
