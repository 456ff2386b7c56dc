/**
 * A ProjectCollector's issues in its SQLite: their rows with what is held of them in memory, who
 * they affected, and how an issue row becomes the snapshot D1 is given (docs/data-model.md#projectcollector).
 */
import { HOUR_MS } from "../domain/analytics/rollups";
import { type IssueActivity, type IssueStatus, ignoreConditionView, type StatusDetails } from "../domain/api/issues";
import { type Escalation, escalatingLimitAt } from "../domain/logs/escalation";
import type { IssueSnapshot } from "../domain/logs/logStore";
import { IssueActivityLog } from "./issueActivity";
import { KnownMembers } from "./knownMembers";
import type { LogEventCommand } from "./projectCommands";
import { ProjectReleases } from "./projectReleases";
import { SHORT_IDS_GIVEN } from "./projectSchema";

/** Distinct environments and releases remembered per issue. */
const MAX_NAMES_PER_ISSUE = 100;
/** What grouping an event into a known issue needs of its row: the rest it changes in place. */
export type GroupState = Pick<
	GroupRow,
	| "status"
	| "resolved_in_release"
	| "resolved_in_next_release"
	| "environments"
	| "releases"
	| "count"
	| "users"
	| "ignored_until"
	| "ignored_until_count"
	| "ignored_until_users"
	| "ignored_until_escalating"
	| "escalation_hour"
	| "escalation_events"
>;

export interface GroupRow extends Record<string, SqlStorageValue> {
	hash: string;
	title: string;
	culprit: string | null;
	level: string;
	status: IssueStatus;
	count: number;
	users: number;
	/** When its earliest and its latest event happened (LogEventCommand.timestamp), not when they came. */
	first_seen: number;
	last_seen: number;
	environments: string;
	releases: string;
	resolved_in_release: string | null;
	/** 1 when resolved in the release after `resolved_in_release` (its events do not reopen the issue either). */
	resolved_in_next_release: number;
	/** 1 once an event of the issue was unhandled (LogEventCommand.unhandled); never cleared. */
	unhandled: number;
	/**
	 * An ignored issue reopens at its first event from this time on (ms), or at the event that
	 * brings its count to `ignored_until_count`, or its affected users to `ignored_until_users`, or
	 * its events of one hour past `ignored_until_escalating` (Escalation: the latest hour its events
	 * were in, since 1970, and how many it holds).
	 */
	ignored_until: number | null;
	ignored_until_count: number | null;
	ignored_until_users: number | null;
	ignored_until_escalating: number | null;
	escalation_hour: number | null;
	escalation_events: number | null;
	/** When `ignored_until_escalating` was drawn (ms): it is drawn again ESCALATION_REDRAW_MS later; null for one drawn before this was kept. */
	escalation_drawn_at: number | null;
	/** When an escalation reopened it (ms); cleared by the owner's next status change. */
	escalated_at: number | null;
	/** Its number in the project (domain/logs/shortId.ts), given as it opened. */
	short_id: number | null;
	version: number;
}

/** Adds a name to a JSON list of at most MAX_NAMES_PER_ISSUE distinct names. */
export function withName(listJson: string, name: string | null): string {
	if (!name) return listJson;
	const names = JSON.parse(listJson) as string[];
	if (names.includes(name) || names.length >= MAX_NAMES_PER_ISSUE) return listJson;
	names.push(name);
	return JSON.stringify(names);
}

export function toSnapshot(g: GroupRow): IssueSnapshot {
	return {
		groupHash: g.hash,
		title: g.title,
		culprit: g.culprit,
		level: g.level,
		status: g.status,
		count: g.count,
		users: g.users,
		firstSeen: g.first_seen,
		lastSeen: g.last_seen,
		environments: JSON.parse(g.environments) as string[],
		releases: JSON.parse(g.releases) as string[],
		resolvedInRelease: g.resolved_in_release,
		resolvedInNextRelease: g.resolved_in_next_release === 1,
		unhandled: g.unhandled === 1,
		ignoredUntil: g.ignored_until,
		ignoredUntilCount: g.ignored_until_count,
		ignoredUntilUsers: g.ignored_until_users,
		ignoredUntilEscalating: g.ignored_until_escalating,
		escalatedAt: g.escalated_at,
		shortId: g.short_id,
	};
}

/** The owner's status change, as the issue's activity notes it. */
function statusActivity(issue: IssueSnapshot): IssueActivity {
	if (issue.status === "resolved") return { kind: "resolved", release: issue.resolvedInRelease, ...(issue.resolvedInNextRelease && { in_next_release: true as const }) };
	return issue.status === "open" ? { kind: "reopened" } : { kind: "ignored", ...ignoreConditionView(issue) };
}

