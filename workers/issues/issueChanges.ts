/**
 * The owner's changes to a project's log issues, as Sentry's: statuses (one issue or a selection,
 * with the ignore's end or the release resolving records), deletes, merges and unmerges. The key's
 * ProjectCollector owns every issue's state and makes each change, then moves it to D1.
 */
import type { IRequest } from "itty-router";
import { z } from "zod";
import { ISSUE_STATUSES, type StatusDetails, type UnmergeView } from "../../domain/api/issues";
import { LOG_LIMITS, LOG_STORAGE_BOUNDS, OWNER_LIMITS } from "../../domain/limits";
import type { OwnerRequest } from "../auth/session";
import { HttpError, json, readJsonObject } from "../http";
import { projectNameSchema, requireOwnKey } from "../keys/projectKeys";
import { projectCollectorFor } from "../objects";
import { bodyMembers, parseBody } from "../validation";
import { groupHashParams, groupHashSchema, issueView, ownIssue, ownKeyFlushed, projectQuerySchema } from "./ownerIssues";

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
	resolve_in_release: z.string().min(1).max(LOG_STORAGE_BOUNDS.name).optional(),
};
const IGNORE_CONDITIONS = ["ignore_for_minutes", "ignore_until_events", "ignore_until_users", "ignore_until_escalating"] as const;
const RESOLVE_DETAILS = ["resolve_in_next_release", "resolve_in_release"] as const;
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
		.refine((b) => b.status === "resolved" || RESOLVE_DETAILS.every((name) => b[name] === undefined), {
			path: ["status"],
			message: `must be resolved when ${RESOLVE_DETAILS.join(" or ")} is given`,
		})
		.refine((b) => RESOLVE_DETAILS.some((name) => b[name] === undefined), {
			path: ["resolve_in_release"],
			message: "names the release the fix is in: leave out resolve_in_next_release",
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
	return json(issueView(merged, project_name));
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
		case "not_merged": {
			// The first few named: a request of 100 strangers would otherwise answer with all of them.
			const { hashes } = outcome;
			const named = hashes.length > 3 ? `${hashes.slice(0, 3).join(", ")} and ${hashes.length - 3} more` : hashes.join(", ");
			throw new HttpError(400, `Invalid request: group_hashes: ${named} ${hashes.length === 1 ? "was" : "were"} not merged into this issue`);
		}
		case "over_issue_cap":
			throw new HttpError(403, `The project would hold more than ${LOG_LIMITS.issuesPerProject} issues, the most one project may hold: unmerge fewer, or delete issues first`);
	}
	const view = (issue: (typeof outcome.reopened)[number]) => issueView(issue, project_name);
	return json({ issue: view(outcome.from), unmerged: outcome.reopened.map(view) } satisfies UnmergeView);
}

const noteBodySchema = bodyMembers({
	project_name: projectNameSchema,
	text: z
		.string()
		.trim()
		.min(1, "must not be empty")
		.max(OWNER_LIMITS.issueNoteChars, `must be at most ${OWNER_LIMITS.issueNoteChars.toLocaleString("en-US")} characters`)
		// A lone surrogate (half of an emoji cut by the sender) is stored as U+FFFD, as every other stored text is.
		.transform((text) => text.toWellFormed()),
});

/**
 * POST /api/issues/:group_hash/notes {project_name, text} → 201 the note as the issue's activity
 * lists it: Sentry's comment, kept with the issue's activity (its newest 100 entries).
 */
export async function addIssueNote(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const groupHash = parseBody(groupHashParams, request.params).group_hash;
	const { project_name, text } = parseBody(noteBodySchema, await readJsonObject(request));
	const key = await requireOwnKey(env, user.id, project_name);
	const note = await projectCollectorFor(env, key.id).addIssueNote(groupHash, text);
	if (!note) throw new HttpError(404, "No such issue in this project");
	return json(note, { status: 201 });
}

/** PATCH /api/issues/:group_hash {project_name, status} → the issue. */
export async function updateIssueStatus(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const groupHash = parseBody(groupHashParams, request.params).group_hash;
	const { project_name, ...change } = parseBody(statusBodySchema, await readJsonObject(request));
	const [issue] = await setIssueStatuses(env, user.id, project_name, [groupHash], change);
	if (!issue) throw new HttpError(404, "No such issue in this project");
	return json(issueView(issue, project_name));
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
	return json({ issues: issues.map((issue) => issueView(issue, project_name)) });
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
		inRelease: change.resolve_in_release,
	};
	const issues = await projectCollectorFor(env, key.id).setStatus(groupHashes, change.status, details);
	if (issues === "unknown_release") throw new HttpError(400, "Invalid request: resolve_in_release: no event of this project came from that release");
	return issues;
}

