import type { IRequest } from "itty-router";
import { z } from "zod";
import {
	type EventSearch,
	eventSearchOf,
	ignoreConditionView,
	ISSUE_ONLY_FIELDS,
	ISSUE_PERIODS,
	ISSUE_SORTS,
	ISSUE_STATUSES,
	parseIssueSearch,
	type IssueDetailView,
	type IssueFilterValuesView,
	type IssuePageView,
	type IssuePeriod,
	type IssueSearch,
	type IssueSort,
	type IssueView,
	type MergedFingerprintView,
	namesNewestRelease,
	type StatusDetails,
	type UnmergeView,
	withNewestRelease,
} from "../../domain/api/issues";
import { ISSUE_ONLY_KEYS_LISTED } from "../../domain/api/issueSearchSuggestions";
import { LOG_OUTCOMES, type LogOutcomesView, noOutcomes } from "../../domain/api/logOutcomes";
import { DAY_MS } from "../../domain/analytics/rollups";
import { LOG_LIMITS, OWNER_LIMITS } from "../../domain/limits";
import { titleOf } from "../../domain/logs/fingerprint";
import { mergedFingerprintEvents } from "../../domain/logs/issueMerge";
import { SORT_COLUMNS, selectIssues, sortValuesOf } from "../../domain/logs/issueList";
import { searchIssueEvents } from "../../domain/logs/issueEventSearch";
import { issueReleases, issueTags } from "../../domain/logs/issueTags";
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
import { HttpError, json, readJsonObject } from "../http";
import { projectNameSchema, requireOwnKey } from "../keys/projectKeys";
import { projectCollectorFor } from "../objects";
import { bodyMembers, limitParam, parseBody } from "../validation";

const groupHashSchema = z
	.string()
	.regex(/^[0-9a-fA-F]{32}$/, "must be 32 hexadecimal characters")
	.transform((hash) => hash.toLowerCase());
const groupHashParams = z.object({ group_hash: groupHashSchema });

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

const projectQuerySchema = z.object({ project_name: projectNameSchema });

/**
 * A status, and with `ignored` how long it lasts: for so many minutes, until so many more events
 * or users, or until it escalates (Sentry's ignore options).
 */
const statusFields = {
	project_name: projectNameSchema,
	status: z.enum(ISSUE_STATUSES),
	ignore_for_minutes: z.number().int().min(1).max(OWNER_LIMITS.ignoreMinutesMax).optional(),
	ignore_until_events: z.number().int().min(1).max(OWNER_LIMITS.ignoreEventsMax).optional(),
	ignore_until_users: z.number().int().min(1).max(OWNER_LIMITS.ignoreUsersMax).optional(),
	ignore_until_escalating: z.literal(true, { error: "must be true (leave it out to ignore otherwise)" }).optional(),
	resolve_in_next_release: z.literal(true, { error: "must be true (leave it out to resolve in the current release)" }).optional(),
};
const IGNORE_CONDITIONS = ["ignore_for_minutes", "ignore_until_events", "ignore_until_users", "ignore_until_escalating"] as const;
type StatusChange = Omit<z.infer<z.ZodObject<typeof statusFields>>, "project_name">;
const ignoringRule = <T extends StatusChange>(schema: z.ZodType<T>) =>
	schema
		.refine((b) => IGNORE_CONDITIONS.filter((name) => b[name] !== undefined).length <= 1, {
			path: ["status"],
			message: `takes one of ${IGNORE_CONDITIONS.join(", ")}: choose one`,
		})
		.refine((b) => b.status === "ignored" || IGNORE_CONDITIONS.every((name) => b[name] === undefined), {
			path: ["status"],
			message: `must be ignored when ${IGNORE_CONDITIONS.join(", ")} is given`,
		})
		.refine((b) => b.status === "resolved" || b.resolve_in_next_release === undefined, {
			path: ["status"],
			message: "must be resolved when resolve_in_next_release is given",
		});
/** The issues a bulk action names: as Sentry's bulk actions, up to OWNER_LIMITS.issueMutationHashes at once; one named twice counts once. */
const groupHashesSchema = z
	.array(groupHashSchema)
	.min(1)
	.max(OWNER_LIMITS.issueMutationHashes)
	.transform((hashes) => [...new Set(hashes)]);
