/**
 * Sentry's search as the issue list and an issue's event search read it (docs/api.md#list-issues):
 * `is:unresolved level:error browser.name:Chrome checkout`. Dependency-free: the console bundles it.
 */
import { ISSUE_PERIODS, type IssuePeriod, type IssueStatus, type IssueSubstatus } from "./issues";

/** What a Sentry search (`is:unresolved level:error checkout`) asks of the issue list. */
export interface IssueSearch {
	status?: IssueStatus;
	/** Open again after being resolved, or reopened by an escalation in the last week (Sentry's `is:regressed`, `is:escalating`). */
	substatus?: IssueSubstatus;
	unhandled?: boolean;
	level?: string;
	environment?: string;
	release?: string;
	/** The release of the issue's earliest event (Sentry's `firstRelease:`): issues new in it; `*` for any text. */
	first_release?: string;
	/**
	 * Sentry's `release:latest` and `firstRelease:latest`: `release` and `first_release` the
	 * project's newest release, which only the key's object can tell (withNewestRelease).
	 */
	release_latest?: true;
	first_release_latest?: true;
	/** A user's id or email, as the list's `user` filter takes it. */
	user?: string;
	/** Which of the user's fields `user` must match (Sentry's `user.id:`, `user.email:`); either when absent. */
	user_field?: UserField;
	/** Last seen within this period (Sentry's `lastSeen:-24h`), as the list's `period`. */
	period?: IssuePeriod;
	/** First seen within this period (Sentry's `firstSeen:-24h` or `age:-24h`): issues new in it. */
	first_seen_period?: IssuePeriod;
	/** Bounds on when the issue was last or first seen, all of them (Sentry's `lastSeen:-3d`, `age:+2w`, `lastSeen:>2026-11-01`). */
	seen?: SeenBound[];
	/** The issue's count of events (in the environment read) compared so (Sentry's `timesSeen:>100`). */
	times_seen?: TimesSeen;
	/** Tags an event of the issue carried with these values (Sentry's `browser.name:Chrome`), all of them. */
	tags?: TagSearch[];
	/** What is left: text to find in the title or culprit, or an issue's hash or event id. */
	text?: string;
}

/**
 * A tag and the value searched: as its events carried it, or with `*` for any text
 * (`url:*checkout*`); any of several (Sentry's list, `browser.name:[Chrome, Firefox]`); any value
 * when absent (Sentry's `has:url`). Negated (`!browser.name:Chrome`, `!has:user`), as Sentry's:
 * the issues with an event that did not carry it (or, for a list, carried none of them).
 */
export interface TagSearch {
	key: string;
	value?: string | string[];
	negated?: true;
}

export type UserField = "id" | "email";

/** How an issue's count compares with a number, as Sentry's numeric search writes it (`>`, `>=`, `<`, `<=`, none for `=`). */
const COUNT_OPERATORS = [">", ">=", "<", "<=", "="] as const;
export interface TimesSeen {
	op: (typeof COUNT_OPERATORS)[number];
	count: number;
}

/** How an issue's last or first seen compares with a time (ms since the epoch). */
export interface SeenBound {
	field: "last_seen" | "first_seen";
	op: ">" | ">=" | "<" | "<=";
	at: number;
}

/** Sentry's `timesSeen:` value: an operator, then a whole number with an optional k, m or b (`>1k`). */
function timesSeenOf(value: string): TimesSeen | null {
	const match = /^(>=|<=|>|<|=)?(\d{1,12})([kmb])?$/i.exec(value);
	if (!match) return null;
	const scale = { k: 1e3, m: 1e6, b: 1e9 }[match[3]?.toLowerCase() ?? ""] ?? 1;
	return { op: (match[1] ?? "=") as TimesSeen["op"], count: Number(match[2]) * scale };
}

