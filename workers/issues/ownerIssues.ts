/**
 * The owner's reads of a project's log issues: the list and its filters, an issue with its events,
 * tags and the issues merged into it, and the key's log outcomes. Changes are in issueChanges.ts.
 */
import type { IRequest } from "itty-router";
import { z } from "zod";
import {
	ignoreConditionView,
	ISSUE_PERIODS,
	ISSUE_SORTS,
	ISSUE_STATUSES,
	type IssueDetailView,
	type IssueEventView,
	type IssueFilterValuesView,
	type IssuePageView,
	type IssuePeriod,
	type IssueSort,
	type IssueView,
	type MergedFingerprintView,
} from "../../domain/api/issues";
import {
	type EventSearch,
	eventSearchOf,
	ISSUE_ONLY_FIELDS,
	parseIssueSearch,
	type IssueSearch,
	namesNewestRelease,
	searchRefusal,
	withNewestRelease,
} from "../../domain/api/issueSearch";
import { ISSUE_ONLY_KEYS_LISTED } from "../../domain/api/issueSearchSuggestions";
import { LOG_OUTCOMES, type LogOutcomesView, noOutcomes } from "../../domain/api/logOutcomes";
import { DAY_MS } from "../../domain/analytics/rollups";
import { EVENT_ID_PATTERN, findIssueEvent } from "../../domain/logs/eventById";
import { OWNER_LIMITS } from "../../domain/limits";
import { titleOf } from "../../domain/logs/fingerprint";
import { mergedFingerprintEvents } from "../../domain/logs/issueMerge";
import { SORT_COLUMNS, selectIssues, sortValuesOf } from "../../domain/logs/issueList";
import { searchIssueEvents } from "../../domain/logs/issueEventSearch";
import type { LogEvent } from "../../domain/logs/logEvent";
import { issueFeedback } from "../../domain/logs/issueFeedback";
import { issueReleases, issueTags } from "../../domain/logs/issueTags";
import { shortIdNumber, shortIdOf } from "../../domain/logs/shortId";
import {
	findIssue,
	hourlyCountsOf,
	type IssueRow,
	type IssueSnapshot,
	issueCounts,
	issueEvents,
	issueFilterValues,
	type KeyOwner,
} from "../../domain/logs/logStore";
import type { OwnerRequest } from "../auth/session";
import { cursorSchema, encodeCursor } from "../cursor";
import { HttpError, json } from "../http";
import { projectNameSchema, requireOwnKey } from "../keys/projectKeys";
import { projectCollectorFor } from "../objects";
import { limitParam, parseBody } from "../validation";

export const groupHashSchema = z
	.string()
	.regex(/^[0-9a-fA-F]{32}$/, "must be 32 hexadecimal characters")
	.transform((hash) => hash.toLowerCase());
export const groupHashParams = z.object({ group_hash: groupHashSchema });

/** A page's position: the sort it follows and the last issue's values in it, its group hash last. */
const issueCursorSchema = cursorSchema(/^(last_seen|first_seen|count|users):((?:\d{1,15}:){1,2})([0-9a-f]{32})$/, (match) => ({
	sort: match[1] as IssueSort,
	values: [...match[2].split(":").filter(Boolean).map(Number), match[3]],
}));

/** An environment's name as an event gives it (docs/limits.md): what the list and an issue can be filtered by. */
export const environmentSchema = z.string().min(1).max(500);

/** A Sentry search, as its keys say (parseIssueSearch). */
const searchSchema = z
	.string()
	.trim()
	.max(200)
	.superRefine((q, context) => {
		const refusal = searchRefusal(q);
		if (refusal) context.addIssue({ code: "custom", message: refusal });
	})
	.transform((q) => parseIssueSearch(q))
	.refine((search) => (search.tags?.length ?? 0) <= OWNER_LIMITS.issueSearchTags, `names more than ${OWNER_LIMITS.issueSearchTags} tags`);

const listQuerySchema = z
	.object({
		project_name: projectNameSchema,
		status: z.enum(ISSUE_STATUSES).optional(),
		environment: environmentSchema.optional(),
		release: z.string().min(1).max(500).optional(),
		q: searchSchema.optional(),
		sort: z.enum(ISSUE_SORTS).default("last_seen"),
		user: z.string().trim().min(1).max(500).optional(),
		period: z.enum(Object.keys(ISSUE_PERIODS) as [keyof typeof ISSUE_PERIODS]).optional(),
		limit: limitParam(OWNER_LIMITS.issueList).default(OWNER_LIMITS.issueList),
		cursor: issueCursorSchema.optional(),
	})
	.refine(({ cursor, sort }) => !cursor || (cursor.sort === sort && cursor.values.length === SORT_COLUMNS[sort].length), {
		path: ["cursor"],
		message: "was given for another sort: start again without it",
	});