/**
 * An event of an issue ignored until escalating, counted in the latest hour its events were in
 * (`hour`, holding `events`): an event of a later hour starts that one, of an earlier hour (sent
 * late) counts in none. The hour and its events after it.
 */
function countedInHour(timestamp: number, hour: number, events: number): [hour: number, events: number] {
	const eventHour = Math.floor(timestamp / HOUR_MS);
	if (eventHour > hour) return [eventHour, 1];
	return eventHour === hour ? [hour, events + 1] : [hour, events];
}

/** Issues whose grouping state is held in memory, least recently seen out first. */
const GROUPS_HELD = 1_000;
/**
 * The issues' rows, affected users and releases in the object's SQLite, with what is known of them
 * held in memory so an event of a known issue, from a known user, of a known release, costs no
 * read. Ingestion keeps memory in step; anything else that changes the tables (a status change,
 * the clean-up, a rolled-back transaction) calls `drop` or `forget`.
 */
export class IssueGroups {
	readonly #sql: SqlStorage;
	/** The grouping state of recently seen issues as `groups` holds it. */
	readonly #held = new Map<string, GroupState>();
	/** `<group hash><user>` pairs known to be in `group_users`. */
	readonly #knownUsers = new KnownMembers();
	/** The project's releases, in order: what resolving records, and which event is a regression. */
	readonly releases: ProjectReleases;
	/** What the owner and the events did to each issue's status. */
	readonly activity: IssueActivityLog;

	constructor(sql: SqlStorage) {
		this.#sql = sql;
		this.releases = new ProjectReleases(sql);
		this.activity = new IssueActivityLog(sql);
	}