/** Sentry's `is:` values the list can answer, as statuses (Sentry's newer UI says archived for ignored). */
const IS_STATUS: Readonly<Record<string, IssueStatus>> = { unresolved: "open", resolved: "resolved", ignored: "ignored", archived: "ignored" };
// A key is a tag's name (letters, digits, `_`, `.`, `-`) or one in Sentry's `tags[…]` form; `!` negates a tag's.
// A value is quoted, bare, or Sentry's list of values (`[error, fatal]`, each bare or quoted).
const SEARCH_TOKEN = /(^|\s)(!?)(tags\[[^\]\s]+\]|[a-z][\w.-]*):(?:"([^"]*)"|\[((?:[^\]"]|"[^"]*")*)\]|(\S+))(?=\s|$)/gi;
/** The keys whose value can be Sentry's list (`level:[error, fatal]`): any of them. Tags' can too. */
const LIST_KEYS: ReadonlySet<string> = new Set(["level", "environment", "release"]);
/** Sentry's boolean fields of an event's exception, each with whether `true` means handled: the drawn tag `handled` says `no` for unhandled. */
const HANDLED_KEYS: Readonly<Record<string, boolean>> = { "error.handled": true, "error.unhandled": false };
const BOOLEAN_VALUES: Readonly<Record<string, boolean>> = { true: true, "1": true, false: false, "0": false };
/** Sentry's period keys, lower-cased: `lastSeen:` is the list's period, `firstSeen:` and `age:` its first seen period. */
const PERIOD_FIELDS = { lastseen: "period", firstseen: "first_seen_period", age: "first_seen_period" } as const satisfies Record<string, keyof IssueSearch>;
export const PERIOD_KEYS: ReadonlySet<string> = new Set(Object.keys(PERIOD_FIELDS));
/** The time each period key bounds, in any other of Sentry's forms (seenBoundsOf). */
const SEEN_FIELDS: Readonly<Record<keyof typeof PERIOD_FIELDS, SeenBound["field"]>> = { lastseen: "last_seen", firstseen: "first_seen", age: "first_seen" };
const TIME_UNITS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };
/** Either side of a time named without an operator (`lastSeen:2026-11-01T10:00:00`): a moment matches no issue's time. */
const AROUND_A_TIME_MS = 5 * 60_000;
const IS_SUBSTATUS: ReadonlySet<string> = new Set<IssueSubstatus>(["regressed", "escalating"]);
/** `is:` values: the statuses and substatuses, which ask about an issue as a whole, and `unhandled`, which an event can be. */
export const IS_VALUES = [...Object.keys(IS_STATUS), ...IS_SUBSTATUS, "unhandled"];
export const FIELD_KEYS: ReadonlySet<string> = new Set([
	"is",
	"has",
	"message",
	"level",
	"environment",
	"release",
	"firstrelease",
	"user",
	"user.id",
	"user.email",
	...Object.keys(HANDLED_KEYS),
	"timesseen",
	...PERIOD_KEYS,
]);
/**
 * The value of `release:` and `firstRelease:` that stands for the project's newest release, as
 * Sentry's does; quoted (`release:"latest"`) it is a release of that name.
 */
export const LATEST_RELEASE = "latest";
/** The fields that name a release, each with the one that names the newest release instead. */
const LATEST_FIELDS = [
	["release", "release_latest"],
	["first_release", "first_release_latest"],
] as const satisfies ReadonlyArray<[keyof IssueSearch, keyof IssueSearch]>;

/** A relative time as Sentry's search writes it (`-24h`, `24h`), if the list has that period. */
function periodOf(value: string): IssuePeriod | null {
	const period = value.replace(/^-/, "").toLowerCase();
	return Object.hasOwn(ISSUE_PERIODS, period) ? (period as IssuePeriod) : null;
}

/**
 * Sentry's other forms of `lastSeen:`, `firstSeen:` and `age:` as bounds on `field` (null when the
 * value is none of them): `-3d` within the last three days, `+2w` more than two weeks ago (`m`,
 * `h`, `d`, `w`); a date or time after `>`, `>=`, `<` or `<=` (`>=2026-11-01`,
 * `<2026-11-01T12:00:00+01:00`; UTC unless it gives its offset); a date alone, that day; a time
 * alone, the five minutes either side of it.
 */