export const projectQuerySchema = z.object({ project_name: projectNameSchema });

/**
 * The owner's key for a project, and its events moved to D1 up to this instant, so a read never
 * misses an accepted event (flush on read, docs/architecture.md#moving-rows-to-d1).
 */
export async function ownKeyFlushed(env: Env, userId: string, projectName: string): Promise<KeyOwner> {
	return (await ownKeyFlushedFor(env, userId, projectName, false)).owner;
}

/**
 * ownKeyFlushed, and with `newestRelease` the project's newest release (null when it has sent
 * none) for a search of `release:latest`: only the key's object knows the order of the project's
 * releases, and it answers in the call that flushes it.
 */
async function ownKeyFlushedFor(env: Env, userId: string, projectName: string, newestRelease: boolean): Promise<{ owner: KeyOwner; newestRelease?: string | null }> {
	const key = await requireOwnKey(env, userId, projectName);
	const owner = { keyId: key.id, userId };
	const collector = projectCollectorFor(env, key.id);
	if (newestRelease) return { owner, newestRelease: await collector.flushNewestRelease() };
	await collector.flush();
	return { owner };
}

export function issueView(issue: IssueRow | IssueSnapshot, projectName: string): IssueView {
	const date = (value: Date | number) => new Date(value).toISOString();
	return {
		group_hash: issue.groupHash,
		short_id: shortIdOf(projectName, issue.shortId),
		title: issue.title,
		culprit: issue.culprit,
		level: issue.level,
		status: issue.status,
		count: issue.count,
		users: issue.users,
		first_seen: date(issue.firstSeen),
		last_seen: date(issue.lastSeen),
		environments: issue.environments,
		releases: issue.releases,
		resolved_in_release: issue.resolvedInRelease,
		...(issue.resolvedInNextRelease && { resolved_in_next_release: true as const }),
		unhandled: issue.unhandled,
		...ignoreConditionView(issue),
		...(issue.escalatedAt !== null && { escalated_at: date(issue.escalatedAt) }),
	};
}

/** A stored event as an issue's page reads it: the event as stored, with its id and when it came. */
function issueEventView(e: { id: string; receivedAt: Date; event: LogEvent }): IssueEventView {
	return { id: e.id, received_at: e.receivedAt.toISOString(), ...e.event };
}

/**
 * GET /api/issues?project_name=&status=&environment=&release=&q=&sort=&user=&period=&limit=&cursor=
 * → {issues, next_cursor}: `limit` issues (default and at most 1,000), most recently seen first
 * unless sorted by first seen or count, each with its last 24 hours' hourly counts; `next_cursor`
 * (null on the last page) reads on from the last of them, in the same sort; `latest_release` says
 * what `release:latest` or `firstRelease:latest` in `q` stood for. With `environment`,
 * each issue's count, users, first and last seen and hourly counts are those of that environment,
 * and the sorts follow them.
 */
export async function listIssues(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const { project_name, cursor, limit, q, ...given } = parseBody(listQuerySchema, request.query);
	const { text, ...searched } = q ?? {};
	const { owner, newestRelease } = await ownKeyFlushedFor(env, user.id, project_name, namesNewestRelease(searched));
	// Which release `latest` stood for: the owner sees what was searched, as the newest can change between two searches.
	const latest = newestRelease === undefined ? {} : { latest_release: newestRelease };
	// `release:latest` of a project that has sent no release: no issue was seen in one.
	if (newestRelease === null) return json({ issues: [], next_cursor: null, ...latest } satisfies IssuePageView);
	// A Sentry search in `q` filters as its keys say, over the parameters of the same names.
	const named = newestRelease === undefined ? searched : withNewestRelease(searched, newestRelease);
	const shortId = text === undefined ? null : shortIdNumber(project_name, text);
	const { period, first_seen_period, ...filters } = { ...given, ...named, q: text, ...(shortId !== null && { q_short_id: shortId }) };
	const since = (within?: IssuePeriod) => within && Date.now() - ISSUE_PERIODS[within];
	// One more than asked says whether another page follows.
	const rows = await selectIssues(env, owner, { ...filters, seenSince: since(period), firstSeenSince: since(first_seen_period), after: cursor, limit: limit + 1 });
	const issues = rows.slice(0, limit);
	const hourly = await hourlyCountsOf(
		env,
		owner,
		issues.map((issue) => issue.groupHash),
		{ environment: filters.environment },
	);
	const last = issues.at(-1);
	return json({
		issues: issues.map((issue) => ({ ...issueView(issue, project_name), last_24h: hourly.get(issue.groupHash) ?? [] })),
		next_cursor: rows.length > limit && last ? encodeCursor([filters.sort, ...sortValuesOf(last, filters.sort)]) : null,
		...latest,
	} satisfies IssuePageView);
}

