/** Log issues as the owner reads them (docs/api.md#log-issues-owner). Dependency-free: the console bundles it. */
import type { LogEvent } from "../logs/logEvent";
import type { FeedbackStatus, FeedbackType } from "../feedback/typesAndStatuses";

/**
 * An event's own id as stored (Sentry's `event_id`): 32 lower-case hex digits, from hex of any
 * case with or without a UUID's dashes; null for anything else, the nil UUID included (no event's
 * id: `sentry-cli send-event --raw` puts it on every envelope it sends).
 */
export function clientEventIdOf(value: unknown): string | null {
	const hex = typeof value === "string" ? value.replaceAll("-", "").toLowerCase() : "";
	return /^[0-9a-f]{32}$/.test(hex) && !/^0{32}$/.test(hex) ? hex : null;
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

/**
 * What a status change holds beyond the status (Sentry's statusDetails): how long ignoring lasts,
 * or, resolving, that the fix ships in the next release or in a release named.
 */
export interface StatusDetails extends IgnoreCondition {
	/** Resolved in the release after the one resolving records: that release's events do not reopen it either. */
	inNextRelease?: boolean;
	/** Resolved in this release, one the project has sent, in place of the one resolving records (Sentry's "Another existing release"). */
	inRelease?: string;
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

/** Orders of the issue list: most recently seen, newest, most events, most people affected (Sentry's sorts). */
export const ISSUE_SORTS = ["last_seen", "first_seen", "count", "users"] as const;
export type IssueSort = (typeof ISSUE_SORTS)[number];

export interface IssueView {
	group_hash: string;
	/** Sentry's short id (`MY-APP-1A`, docs/api.md#short-ids); null for an issue stored before short ids until its project's object numbers it. */
	short_id: string | null;
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

/** Feedback a user gave about one of the issue's events (Sentry's user feedback, its `associated_event_id`), as the issue page lists it. */
export interface IssueFeedbackView {
	id: string;
	type: FeedbackType;
	status: FeedbackStatus;
	/** Its `title` field; null without one. */
	title: string | null;
	/** The issue's event it was given about, as the SDK gave its id. */
	event_id: string;
	created_at: string;
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
	| { kind: "unmerged_from"; group_hash: string }
	/** A note the owner left on it (Sentry's comment). */
	| { kind: "note"; text: string };

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
