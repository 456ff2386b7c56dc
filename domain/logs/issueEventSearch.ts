/**
 * One issue's events that match a search (Sentry's search on an issue's events: `browser.name:Chrome`,
 * `!has:user`, text): its latest events, at most OWNER_LIMITS.issueEventSearch of them, read newest
 * first and matched one by one. An event's tags are not indexed one by one (log_issue_tags counts
 * them per issue), so the search reads each event's document: the bound keeps one search's cost
 * that of reading 10,000 events, however many the issue has.
 */
import { type SQL, sql } from "drizzle-orm";
import { clientEventIdOf } from "../api/issues";
import type { EventSearch, TagSearch } from "../api/issueSearch";
import { database } from "../db";
import { OWNER_LIMITS } from "../limits";
import { eventTagMatch } from "./issueTags";
import type { LogEvent } from "./logEvent";
import type { KeyOwner } from "./logStore";

/** Whether a row's `event` carries the tag's value, or with `negated` does not (an event without the tag among them, as Sentry's `!`). */
function eventTagCondition({ key, value, negated }: TagSearch): SQL {
	const carries = eventTagMatch(key, value);
	return negated ? sql`not coalesce(${carries}, false)` : sql`coalesce(${carries}, false)`;
}

/** Whether a row's `event` is of the user: the id as given, or the email in any letter case (ASCII), as the list's `user:`. */
function eventUserCondition(user: string, field?: EventSearch["user_field"]): SQL {
	const id = sql`event ->> '$.user.id' = ${user}`;
	const email = sql`lower(event ->> '$.user.email') = lower(${user})`;
	return field === "id" ? id : field === "email" ? email : sql`(${id} or ${email})`;
}

/**
 * Whether the text is in a row's `event`'s message, or in the type or value of one of its
 * exceptions (what its issue's title is made of), ASCII letters in either case; or is the event's own id.
 */
function eventTextCondition(text: string): SQL {
	const holds = (subject: SQL) => sql`instr(lower(${subject}), lower(${text})) > 0`;
	const exceptionText = (json: string, path: string) => sql.raw(`concat_ws(' ', ${json} ->> '${path}.type', ${json} ->> '${path}.value')`);
	const eventId = clientEventIdOf(text.trim());
	return sql`(${holds(sql`event ->> '$.message'`)} or ${holds(exceptionText("event", "$.exception"))}
		or exists (select 1 from json_each(event, '$.chained_exceptions') as c where ${holds(exceptionText("c.value", "$"))})
		${eventId ? sql`or event ->> '$.event_id' = ${eventId}` : sql``})`;
}

function eventSearchCondition(search: EventSearch): SQL {
	const conditions = [
		...search.tags.map(eventTagCondition),
		...(search.user === undefined ? [] : [eventUserCondition(search.user, search.user_field)]),
		...(search.text === undefined ? [] : [eventTextCondition(search.text)]),
	];
	return conditions.length === 0 ? sql`true` : sql.join(conditions, sql` and `);
}

/** The statement's rows: the one with the counts, then the events found. */
type SearchRow = { id: null; searched: number; matched: number } | { id: string; received_at: number; timestamp: number; event: string };

export interface EventSearchResult {
	events: Array<{ id: string; receivedAt: Date; event: LogEvent }>;
	/** The issue's latest events read (in the environment), at most OWNER_LIMITS.issueEventSearch. */
	searched: number;
	/** Of those, the events that match. */
	matched: number;
}

type SearchOptions = { environment?: string; limit?: number };

/**
 * The statement of searchIssueEvents. The walk of log_events_key_group_timestamp_env_idx keeps the
 * rows' places, not their documents (MATERIALIZED, a few bytes each); each event is then read once
 * by its rowid and matched, the matches kept for their count and the latest of them. The first row
 * carries the counts, so an issue with no match still answers them. CROSS JOIN keeps the walk the
 * outer loop: with the statistics of a large table SQLite would rather scan every event.
 */
export function issueEventSearchQuery(owner: KeyOwner, groupHash: string, search: EventSearch, { environment, limit = OWNER_LIMITS.issueEvents }: SearchOptions = {}): SQL {
	const inEnvironment = environment === undefined ? sql`` : sql` and environment = ${environment}`;
	return sql`
		with walked as materialized (
			select rowid as place, id, timestamp from log_events where key_id = ${owner.keyId} and group_hash = ${groupHash}${inEnvironment}
			order by timestamp desc, id desc limit ${OWNER_LIMITS.issueEventSearch}
		), hits as materialized (
			select walked.place, walked.id, walked.timestamp from walked cross join log_events on log_events.rowid = walked.place where ${eventSearchCondition(search)}
		)
		select null as id, null as received_at, null as timestamp, null as event, (select count(*) from walked) as searched, (select count(*) from hits) as matched
		union all
		select e.id, e.received_at, e.timestamp, e.event, null, null
		from (select place from hits order by timestamp desc, id desc limit ${limit}) as latest cross join log_events as e on e.rowid = latest.place`;
}

/** The latest `limit` of the issue's events (in `environment`, when given) that match `search`, among its latest OWNER_LIMITS.issueEventSearch, latest first. */
export async function searchIssueEvents(env: Env, owner: KeyOwner, groupHash: string, search: EventSearch, options?: SearchOptions): Promise<EventSearchResult> {
	const rows = await database(env).all<SearchRow>(issueEventSearchQuery(owner, groupHash, search, options));
	const result: EventSearchResult = { events: [], searched: 0, matched: 0 };
	const found = [];
	for (const row of rows) {
		if (row.id === null) Object.assign(result, { searched: row.searched, matched: row.matched });
		else found.push(row);
	}
	found.sort((a, b) => b.timestamp - a.timestamp || (a.id < b.id ? 1 : -1));
	result.events = found.map((row) => ({ id: row.id, receivedAt: new Date(row.received_at), event: JSON.parse(row.event) as LogEvent }));
	return result;
}