/**
 * GET /api/issues/filter-values?project_name= → {environments, releases}: the names the list's
 * environment and release filters can take, whatever the other filters.
 */
export async function listIssueFilterValues(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const { project_name } = parseBody(projectQuerySchema, request.query);
	const owner = await ownKeyFlushed(env, user.id, project_name);
	return json((await issueFilterValues(env, owner)) satisfies IssueFilterValuesView);
}

const issueQuerySchema = projectQuerySchema.extend({ environment: environmentSchema.optional() });

/** The same search of one issue's events: its keys about the issue as a whole cannot be; an empty one is none. */
const eventSearchSchema = searchSchema
	.refine(
		(search) => ISSUE_ONLY_FIELDS.every((field) => search[field] === undefined),
		`${ISSUE_ONLY_KEYS_LISTED} search the issue list, not an issue's events`,
	)
	.transform((search) => (Object.keys(search).length === 0 ? undefined : search));
const readIssueQuerySchema = issueQuerySchema.extend({ q: eventSearchSchema.optional() });

/**
 * The search of one issue's events, `release:latest` as the project's newest release. A project
 * that has sent none searches `has:release` instead: none of its events carried a release, so none
 * matches, and the events read are counted as in any search.
 */
function eventSearchNamed(search: IssueSearch, newestRelease?: string | null): EventSearch {
	if (newestRelease === undefined) return eventSearchOf(search);
	if (newestRelease !== null) return eventSearchOf(withNewestRelease(search, newestRelease));
	const { release_latest, tags = [], ...rest } = search;
	return eventSearchOf({ ...rest, tags: [...tags, { key: "release" }] });
}

/**
 * The issue the path names, of the signed-in owner's project (its events moved to D1 first), as it
 * reads in `environment` when one is named, with the project's newest release when asked
 * (ownKeyFlushedFor); 404 for an unknown project or issue (one merged into another names it,
 * `merged_into`), or an issue with no events in `environment`.
 */
export async function ownIssue(request: IRequest, env: Env, projectName: string, environment?: string, newestRelease = false) {
	const groupHash = parseBody(groupHashParams, request.params).group_hash;
	const flushed = await ownKeyFlushedFor(env, (request as OwnerRequest).user.id, projectName, newestRelease);
	const issue = await findIssue(env, flushed.owner, groupHash, environment);
	if (!issue) {
		if (environment !== undefined) throw new HttpError(404, `No such issue in this project with events in ${environment}`);
		// A link to an issue merged into another (a bookmark, an old alert) says which, as Sentry redirects there.
		const into = await projectCollectorFor(env, flushed.owner.keyId).issueMergedInto(groupHash);
		throw into ? new HttpError(404, `This issue was merged into ${into}`, { merged_into: into }) : new HttpError(404, "No such issue in this project");
	}
	return { ...flushed, groupHash, issue };
}

/**
 * GET /api/issues/:group_hash?project_name=&environment=&q= → the issue, its newest events, 24 hourly
 * and 30 daily counts, and its activity (from the key's object, which changes its status); with `environment`, its figures, events and counts there, as the list
 * filtered by it shows the issue (404 when it has none there). With `q`, Sentry's search of the
 * issue's events: the newest of those that match, and how many of the events read do.
 */
export async function readIssue(request: IRequest, env: Env): Promise<Response> {
	const { project_name, environment, q } = parseBody(readIssueQuerySchema, request.query);
	const { owner, groupHash, issue, newestRelease } = await ownIssue(request, env, project_name, environment, q !== undefined && namesNewestRelease(q));
	const [found, counts, releases, activity] = await Promise.all([
		q ? searchIssueEvents(env, owner, groupHash, eventSearchNamed(q, newestRelease), { environment }) : issueEvents(env, owner, groupHash, { environment }).then((events) => ({ events })),
		issueCounts(env, owner, groupHash, { environment }),
		issueReleases(env, owner, groupHash, environment),
		projectCollectorFor(env, owner.keyId).issueActivity(groupHash),
	]);
	const detail: IssueDetailView = {
		...issueView(issue, project_name),
		...(environment === undefined ? {} : { environment }),
		events: found.events.map(issueEventView),
		...("matched" in found && { event_search: { searched: found.searched, matched: found.matched } }),
		...releases,
		hourly_counts: counts.hourly,
		daily_counts: counts.daily,
		activity,
	};
	return json(detail);
}