	/** The number of the next issue to open (domain/logs/shortId.ts): one more than the last given; part of the transaction that opens it. */
	nextShortId(): number {
		const given = this.#sql.exec<{ value: string }>(
			`INSERT INTO meta (key, value) VALUES (?1, 1) ON CONFLICT (key) DO UPDATE SET value = value + 1 RETURNING value`,
			SHORT_IDS_GIVEN,
		);
		return Number(given.one().value);
	}

	row(hash: string): GroupRow | null {
		return this.#sql.exec<GroupRow>(`SELECT * FROM groups WHERE hash = ?`, hash).toArray()[0] ?? null;
	}

	/** The issue's grouping state, from memory when it was seen lately; null when there is no such issue. */
	state(hash: string): GroupState | null {
		const held = this.#held.get(hash);
		if (held) return held;
		const row = this.#sql
			.exec<GroupState>(
				`SELECT status, resolved_in_release, resolved_in_next_release, environments, releases, count, users, ignored_until, ignored_until_count, ignored_until_users,
				 ignored_until_escalating, escalation_hour, escalation_events FROM groups WHERE hash = ?`,
				hash,
			)
			.toArray()[0];
		return row ?? null;
	}

	/** The state ingestion just wrote for the issue. */
	#hold(hash: string, state: GroupState): void {
		this.#held.delete(hash);
		this.#held.set(hash, state);
		if (this.#held.size > GROUPS_HELD) this.#held.delete(this.#held.keys().next().value as string);
	}

	/**
	 * Counts an accepted event into its issue: a new row when `group` (the issue's state before it)
	 * is null, else the row's counters, names and status; the release and the affected user noted.
	 * What the event did to the issue's status, as its activity notes it (the one place that decides
	 * it; issue alerts go by it too); null when nothing.
	 */
	record(c: LogEventCommand, group: GroupState | null): IssueActivity | null {
		if (c.release) this.releases.note(c.release);
		const isNewUser = c.userKey !== null && this.noteUser(c.groupHash, c.userKey);
		const environments = group ? withName(group.environments, c.environment) : JSON.stringify(c.environment ? [c.environment] : []);
		const releases = group ? withName(group.releases, c.release) : JSON.stringify(c.release ? [c.release] : []);

		if (!group) {
			this.#sql.exec(
				`INSERT INTO groups (hash, title, culprit, level, count, users, first_seen, last_seen, environments, releases, unhandled, short_id)
				 VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?)`,
				c.groupHash,
				c.title,
				c.culprit,
				c.level,
				isNewUser ? 1 : 0,
				c.timestamp,
				c.timestamp,
				environments,
				releases,
				c.unhandled ? 1 : 0,
				this.nextShortId(),
			);
			this.#hold(c.groupHash, {
				status: "open",
				resolved_in_release: null,
				resolved_in_next_release: 0,
				environments,
				releases,
				count: 1,
				users: isNewUser ? 1 : 0,
				ignored_until: null,
				ignored_until_count: null,
				ignored_until_users: null,
				ignored_until_escalating: null,
				escalation_hour: null,
				escalation_events: null,
			});
			return null;
		}
		let { status, resolved_in_release: resolvedIn, ignored_until: ignoredUntil, ignored_until_count: ignoredUntilCount, ignored_until_users: ignoredUntilUsers } = group;
		let { ignored_until_escalating: escalatingAbove, escalation_hour: escalationHour, escalation_events: escalationEvents } = group;
		if (escalatingAbove !== null) [escalationHour, escalationEvents] = countedInHour(c.timestamp, escalationHour ?? 0, escalationEvents ?? 0);
		const count = group.count + 1;
		const users = group.users + (isNewUser ? 1 : 0);
		// A regression: a resolved issue seen again reopens, unless the event comes from an older
		// release than the one it was resolved in (an old client still running), or from that one
		// when resolved in the next. It keeps the release it was resolved in, which is how an open
		// issue shows it came back.
		let reopened: IssueActivity | null = null;
		if (status === "resolved" && !(c.release && resolvedIn && this.#fixedLater(c.release, resolvedIn, group.resolved_in_next_release === 1))) {
			status = "open";
			reopened = { kind: "regressed", release: c.release };
		}
		// Ignored for a while, until it occurs so many times or affects so many people, or until it
		// escalates: the event that ends it reopens it.
		if (status === "ignored") {
			if (ignoredUntil !== null && c.receivedAt >= ignoredUntil) reopened = { kind: "ignore_ended", by: "time" };
			else if (ignoredUntilCount !== null && count >= ignoredUntilCount) reopened = { kind: "ignore_ended", by: "events" };
			else if (ignoredUntilUsers !== null && users >= ignoredUntilUsers) reopened = { kind: "ignore_ended", by: "users" };
			else if (escalatingAbove !== null && (escalationEvents ?? 0) > escalatingAbove) reopened = { kind: "escalated", events_per_hour: escalatingAbove };
		}
		if (reopened) {
			status = "open";
			ignoredUntil = ignoredUntilCount = ignoredUntilUsers = escalatingAbove = escalationHour = escalationEvents = null;
			this.activity.note(c.groupHash, c.receivedAt, reopened);
			this.#sql.exec(`UPDATE groups SET escalated_at = ? WHERE hash = ?`, reopened.kind === "escalated" ? c.receivedAt : null, c.groupHash);
		}
		this.#sql.exec(
			`UPDATE groups SET title = ?, culprit = ?, level = ?, status = ?, resolved_in_release = ?, ignored_until = ?, ignored_until_count = ?,
			 ignored_until_users = ?, ignored_until_escalating = ?, escalation_hour = ?, escalation_events = ?, count = ?, users = users + ?,
			 last_seen = max(last_seen, ?), first_seen = min(first_seen, ?), environments = ?, releases = ?, unhandled = max(unhandled, ?),
			 version = version + 1 WHERE hash = ?`,
			c.title,
			c.culprit,
			c.level,
			status,
			resolvedIn,
			ignoredUntil,
			ignoredUntilCount,
			ignoredUntilUsers,
			escalatingAbove,
			escalationHour,
			escalationEvents,
			count,
			isNewUser ? 1 : 0,
			c.timestamp,
			c.timestamp,
			environments,
			releases,
			c.unhandled ? 1 : 0,
			c.groupHash,
		);
		this.#hold(c.groupHash, {
			status,
			resolved_in_release: resolvedIn,
			resolved_in_next_release: group.resolved_in_next_release,
			environments,
			releases,
			count,
			users,
			ignored_until: ignoredUntil,
			ignored_until_count: ignoredUntilCount,
			ignored_until_users: ignoredUntilUsers,
			ignored_until_escalating: escalatingAbove,
			escalation_hour: escalationHour,
			escalation_events: escalationEvents,
		});
		return reopened;
	}

	/** Whether an event of `release` comes from before the fix of an issue resolved in `resolvedIn` (or in the next, `inNext`). */
	#fixedLater(release: string, resolvedIn: string, inNext: boolean): boolean {
		return this.releases.isOlder(release, resolvedIn) || (inNext && release === resolvedIn);
	}

	/** The environments the issue holds (its first 100); none when there is no such issue. */
	environmentsOf(hash: string): string[] {
		const state = this.state(hash);
		return state ? (JSON.parse(state.environments) as string[]) : [];
	}

	/** Deletes the issues last seen before `cutoff`, with who they affected, in all environments and in each; then call `forget`. */
	deleteBefore(cutoff: number): void {
		this.activity.deleteOfIssuesBefore(cutoff);
		for (const table of ["group_users", "group_environment_users"]) {
			this.#sql.exec(`DELETE FROM ${table} WHERE hash IN (SELECT hash FROM groups WHERE last_seen < ?)`, cutoff);
		}
		this.#sql.exec(`DELETE FROM groups WHERE last_seen < ?`, cutoff);
	}

	/** Deletes the issue, with who it affected, in all environments and in each; then call `forget`. */
	delete(hash: string): void {
		this.activity.delete(hash);
		for (const table of ["group_users", "group_environment_users", "groups"]) this.#sql.exec(`DELETE FROM ${table} WHERE hash = ?`, hash);
	}

	/**
	 * Sets an issue's status; resolving records the release it was resolved in (`details.inRelease`,
	 * else resolutionRelease's; or that it is the next one, `details.inNextRelease`), ignoring the end `details` gives it (a time, the count of `events` more, of `users` more, or escalating, from `hourly`:
	 * the issue's events per hour of the ESCALATION_HOURS up to `now`). The row as changed; null when
	 * there is no such issue.
	 */
	setStatus(hash: string, status: IssueStatus, details: StatusDetails = {}, hourly: number[] = [], now = Date.now()): GroupRow | null {
		const group = this.row(hash);
		if (!group) return null;
		const noted = statusActivity(toSnapshot(group));
		const resolvedIn = status === "resolved" ? (details.inRelease ?? this.releases.resolutionRelease(JSON.parse(group.releases))) : null;
		// In the next release: only an issue seen in a release has one after it.
		const inNextRelease = resolvedIn !== null && details.inNextRelease === true;
		const ignored = status === "ignored";
		const until = ignored && details.minutes !== undefined ? now + details.minutes * 60_000 : null;
		const untilCount = ignored && details.events !== undefined ? group.count + details.events : null;
		const untilUsers = ignored && details.users !== undefined ? group.users + details.users : null;
		const escalation: Escalation | null =
			ignored && details.escalating ? { limit: escalatingLimitAt(group.first_seen, hourly, now), hour: Math.floor(now / HOUR_MS), events: hourly.at(-1) ?? 0 } : null;
		this.#sql.exec(
			`UPDATE groups SET status = ?, resolved_in_release = ?, resolved_in_next_release = ?, ignored_until = ?, ignored_until_count = ?, ignored_until_users = ?,
			 ignored_until_escalating = ?, escalation_hour = ?, escalation_events = ?, escalation_drawn_at = ?, escalated_at = NULL, version = version + 1 WHERE hash = ?`,
			status,
			resolvedIn,
			inNextRelease ? 1 : 0,
			until,
			untilCount,
			untilUsers,
			escalation?.limit ?? null,
			escalation?.hour ?? null,
			escalation?.events ?? null,
			escalation ? now : null,
			hash,
		);
		this.drop(hash);
		const changed = this.row(hash) as GroupRow;
		const activity = statusActivity(toSnapshot(changed));
		// The status it had, on the same terms (an open issue opened again), is no change to note.
		if (JSON.stringify(activity) !== JSON.stringify(noted)) this.activity.note(hash, now, activity);
		return changed;
	}

	/** Raises the issue's unhandled flag where D1 already holds it: no change to move there. */
	markUnhandled(hash: string): void {
		this.#sql.exec(`UPDATE groups SET unhandled = 1 WHERE hash = ?`, hash);
		this.drop(hash);
	}

	/** The issue's row changed other than through ingestion. */
	drop(hash: string): void {
		this.#held.delete(hash);
	}

	/** The tables changed other than through ingestion, or a transaction rolled back. */
	forget(): void {
		this.#held.clear();
		this.#knownUsers.clear();
		this.releases.forget();
	}

	/** Records that `user` was affected by the issue; true when that is new. */
	noteUser(hash: string, user: string): boolean {
		const pair = hash + user;
		if (this.#knownUsers.has(pair)) return false;
		const isNew = this.#sql.exec(`INSERT OR IGNORE INTO group_users (hash, user) VALUES (?, ?)`, hash, user).rowsWritten > 0;
		this.#knownUsers.add(pair);
		return isNew;
	}
}