function seenBoundsOf(field: SeenBound["field"], value: string, now: number): SeenBound[] | null {
	const relative = /^([+-])(\d{1,6})([mhdw])$/.exec(value);
	if (relative) return [{ field, op: relative[1] === "-" ? ">=" : "<=", at: now - Number(relative[2]) * TIME_UNITS[relative[3]] }];
	const absolute = /^(>=|<=|>|<)?((\d{4})-(\d{2})-(\d{2}))(T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?$/.exec(value);
	if (!absolute) return null;
	const [, op, date, year, month, day, time, offset] = absolute;
	// Date.parse would read 2026-02-30 as 2 March: the day must be one of its month's.
	const utcDay = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
	if (utcDay.getUTCMonth() !== Number(month) - 1 || utcDay.getUTCDate() !== Number(day)) return null;
	const at = Date.parse(`${date}${time ?? "T00:00:00"}${offset ?? "Z"}`);
	if (Number.isNaN(at)) return null;
	if (op) return [{ field, op: op as SeenBound["op"], at }];
	const [from, to] = time ? [at - AROUND_A_TIME_MS, at + AROUND_A_TIME_MS] : [at, at + TIME_UNITS.d];
	return [
		{ field, op: ">=", at: from },
		{ field, op: "<", at: to },
	];
}

/** Whether `lastSeen:`, `firstSeen:` and `age:` read `value` as a time: one of the list's periods, or a bound (seenBoundsOf). */
export const isSearchTime = (value: string) => periodOf(value) !== null || seenBoundsOf("last_seen", value, 0) !== null;

/**
 * The field of IssueSearch a `key:value` token sets, and its value; null for a token that is text.
 * `key` as typed: a tag's name keeps its letter case, the list's own keys take any. A tag's token,
 * `has:`, and `level:`, `environment:` and `release:` (as the tags drawn of those names, Sentry's
 * `!level:error`) can be negated, but not `!release:latest`; only a bare value (not `quoted`) can be
 * LATEST_RELEASE.
 */
function searchField(typed: string, value: string, negated: boolean, quoted: boolean): Partial<IssueSearch> | null {
	const key = typed.toLowerCase();
	const not = negated ? { negated: true as const } : {};
	if (Object.hasOwn(HANDLED_KEYS, key)) {
		// Sentry's `error.unhandled:true` (`error.handled:false`): an event the app did not catch,
		// `handled:no`; the other way round, an event without it, as Sentry counts a message's.
		const truth = BOOLEAN_VALUES[value.toLowerCase()];
		if (truth === undefined) return null;
		const unhandled = truth !== HANDLED_KEYS[key] !== negated;
		return { tags: [{ key: "handled", value: "no", ...(!unhandled && { negated: true as const }) }] };
	}
	if (!FIELD_KEYS.has(key)) {
		if (value === "") return null;
		const tag = /^tags\[(.+)\]$/i.exec(typed)?.[1] ?? typed;
		return { tags: [{ key: tag, value, ...not }] };
	}
	if (key === "has") return value === "" ? null : { tags: [{ key: value, ...not }] };
	const latest = !quoted && value === LATEST_RELEASE;
	if (negated) {
		const drawn = (key === "level" || key === "environment" || (key === "release" && !latest)) && value !== "";
		return drawn ? { tags: [{ key, value, negated: true }] } : null;
	}
	if (key === "is") {
		const is = value.toLowerCase();
		if (is === "unhandled") return { unhandled: true };
		if (IS_SUBSTATUS.has(is)) return { substatus: is as IssueSubstatus };
		return Object.hasOwn(IS_STATUS, is) ? { status: IS_STATUS[is] } : null;
	}
	if (value === "") return null;
	if (Object.hasOwn(PERIOD_FIELDS, key)) {
		const periodKey = key as keyof typeof PERIOD_FIELDS;
		// One of the list's periods is its filter (the console shows it there); any other time a bound.
		const period = periodOf(value);
		if (period) return { [PERIOD_FIELDS[periodKey]]: period };
		const seen = seenBoundsOf(SEEN_FIELDS[periodKey], value, Date.now());
		return seen && { seen };
	}
	if (key === "timesseen") {
		const timesSeen = timesSeenOf(value);
		return timesSeen && { times_seen: timesSeen };
	}
	if (key === "release" && latest) return { release_latest: true };
	if (key === "firstrelease") return latest ? { first_release_latest: true } : { first_release: value };
	if (key === "level" || key === "environment" || key === "release") return { [key]: value };
	if (key === "user") return { user: value };
	return { user: value, user_field: key === "user.id" ? "id" : "email" };
}

/**
 * A search as a Sentry user types it: the keys the list can filter by (`is:unresolved`,
 * `is:resolved`, `is:ignored`, `is:archived`, `is:unhandled`, `level:`, `environment:`,
 * `release:`, `firstRelease:` (either `latest`, the project's newest release), `user:`, `user.id:`,
 * `user.email:`, `lastSeen:-24h`, `firstSeen:-24h` and `age:-24h` (with one of the list's periods,
 * else a bound: seenBoundsOf),
 * `has:<tag>`, any other `key:value` a tag's (`browser.name:Chrome`, `tags[level]:x` for a tag of
 * a key's name; `!` before either negates it), values quoted when they hold spaces, and the rest
 * as text (`message:x` is text too). A URL, a title such as `TypeError: x`, an `is:` or period
 * the list does not know stay text, and so do the keys of fields not in `only` when it is given.
 */
export function parseIssueSearch(q: string, only?: ReadonlySet<keyof IssueSearch>): IssueSearch {
	const search: Record<string, unknown> = {};
	// A token goes with the space before it, so the words around it stay as they were typed.
	const text = q.replace(SEARCH_TOKEN, (token, space: string, not: string, key: string, quoted: string | undefined, list: string | undefined, bare: string | undefined) => {
		// A URL (`https://…`) is text, not a tag named https.
		if (bare?.startsWith("//")) return token;
		// Sentry's `message:` is the text search by another name.
		if (!not && key.toLowerCase() === "message" && list === undefined) return `${space}${quoted ?? bare}`;
		const fields = list === undefined ? searchField(key, quoted ?? bare ?? "", not === "!", quoted !== undefined) : listField(key, list, not === "!");
		if (!fields || (only && !Object.keys(fields).every((name) => only.has(name as keyof IssueSearch)))) return token;
		// A later `user:` token replaces an earlier `user.id:` whole, field included, and a release
		// named one `latest` or the other way round; tags add up.
		if ("user" in fields) delete search.user_field;
		for (const [named, latest] of LATEST_FIELDS) {
			if (named in fields) delete search[latest];
			if (latest in fields) delete search[named];
		}
		if (fields.tags) fields.tags = [...((search.tags as TagSearch[]) ?? []), ...fields.tags];
		if (fields.seen) fields.seen = [...((search.seen as SeenBound[]) ?? []), ...fields.seen];
		Object.assign(search, fields);
		return "";
	});
	// Text quoted whole is the text inside, as Sentry's quoted search (`"Invalid quantity"`).
	const rest = text.trim().replace(/^"([^"]*)"$/, "$1").trim();
	return (rest ? { ...search, text: rest } : search) as IssueSearch;
}

