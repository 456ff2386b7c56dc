/** Log issues as the owner reads them (docs/api.md#log-issues-owner). Dependency-free: the console bundles it. */
import type { LogEvent } from "../logs/logEvent";

/**
 * An event's own id as stored (Sentry's `event_id`): 32 lower-case hex digits, from hex of any
 * case with or without a UUID's dashes; null for anything else.
 */
export function clientEventIdOf(value: unknown): string | null {
	const hex = typeof value === "string" ? value.replaceAll("-", "").toLowerCase() : "";
	return /^[0-9a-f]{32}$/.test(hex) ? hex : null;
}

/**
 * Whether the app caught the event's error, as Sentry's `handled` tag says it: "no" when an
 * exception of the chain says `handled: false` (the SDK's global handler reported it: Sentry's
 * "Unhandled"), "yes" when one says it was handled and none says otherwise.
 */
export function handledOf(event: Pick<LogEvent, "exception" | "chained_exceptions">): "yes" | "no" | undefined {
	const flags = [event.exception, ...(event.chained_exceptions ?? [])].map((exception) => exception?.mechanism?.handled);
	return flags.includes(false) ? "no" : flags.includes(true) ? "yes" : undefined;
}

export const ISSUE_STATUSES = ["open", "resolved", "ignored"] as const;
export type IssueStatus = (typeof ISSUE_STATUSES)[number];
/** How an open issue came to be open, as Sentry's substatuses of an unresolved issue say. */
export type IssueSubstatus = "regressed" | "escalating";
/** An escalated issue shows as escalating this long (Sentry's: then it is ongoing). */
export const ESCALATING_FOR_MS = 7 * 86_400_000;

/** The issue list's periods, as Sentry's issue stream offers them: issues last seen within so long before now. */
export const ISSUE_PERIODS = { "1h": 3_600_000, "24h": 86_400_000, "7d": 7 * 86_400_000, "14d": 14 * 86_400_000, "30d": 30 * 86_400_000, "90d": 90 * 86_400_000 } as const;
export type IssuePeriod = keyof typeof ISSUE_PERIODS;

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
	/** Tags an event of the issue carried with these values (Sentry's `browser.name:Chrome`), all of them. */
	tags?: TagSearch[];
	/** What is left: text to find in the title or culprit, or an issue's hash or event id. */
	text?: string;
}

/**
 * A tag and the value searched: as its events carried it, or with `*` for any text
 * (`url:*checkout*`); any value when absent (Sentry's `has:url`). Negated (`!browser.name:Chrome`,
 * `!has:user`), as Sentry's: the issues with an event that did not carry it.
 */
export interface TagSearch {
	key: string;
	value?: string;
	negated?: true;
}

export type UserField = "id" | "email";

/**
 * What a status change holds beyond the status (Sentry's statusDetails): how long ignoring lasts,
 * or, resolving, that the fix ships in the next release.
 */
export interface StatusDetails extends IgnoreCondition {
	/** Resolved in the release after the one resolving records: that release's events do not reopen it either. */
	inNextRelease?: boolean;
}

/**
 * How long an ignored issue stays ignored (Sentry's ignore options): for `minutes`, until `events`
 * more, until `users` more are affected, or until it is `escalating` (Sentry's default archive);
 * forever when none.
 */
export interface IgnoreCondition {
	minutes?: number;
	events?: number;
	users?: number;
	escalating?: boolean;
}

/** Sentry's `is:` values the list can answer, as statuses (Sentry's newer UI says archived for ignored). */
const IS_STATUS: Readonly<Record<string, IssueStatus>> = { unresolved: "open", resolved: "resolved", ignored: "ignored", archived: "ignored" };
// A key is a tag's name (letters, digits, `_`, `.`, `-`) or one in Sentry's `tags[…]` form; `!` negates a tag's.
const SEARCH_TOKEN = /(^|\s)(!?)(tags\[[^\]\s]+\]|[a-z][\w.-]*):(?:"([^"]*)"|(\S+))(?=\s|$)/gi;
/** Sentry's period keys, lower-cased: `lastSeen:` is the list's period, `firstSeen:` and `age:` its first seen period. */
const PERIOD_FIELDS = { lastseen: "period", firstseen: "first_seen_period", age: "first_seen_period" } as const satisfies Record<string, keyof IssueSearch>;
export const PERIOD_KEYS: ReadonlySet<string> = new Set(Object.keys(PERIOD_FIELDS));
const IS_SUBSTATUS: ReadonlySet<string> = new Set<IssueSubstatus>(["regressed", "escalating"]);
/** `is:` values: the statuses and substatuses, which ask about an issue as a whole, and `unhandled`, which an event can be. */
export const IS_VALUES = [...Object.keys(IS_STATUS), ...IS_SUBSTATUS, "unhandled"];
export const FIELD_KEYS: ReadonlySet<string> = new Set(["is", "has", "message", "level", "environment", "release", "firstrelease", "user", "user.id", "user.email", ...PERIOD_KEYS]);
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
 * The field of IssueSearch a `key:value` token sets, and its value; null for a token that is text.
 * `key` as typed: a tag's name keeps its letter case, the list's own keys take any. A tag's token,
 * `has:`, and `level:`, `environment:` and `release:` (as the tags drawn of those names, Sentry's
 * `!level:error`) can be negated, but not `!release:latest`; only a bare value (not `quoted`) can be
 * LATEST_RELEASE.
 */