const issueEventParams = groupHashParams.extend({
	event_id: z
		.string()
		.regex(EVENT_ID_PATTERN, "must be an event's id: a UUID, or 32 hexadecimal characters")
		.transform((id) => id.toLowerCase()),
});

/**
 * GET /api/issues/:group_hash/events/:event_id?project_name= → one event of the issue, as an entry
 * of its `events`, by its stored id or its SDK's (Sentry's event detail): what opens a link to an
 * event older than the newest 100 that the issue's read answers. The key's events are moved to D1 first
 * (ownIssue), so one just accepted is found too. 404 names what is unknown: the project, the
 * issue, the event, or that the event is another issue's.
 */
export async function readIssueEvent(request: IRequest, env: Env): Promise<Response> {
	const { event_id } = parseBody(issueEventParams, request.params);
	const { project_name } = parseBody(projectQuerySchema, request.query);
	const { owner, groupHash } = await ownIssue(request, env, project_name);
	const found = await findIssueEvent(env, owner, groupHash, event_id);
	if (!found) throw new HttpError(404, "No such event in this project");
	if ("heldBy" in found) throw new HttpError(404, `This event belongs to another issue of this project, ${found.heldBy}`);
	return json(issueEventView(found.event));
}

/**
 * GET /api/issues/:group_hash/tags?project_name=&environment= → the tags of the issue's events (in
 * `environment` when named), each with its 10 most common values.
 */
export async function readIssueTags(request: IRequest, env: Env): Promise<Response> {
	const { project_name, environment } = parseBody(issueQuerySchema, request.query);
	// An issue with no events in the environment has no tags there, not a 404.
	const { owner, groupHash } = await ownIssue(request, env, project_name);
	return json(await issueTags(env, owner, groupHash, environment));
}

/**
 * GET /api/issues/:group_hash/feedback?project_name= → {feedback}: the user feedback given about
 * the issue's events (docs/api.md#issue-feedback), newest first, at most OWNER_LIMITS.issueFeedback.
 */
export async function readIssueFeedback(request: IRequest, env: Env): Promise<Response> {
	const { project_name } = parseBody(projectQuerySchema, request.query);
	// The key's feedback is moved to D1 with its events, before the read.
	const { owner, groupHash } = await ownIssue(request, env, project_name);
	return json({ feedback: await issueFeedback(env, owner, project_name, groupHash) });
}

/**
 * GET /api/issues/:group_hash/merged?project_name= → {merged}: the fingerprints merged into the
 * issue (Sentry's "Merged issues"), each with its events the issue holds and its latest.
 */
export async function listMergedFingerprints(request: IRequest, env: Env): Promise<Response> {
	const { project_name } = parseBody(projectQuerySchema, request.query);
	const { owner, groupHash } = await ownIssue(request, env, project_name);
	const fingerprints = await projectCollectorFor(env, owner.keyId).mergedInto(groupHash);
	const events = await mergedFingerprintEvents(env.DB, owner, groupHash, fingerprints);
	const merged: MergedFingerprintView[] = fingerprints.map((hash) => {
		const kept = events.get(hash);
		return {
			group_hash: hash,
			events: kept?.events ?? 0,
			last_seen: kept ? new Date(kept.last_seen).toISOString() : null,
			title: kept ? titleOf(JSON.parse(kept.event)) : null,
			latest_event_id: kept?.id ?? null,
		};
	});
	return json({ merged });
}

const outcomesQuerySchema = projectQuerySchema.extend({ days: limitParam(OWNER_LIMITS.logOutcomeDays).default(30) });

/**
 * GET /api/log-outcomes?project_name=&days= → {days, totals}: what became of the key's log events
 * on each of the last `days` UTC days (30 unless asked, at most 90), today last: accepted,
 * filtered, rate limited, invalid, over the issue cap; counted by the key's object as it answers.
 */
export async function readLogOutcomes(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const { project_name, days } = parseBody(outcomesQuerySchema, request.query);
	const key = await requireOwnKey(env, user.id, project_name);
	const rows = await projectCollectorFor(env, key.id).logOutcomes(days);
	const totals = noOutcomes();
	for (const row of rows) for (const outcome of LOG_OUTCOMES) totals[outcome] += row[outcome];
	const view: LogOutcomesView = { days: rows.map(({ day, ...counts }) => ({ day: new Date(day * DAY_MS).toISOString().slice(0, 10), ...counts })), totals };
	return json(view);
}