/** The values of Sentry's list (`error, "a b"` between its brackets), each bare or quoted; null when one is empty. */
function listValues(list: string): string[] | null {
	// Commas outside quotes part the values (SEARCH_TOKEN lets only whole quoted values hold one).
	const parts = list.split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/).map((part) => part.trim());
	const values = parts.map((part) => /^"([^"]*)"$/.exec(part)?.[1] ?? (part.includes('"') ? "" : part));
	return values.some((value) => value === "") ? null : values;
}

/**
 * A `key:[a, b]` token's field: the key's value any of the list's, as Sentry's. `level:`,
 * `environment:` and `release:` search their drawn tags, so an issue qualifies by an event of any
 * of them; a tag's key, `tags[…]` included, as itself. Other keys take no list (null, as text;
 * searchRefusal says why).
 */
function listField(typed: string, list: string, negated: boolean): Partial<IssueSearch> | null {
	const key = typed.toLowerCase();
	const values = listValues(list);
	if (values === null || (FIELD_KEYS.has(key) && !LIST_KEYS.has(key))) return null;
	const tag = LIST_KEYS.has(key) ? key : (/^tags\[(.+)\]$/i.exec(typed)?.[1] ?? typed);
	return { tags: [{ key: tag, value: values, ...(negated && { negated: true as const }) }] };
}

/**
 * Why a search cannot be run as typed, as a phrase that follows "The search" (`uses OR or AND…`),
 * or null: Sentry's `OR` and `AND` (which Sentry's issue search refuses too: every term must
 * hold), and a list of values for a key that takes one value, or with an empty value. Read
 * as parseIssueSearch reads the search, quoted values apart.
 */
