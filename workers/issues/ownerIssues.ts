import type { IRequest } from "itty-router";
import { z } from "zod";
import { ISSUE_SORTS, ISSUE_STATUSES, type IssueDetailView, type IssueListItemView, type IssueView } from "../../domain/api/issues";
import type { OwnerRequest } from "../auth/session";
import { HttpError, json, readJsonObject } from "../http";
import { projectNameSchema, requireOwnKey } from "../keys/projectKeys";
import { projectCollectorFor } from "../objects";
import { findIssue, hourlyCounts, hourlyCountsOf, type IssueRow, type IssueSnapshot, issueEvents, type KeyOwner, selectIssues } from "../../domain/logs/logStore";
import { parseBody } from "../validation";

const groupHashParams = z.object({
	group_hash: z
		.string()
		.regex(/^[0-9a-fA-F]{32}$/, "must be 32 hexadecimal characters")
		.transform((hash) => hash.toLowerCase()),
});

const listQuerySchema = z.object({
	project_name: projectNameSchema,
	status: z.enum(ISSUE_STATUSES).optional(),
	environment: z.string().min(1).max(500).optional(),
	release: z.string().min(1).max(500).optional(),
	q: z.string().trim().max(200).optional(),
	sort: z.enum(ISSUE_SORTS).optional(),
	user: z.string().trim().min(1).max(500).optional(),
});

const projectQuerySchema = z.object({ project_name: projectNameSchema });

const statusBodySchema = z.object({ project_name: projectNameSchema, status: z.enum(ISSUE_STATUSES) });

/**
 * The owner's key for a project, and its events moved to D1 up to this instant, so a read never
 * misses an accepted event (flush on read, docs/architecture.md#moving-rows-to-d1).
 */
async function ownKeyFlushed(env: Env, userId: string, projectName: string): Promise<KeyOwner> {
	const key = await requireOwnKey(env, userId, projectName);
	await projectCollectorFor(env, key.id).flush();
	return { keyId: key.id, userId };
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
	};
}

/**
 * GET /api/issues?project_name=&status=&environment=&release=&q=&sort=&user= → {issues}, most recently
 * seen first unless sorted by first seen or count; each with its last 24 hours' hourly counts.
 */
export async function listIssues(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const { project_name, ...filters } = parseBody(listQuerySchema, request.query);
	const owner = await ownKeyFlushed(env, user.id, project_name);
	const issues = await selectIssues(env, owner, { ...filters, q: filters.q || undefined });
	const hourly = await hourlyCountsOf(env, owner, issues.map((issue) => issue.groupHash));
	return json({ issues: issues.map((issue): IssueListItemView => ({ ...issueView(issue), last_24h: hourly.get(issue.groupHash) ?? [] })) });
}

/** GET /api/issues/:group_hash?project_name= → the issue, its newest events and 24 hourly counts. */
export async function readIssue(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const { project_name } = parseBody(projectQuerySchema, request.query);
	const groupHash = parseBody(groupHashParams, request.params).group_hash;
	const owner = await ownKeyFlushed(env, user.id, project_name);
	const issue = await findIssue(env, owner, groupHash);
	if (!issue) throw new HttpError(404, "No such issue in this project");
	const [events, hourly] = await Promise.all([issueEvents(env, owner, groupHash), hourlyCounts(env, owner, groupHash)]);
	const detail: IssueDetailView = {
		...issueView(issue),
		events: events.map((e) => ({ id: e.id, received_at: e.receivedAt.toISOString(), ...e.event })),
		hourly_counts: hourly,
	};
	return json(detail);
}

/** PATCH /api/issues/:group_hash {project_name, status} → the issue. */
export async function updateIssueStatus(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const groupHash = parseBody(groupHashParams, request.params).group_hash;
	const { project_name, status } = parseBody(statusBodySchema, await readJsonObject(request));
	const key = await requireOwnKey(env, user.id, project_name);
	// The grouper owns issue state (a later event may reopen it); it writes the change to D1.
	const issue = await projectCollectorFor(env, key.id).setStatus(groupHash, status);
	if (!issue) throw new HttpError(404, "No such issue in this project");
	return json(issueView(issue));
}