function searchField(typed: string, value: string, negated: boolean, quoted: boolean): Partial<IssueSearch> | null {
	const key = typed.toLowerCase();
	const not = negated ? { negated: true as const } : {};
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
		const period = periodOf(value);
		return period && { [PERIOD_FIELDS[key as keyof typeof PERIOD_FIELDS]]: period };
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
 * `user.email:`, `lastSeen:-24h`, `firstSeen:-24h` and `age:-24h` with one of the list's periods),
 * `has:<tag>`, any other `key:value` a tag's (`browser.name:Chrome`, `tags[level]:x` for a tag of
 * a key's name; `!` before either negates it), values quoted when they hold spaces, and the rest
 * as text (`message:x` is text too). A URL, a title such as `TypeError: x`, an `is:` or period
 * the list does not know stay text, and so do the keys of fields not in `only` when it is given.
 */
export function parseIssueSearch(q: string, only?: ReadonlySet<keyof IssueSearch>): IssueSearch {
	const search: Record<string, unknown> = {};
	// A token goes with the space before it, so the words around it stay as they were typed.
	const text = q.replace(SEARCH_TOKEN, (token, space: string, not: string, key: string, quoted: string | undefined, bare: string | undefined) => {
		// A URL (`https://…`) is text, not a tag named https.
		if (bare?.startsWith("//")) return token;
		// Sentry's `message:` is the text search by another name.
		if (!not && key.toLowerCase() === "message") return `${space}${quoted ?? bare}`;
		const fields = searchField(key, quoted ?? bare ?? "", not === "!", quoted !== undefined);
		if (!fields || (only && !Object.keys(fields).every((name) => only.has(name as keyof IssueSearch)))) return token;
		// A later `user:` token replaces an earlier `user.id:` whole, field included, and a release
		// named one `latest` or the other way round; tags add up.
		if ("user" in fields) delete search.user_field;
		for (const [named, latest] of LATEST_FIELDS) {
			if (named in fields) delete search[latest];
			if (latest in fields) delete search[named];
		}
		if (fields.tags) fields.tags = [...((search.tags as TagSearch[]) ?? []), ...fields.tags];
		Object.assign(search, fields);
		return "";
	});
	const rest = text.trim();
	return (rest ? { ...search, text: rest } : search) as IssueSearch;
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
 * about its events: the statuses and substatuses of IS_VALUES, the issue's first release and the
 * fields of PERIOD_KEYS.
 */
export const ISSUE_ONLY_FIELDS = ["status", "substatus", "first_release", "first_release_latest", ...new Set(Object.values(PERIOD_FIELDS))] as const;

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

/** Orders of the issue list: most recently seen, newest, most events, most people affected (Sentry's sorts). */
export const ISSUE_SORTS = ["last_seen", "first_seen", "count", "users"] as const;
export type IssueSort = (typeof ISSUE_SORTS)[number];

export interface IssueView {
	group_hash: string;
	title: string;
	culprit: string | null;
	level: string;
	status: IssueStatus;
	count: number;
	users: number;
	first_seen: string;
	last_seen: string;
	environments: string[];
	releases: string[];
	/** The project's newest release when the issue was resolved; on an open issue, a regression. */
	resolved_in_release: string | null;
	/** Resolved in the release after `resolved_in_release`, whose events do not reopen it either; absent otherwise. */
	resolved_in_next_release?: true;
	/** An event of the issue was unhandled (`handledOf` says "no"): once set, never cleared. */
	unhandled: boolean;
	/** An ignored issue's first event from this time on reopens it; absent unless it was ignored for a while. */
	ignored_until?: string;
	/** An ignored issue reopens at the event that brings its count (in all environments) to this; absent unless it was ignored until a count. */
	ignored_until_count?: number;
	/** An ignored issue reopens at the event that brings its affected users (in all environments) to this; absent unless it was ignored until so many. */
	ignored_until_users?: number;
	/** An ignored issue reopens at the event that takes its events of one hour past this many; absent unless it was ignored until escalating. */
	ignored_until_escalating?: { events_per_hour: number };
	/** When an event of the issue, ignored until escalating, reopened it; absent after the owner's next status change. */
	escalated_at?: string;
}

/** An issue in the list, with its events per hour over the last 24 hours (oldest first). */
interface IssueListItemView extends IssueView {
	last_24h: number[];
}

/**
 * A page of the list (`limit` issues, 1,000 by default); `next_cursor` reads the next page in the
 * same sort and is null on the last.
 */
export interface IssuePageView {
	issues: IssueListItemView[];
	next_cursor: string | null;
	/**
	 * With a search naming `release:latest` or `firstRelease:latest` only: the release `latest`
	 * stood for, the project's newest (null when it has sent none).
	 */
	latest_release?: string | null;
}

/** What the list's environment and release filters can take: environments by name, releases newest first. */
export interface IssueFilterValuesView {
	environments: string[];
	releases: string[];
}

/** A stored event with its id and the time it was received. */
export type IssueEventView = LogEvent & { id: string; received_at: string };

/** One tag of an issue's events: how many carry it, how many values it takes, and its most common ones. */
export interface IssueTagView {
	key: string;
	/** Events of those counted that carry the tag. */
	total: number;
	/** Distinct values among them. */
	distinct: number;
	/** The most common values, most events first (ties by value). */
	values: Array<{ value: string; count: number }>;
}

/**
 * GET /api/issues/:group_hash/tags: the tags of the issue's events, `events` of them (those kept:
 * a value none of whose events is kept any more is not counted).
 */
export interface IssueTagsView {
	events: number;
	tags: IssueTagView[];
}

/** What ends an ignored issue's ignoring, as the issue carries it (IssueView's `ignored_until…`); none when nothing does. */
export function ignoreConditionView(issue: {
	ignoredUntil: Date | number | null;
	ignoredUntilCount: number | null;
	ignoredUntilUsers: number | null;
	ignoredUntilEscalating: number | null;
}): Pick<IssueView, "ignored_until" | "ignored_until_count" | "ignored_until_users" | "ignored_until_escalating"> {
	return {
		...(issue.ignoredUntil !== null && { ignored_until: new Date(issue.ignoredUntil).toISOString() }),
		...(issue.ignoredUntilCount !== null && { ignored_until_count: issue.ignoredUntilCount }),
		...(issue.ignoredUntilUsers !== null && { ignored_until_users: issue.ignoredUntilUsers }),
		...(issue.ignoredUntilEscalating !== null && { ignored_until_escalating: { events_per_hour: issue.ignoredUntilEscalating } }),
	};
}

/** What the owner did to an issue, or what its events did to its status (Sentry's activity). */
export type IssueActivity =
	/** Resolved by the owner, in the release it records (null: any event reopens it), or in the one after it. */
	| { kind: "resolved"; release: string | null; in_next_release?: true }
	/** Ignored by the owner, with what ends it, as the issue carried it then (none: for good). */
	| ({ kind: "ignored" } & Pick<IssueView, "ignored_until" | "ignored_until_count" | "ignored_until_users" | "ignored_until_escalating">)
	/** Reopened by the owner. */
	| { kind: "reopened" }
	/** A resolved issue's event reopened it, from this release (null: none). */
	| { kind: "regressed"; release: string | null }
	/** An event ended its ignoring: its time was up, or it reached the count or the users. */
	| { kind: "ignore_ended"; by: "time" | "events" | "users" }
	/** An event took its events of one hour past its escalating limit: open again. */
	| { kind: "escalated"; events_per_hour: number }
	/** The owner merged so many other issues into it. */
	| { kind: "merged"; issues: number }
	/** The owner unmerged so many fingerprints from it: their events went back to issues of their own. */
	| { kind: "unmerged"; issues: number }
	/** Opened again by an unmerge, with its events, from the issue it had been merged into. */
	| { kind: "unmerged_from"; group_hash: string };

/** A fingerprint merged into an issue (GET /api/issues/:group_hash/merged): the issue it opens, and its events the issue holds. */
export interface MergedFingerprintView {
	/** The hash of the issue its events opened, and open again once it is unmerged. */
	group_hash: string;
	/** Its events the issue holds (those past the log retention gone). */
	events: number;
	/** Its latest event kept: when it happened, its title and id; null when none is kept. */
	last_seen: string | null;
	title: string | null;
	latest_event_id: string | null;
}

/** An unmerge's answer: the issue left, counted again, and the issues the fingerprints opened again (none for one with no event kept). */
export interface UnmergeView {
	issue: IssueView;
	unmerged: IssueView[];
}

/** An entry of an issue's activity, with when it happened. */
export type IssueActivityView = IssueActivity & { at: string };

export interface IssueDetailView extends IssueView {
	/** The environment asked for: then count, users, first and last seen, the events and the counts are that environment's alone. */
	environment?: string;
	/** The newest 100, newest first; with a search, the newest 100 of those that match it. */
	events: IssueEventView[];
	/**
	 * With a search (`q`): how many of the issue's latest events (in `environment`; at most
	 * 10,000) it read, and how many of them match. The figures and counts stay the issue's.
	 */
	event_search?: { searched: number; matched: number };
	/** The release of its earliest and of its latest event kept (Sentry's "first seen in", "last seen in"); null when they carried none. */
	first_release: string | null;
	last_release: string | null;
	/** 24 entries, oldest hour first; the last is the current hour. */
	hourly_counts: Array<{ hour: string; count: number }>;
	/** 30 entries, oldest UTC day first; the last is today. */
	daily_counts: Array<{ day: string; count: number }>;
	/** Its activity, newest first: the newest 100 entries. */
	activity: IssueActivityView[];
}