const statusBodySchema = ignoringRule(bodyMembers(statusFields));
const bulkStatusBodySchema = ignoringRule(bodyMembers({ ...statusFields, group_hashes: groupHashesSchema }));
const bulkDeleteBodySchema = bodyMembers({ project_name: projectNameSchema, group_hashes: groupHashesSchema });
const mergeBodySchema = bodyMembers({
	project_name: projectNameSchema,
	group_hashes: groupHashesSchema.refine((hashes) => hashes.length >= 2, "must name at least two different issues to merge"),
});

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

function issueView(issue: IssueRow | IssueSnapshot): IssueView {
	const date = (value: Date | number) => new Date(value).toISOString();
	return {
		group_hash: issue.groupHash,
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

/**
 * GET /api/issues?project_name=&status=&environment=&release=&q=&sort=&user=&period=&limit=&cursor=
 * → {issues, next_cursor}: `limit` issues (default and at most 1,000), most recently seen first
 * unless sorted by first seen or count, each with its last 24 hours' hourly counts; `next_cursor`
 * (null on the last page) reads on from the last of them, in the same sort. With `environment`,
 * each issue's count, users, first and last seen and hourly counts are those of that environment,
 * and the sorts follow them.
 */
export async function listIssues(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const { project_name, cursor, limit, q, ...given } = parseBody(listQuerySchema, request.query);
	const { text, ...searched } = q ?? {};
	const { owner, newestRelease } = await ownKeyFlushedFor(env, user.id, project_name, namesNewestRelease(searched));
	// `release:latest` of a project that has sent no release: no issue was seen in one.
	if (newestRelease === null) return json({ issues: [], next_cursor: null } satisfies IssuePageView);
	// A Sentry search in `q` filters as its keys say, over the parameters of the same names.
	const named = newestRelease === undefined ? searched : withNewestRelease(searched, newestRelease);
	const { period, first_seen_period, ...filters } = { ...given, ...named, q: text };
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
		issues: issues.map((issue) => ({ ...issueView(issue), last_24h: hourly.get(issue.groupHash) ?? [] })),
		next_cursor: rows.length > limit && last ? encodeCursor([filters.sort, ...sortValuesOf(last, filters.sort)]) : null,
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
 * (ownKeyFlushedFor); 404 for an unknown project or issue, or an issue with no events in `environment`.
 */
async function ownIssue(request: IRequest, env: Env, projectName: string, environment?: string, newestRelease = false) {
	const groupHash = parseBody(groupHashParams, request.params).group_hash;
	const flushed = await ownKeyFlushedFor(env, (request as OwnerRequest).user.id, projectName, newestRelease);
	const issue = await findIssue(env, flushed.owner, groupHash, environment);
	if (!issue) throw new HttpError(404, environment === undefined ? "No such issue in this project" : `No such issue in this project with events in ${environment}`);
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
		...issueView(issue),
		...(environment === undefined ? {} : { environment }),
		events: found.events.map((e) => ({ id: e.id, received_at: e.receivedAt.toISOString(), ...e.event })),
		...("matched" in found && { event_search: { searched: found.searched, matched: found.matched } }),
		...releases,
		hourly_counts: counts.hourly,
		daily_counts: counts.daily,
		activity,
	};
	return json(detail);
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
 * DELETE /api/issues/:group_hash?project_name= → {deleted: 1, events}: the issue and every event of
 * it, as Sentry's delete does; an event of its fingerprint that arrives later opens it anew.
 */
export async function deleteIssue(request: IRequest, env: Env): Promise<Response> {
	const { project_name } = parseBody(projectQuerySchema, request.query);
	const { owner, groupHash } = await ownIssue(request, env, project_name);
	const { events } = await projectCollectorFor(env, owner.keyId).deleteIssues(owner.keyId, [groupHash]);
	return json({ deleted: 1, events });
}

/**
 * DELETE /api/issues {project_name, group_hashes} → {deleted, events}: the issues named and every
 * event of them, as Sentry's bulk delete; hashes of no issue of the project's count for nothing.
 */
export async function deleteIssues(request: IRequest, env: Env): Promise<Response> {
	const { project_name, group_hashes } = parseBody(bulkDeleteBodySchema, await readJsonObject(request));
	// Moved to D1 first, so every issue the owner was shown is there to count.
	const owner = await ownKeyFlushed(env, (request as OwnerRequest).user.id, project_name);
	const { issues, events } = await projectCollectorFor(env, owner.keyId).deleteIssues(owner.keyId, group_hashes);
	return json({ deleted: issues, events });
}

/**
 * POST /api/issues/merge {project_name, group_hashes} → the merged issue: Sentry's merge of 2 to
 * OWNER_LIMITS.issueMutationHashes issues into the one of them with the most events, which takes
 * the others' events, figures and tags, and their fingerprints' later events. Undone by unmergeIssue.
 * 404 when fewer than two of them are the project's issues.
 */
export async function mergeIssues(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const { project_name, group_hashes } = parseBody(mergeBodySchema, await readJsonObject(request));
	const key = await requireOwnKey(env, user.id, project_name);
	const merged = await projectCollectorFor(env, key.id).mergeIssues(group_hashes);
	if (!merged) throw new HttpError(404, "Fewer than two of these issues are in this project");
	return json(issueView(merged));
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

const unmergeBodySchema = bodyMembers({ project_name: projectNameSchema, group_hashes: groupHashesSchema });

/**
 * POST /api/issues/:group_hash/unmerge {project_name, group_hashes} → {issue, unmerged}: Sentry's
 * unmerge of fingerprints merged into the issue, each back to an issue of its own with its events;
 * both sides counted again from their events kept. 400 for a hash not merged into it.
 */
export async function unmergeIssue(request: IRequest, env: Env): Promise<Response> {
	const { project_name, group_hashes } = parseBody(unmergeBodySchema, await readJsonObject(request));
	const { owner, groupHash } = await ownIssue(request, env, project_name);
	const outcome = await projectCollectorFor(env, owner.keyId).unmergeIssues(groupHash, group_hashes);
	switch (outcome.status) {
		case "no_issue":
			throw new HttpError(404, "No such issue in this project");
		case "not_merged":
			throw new HttpError(400, `Invalid request: group_hashes: ${outcome.hashes.join(", ")} ${outcome.hashes.length === 1 ? "was" : "were"} not merged into this issue`);
		case "over_issue_cap":
			throw new HttpError(403, `The project would hold more than ${LOG_LIMITS.issuesPerProject} issues, the most one project may hold: unmerge fewer, or delete issues first`);
	}
	return json({ issue: issueView(outcome.from), unmerged: outcome.reopened.map(issueView) } satisfies UnmergeView);
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

/** PATCH /api/issues/:group_hash {project_name, status} → the issue. */
export async function updateIssueStatus(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const groupHash = parseBody(groupHashParams, request.params).group_hash;
	const { project_name, ...change } = parseBody(statusBodySchema, await readJsonObject(request));
	const [issue] = await setIssueStatuses(env, user.id, project_name, [groupHash], change);
	if (!issue) throw new HttpError(404, "No such issue in this project");
	return json(issueView(issue));
}

/**
 * PATCH /api/issues {project_name, group_hashes, status} → {issues}: one status for up to
 * OWNER_LIMITS.issueMutationHashes issues at once, as Sentry's bulk Resolve and Ignore; the issues
 * as changed, in the order named, without hashes of no issue of the project's.
 */
export async function updateIssueStatuses(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const { project_name, group_hashes, ...change } = parseBody(bulkStatusBodySchema, await readJsonObject(request));
	const issues = await setIssueStatuses(env, user.id, project_name, group_hashes, change);
	return json({ issues: issues.map(issueView) });
}

async function setIssueStatuses(env: Env, userId: string, projectName: string, groupHashes: string[], change: StatusChange) {
	const key = await requireOwnKey(env, userId, projectName);
	// The grouper owns issue state (a later event may reopen it); it writes the change to D1.
	const details: StatusDetails = {
		minutes: change.ignore_for_minutes,
		events: change.ignore_until_events,
		users: change.ignore_until_users,
		escalating: change.ignore_until_escalating,
		inNextRelease: change.resolve_in_next_release,
	};
	return projectCollectorFor(env, key.id).setStatus(groupHashes, change.status, details);
}