export function searchRefusal(q: string): string | null {
	const unquoted = q.replace(/"[^"]*"/g, '""');
	const operator = /(?:^|\s)(OR|AND)(?=\s|$)/.exec(unquoted)?.[1];
	if (operator) {
		return `uses ${operator}, which an issue search does not take (nor does Sentry's): every term must hold. For any of several values of one key, list them: level:[error, fatal]`;
	}
	for (const [token, , , key, , list] of q.matchAll(SEARCH_TOKEN)) {
		if (list === undefined) continue;
		const lower = key.toLowerCase();
		if (FIELD_KEYS.has(lower) && !LIST_KEYS.has(lower)) return `gives ${key}: a list (${token.trim()}): only level:, environment:, release: and tags take one`;
		if (listValues(list) === null) return `has a list with an empty value (${token.trim()}): name a value between each comma`;
	}
	return null;
}

/** Whether the search names the project's newest release (`release:latest`, `firstRelease:latest`). */
export const namesNewestRelease = (search: IssueSearch) => LATEST_FIELDS.some(([, latest]) => search[latest]);

/** The search with the project's newest release, by its name, where it names the newest (namesNewestRelease). */
export function withNewestRelease(search: IssueSearch, newest: string): IssueSearch {
	const { release_latest, first_release_latest, ...named } = search;
	return { ...named, ...(release_latest && { release: newest }), ...(first_release_latest && { first_release: newest }) };
}

/** What a search of one issue's events asks (its page's `q`): the tag values its events carried, a user, text. */
export interface EventSearch {
	/** Each to hold for an event, as the list's tag search; `level:`, `environment:`, `release:` and `is:unhandled` among them. */
	tags: TagSearch[];
	user?: string;
	user_field?: UserField;
	/** Text to find in the event's message or exception, or its own id. */
	text?: string;
}

/**
 * The fields of a search that ask about an issue as a whole (`is:resolved`, `lastSeen:-24h`), not
 * about its events: the statuses and substatuses of IS_VALUES, the issue's first release, its
 * count (`timesSeen:`) and the fields of PERIOD_KEYS (`seen` among them).
 */
export const ISSUE_ONLY_FIELDS = ["status", "substatus", "first_release", "first_release_latest", "times_seen", "seen", ...new Set(Object.values(PERIOD_FIELDS))] as const;

/**
 * A search of the list read as one of an issue's events: the list's own keys that are tags an
 * event carries (`level:`, `environment:`, `release:`; `is:unhandled` as Sentry's `handled:no`)
 * join the tags. The keys of ISSUE_ONLY_FIELDS have no meaning for one event and are left out:
 * the caller refuses a search that holds them. `release:latest` is named first (withNewestRelease).
 */
export function eventSearchOf(search: IssueSearch): EventSearch {
	const { tags = [], unhandled, level, environment, release, user, user_field, text } = search;
	const drawn = Object.entries({ level, environment, release }).flatMap(([key, value]) => (value === undefined ? [] : [{ key, value }]));
	return {
		tags: [...(unhandled ? [{ key: "handled", value: "no" }] : []), ...drawn, ...tags],
		...(user !== undefined && { user }),
		...(user_field !== undefined && { user_field }),
		...(text !== undefined && { text }),
	};
}

/**
 * The search token that finds the issues with a tag's value (`browser.name:Chrome`,
 * `tags[level]:error`, `plan:"pro team"`), as parseIssueSearch reads it back; null for a value a
 * search cannot hold (a double quote) or a key it cannot name.
 */
export function tagSearchToken(key: string, value: string): string | null {
	const name = tagKeyName(key);
	if (value === "" || value.includes('"') || name === null) return null;
	return `${name}:${searchValue(value)}`;
}

/** How a search names a tag: as itself, in `tags[…]` when it reads as one of the list's keys (or is not a plain name); null when it cannot. */
export function tagKeyName(key: string): string | null {
	if (/^[a-z][\w.-]*$/i.test(key) && !FIELD_KEYS.has(key.toLowerCase())) return key;
	return key === "" || /[\]\s]/.test(key) ? null : `tags[${key}]`;
}

/**
 * A value as a search token holds it: quoted when it has spaces, starts as a URL does without its
 * scheme, or is LATEST_RELEASE (bare, a release key's value is the newest release, not that name).
 */
export const searchValue = (value: string) => (/\s/.test(value) || value.startsWith("//") || value === LATEST_RELEASE ? `"${value}"` : value);
