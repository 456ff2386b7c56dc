import type { IRequest } from "itty-router";
import { z } from "zod";
import type { FeedbackRecordView } from "../../domain/api/feedback";
import { deleteFeedback as deleteOwnFeedback, findOwnAttachment, listFeedback as listOwnFeedback, setFeedbackStatus } from "../../domain/feedback/feedbackStore";
import { OWNER_LIMITS } from "../../domain/limits";
import { FEEDBACK_STATUSES } from "../../schema";
import type { OwnerRequest } from "../auth/session";
import { HttpError, json, readJsonObject } from "../http";
import { projectNameSchema } from "../keys/projectKeys";
import { parseBody } from "../validation";

const listQuerySchema = z.object({
	project_name: projectNameSchema,
	type: z.enum(["issue", "feature_request"]).optional(),
	status: z.enum(FEEDBACK_STATUSES).optional(),
});

/** GET /api/feedback?project_name=&type=&status= → {feedback: [record]}, newest first, at most 1,000. */
export async function listFeedback(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const query = parseBody(listQuerySchema, request.query);
	const rows = await listOwnFeedback(env, user.id, { projectName: query.project_name, type: query.type, status: query.status });
	return json({
		feedback: rows.map((row): FeedbackRecordView => ({
			id: row.id,
			project_name: row.projectName,
			type: row.type,
			status: row.status,
			created_at: row.createdAt.toISOString(),
			data: row.data,
			attachments: row.attachments.map((a) => ({ ...a, url: `/api/feedback/attachments/${a.id}` })),
		})),
	});
}

const idsSchema = z
	.array(z.string().min(1).max(100))
	.min(1, "at least one id is required")
	.max(OWNER_LIMITS.feedbackMutationIds, `at most ${OWNER_LIMITS.feedbackMutationIds} ids per request`);

/** Ids from `?id=` or the body's `ids`. */
function targetIds(request: IRequest, body: Record<string, unknown>): string[] {
	const fromQuery = request.query.id;
	const ids = parseBody(z.object({ ids: idsSchema }), { ids: fromQuery === undefined ? body.ids : [fromQuery].flat() }).ids;
	return [...new Set(ids)];
}

/** PATCH /api/feedback[?id=] {status, ids} → {updated: n}. Another owner's ids are never touched. */
export async function updateFeedbackStatus(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const body = await readJsonObject(request);
	const { status } = parseBody(z.object({ status: z.enum(FEEDBACK_STATUSES) }), body);
	return json({ updated: await setFeedbackStatus(env, user.id, targetIds(request, body), status) });
}

/** DELETE /api/feedback[?id=] {ids} → {deleted: n}; their images are removed from R2 best-effort. */
export async function deleteFeedback(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	// With `?id=` the row is named in the URL and a body is not needed.
	const ids = targetIds(request, request.query.id === undefined ? await readJsonObject(request) : {});
	const { deleted, objectKeys } = await deleteOwnFeedback(env, user.id, ids);
	// Rows are gone either way; an orphaned object is only storage, never visible to anyone.
	if (objectKeys.length > 0) {
		await env.ATTACHMENTS.delete(objectKeys).catch((err) => console.warn(`could not delete ${objectKeys.length} attachment objects:`, err));
	}
	return json({ deleted });
}

/** GET /api/feedback/attachments/:id: the image, to its owner only (another owner's id is 404). */
export async function downloadAttachment(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const attachment = await findOwnAttachment(env, user.id, request.params.id);
	const object = attachment ? await env.ATTACHMENTS.get(attachment.objectKey) : null;
	if (!attachment || !object) throw new HttpError(404, "Attachment not found");
	return new Response(object.body, {
		headers: {
			"content-type": attachment.contentType,
			"content-length": String(object.size),
			"cache-control": "private, max-age=3600",
			"x-content-type-options": "nosniff",
			"content-disposition": "inline",
		},
	});
}
