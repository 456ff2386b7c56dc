import { and, desc, eq, inArray, sql } from "drizzle-orm";
import type { IRequest } from "itty-router";
import { z } from "zod";
import { FEEDBACK_STATUSES, feedback, feedbackAttachments } from "../../schema";
import type { OwnerRequest } from "../auth/session";
import { database } from "../db";
import { HttpError, json, readJsonObject } from "../http";
import { projectNameSchema } from "../keys/projectKeys";
import { parseBody } from "../validation";

export const LIST_LIMIT = 1_000;
export const MUTATION_LIMIT = 500;
// D1 binds at most 100 parameters per statement; id lists are written in chunks below that.
const IDS_PER_STATEMENT = 90;

const listQuerySchema = z.object({
	project_name: projectNameSchema,
	type: z.enum(["issue", "feature_request"]).optional(),
	status: z.enum(FEEDBACK_STATUSES).optional(),
});

interface AttachmentRef {
	id: string;
	field: string;
	content_type: string;
}

/** GET /api/feedback?project_name=&type=&status= → {feedback: [record]}, newest first, at most 1,000. */
export async function listFeedback(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const query = parseBody(listQuerySchema, request.query);
	// One statement: attachments ride along as a JSON array per row, so 1,000 rows never need
	// a second query with 1,000 bound ids. Uses feedback_owner_project_created_idx.
	const rows = await database(env)
		.select({
			id: feedback.id,
			projectName: feedback.projectName,
			type: feedback.type,
			status: feedback.status,
			createdAt: feedback.createdAt,
			data: feedback.data,
			attachments: sql<string>`(SELECT json_group_array(json_object('id', a.id, 'field', a.field, 'content_type', a.content_type))
				FROM feedback_attachments a WHERE a.feedback_id = feedback.id)`,
		})
		.from(feedback)
		.where(
			and(
				eq(feedback.userId, user.id),
				eq(feedback.projectName, query.project_name),
				query.type ? eq(feedback.type, query.type) : undefined,
				query.status ? eq(feedback.status, query.status) : undefined,
			),
		)
		.orderBy(desc(feedback.createdAt), desc(feedback.id))
		.limit(LIST_LIMIT);

	return json({
		feedback: rows.map((row) => ({
			id: row.id,
			project_name: row.projectName,
			type: row.type,
			status: row.status,
			created_at: row.createdAt.toISOString(),
			data: row.data,
			attachments: (JSON.parse(row.attachments) as AttachmentRef[]).map((a) => ({
				...a,
				url: `/api/feedback/attachments/${a.id}`,
			})),
		})),
	});
}

const idsSchema = z
	.array(z.string().min(1).max(100))
	.min(1, "at least one id is required")
	.max(MUTATION_LIMIT, `at most ${MUTATION_LIMIT} ids per request`);

/** Ids from `?id=` or the body's `ids`. */
function targetIds(request: IRequest, body: Record<string, unknown>): string[] {
	const fromQuery = request.query.id;
	const ids = parseBody(z.object({ ids: idsSchema }), { ids: fromQuery === undefined ? body.ids : [fromQuery].flat() }).ids;
	return [...new Set(ids)];
}

function chunks<T>(items: T[], size = IDS_PER_STATEMENT): T[][] {
	const out: T[][] = [];
	for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
	return out;
}

/** PATCH /api/feedback[?id=] {status, ids} → {updated: n}. Another owner's ids are never touched. */
export async function updateFeedbackStatus(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const body = await readJsonObject(request);
	const { status } = parseBody(z.object({ status: z.enum(FEEDBACK_STATUSES) }), body);
	const ids = targetIds(request, body);
	const db = database(env);
	const results = await db.batch(
		chunks(ids).map((chunk) =>
			db
				.update(feedback)
				.set({ status })
				.where(and(eq(feedback.userId, user.id), inArray(feedback.id, chunk)))
				.returning({ id: feedback.id }),
		) as [any, ...any[]],
	);
	return json({ updated: results.reduce((sum: number, rows: unknown[]) => sum + rows.length, 0) });
}

/** DELETE /api/feedback[?id=] {ids} → {deleted: n}; their images are removed from R2 best-effort. */
export async function deleteFeedback(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	// With `?id=` the row is named in the URL and a body is not needed.
	const ids = targetIds(request, request.query.id === undefined ? await readJsonObject(request) : {});
	const db = database(env);
	const idChunks = chunks(ids);
	const objects = (
		await Promise.all(
			idChunks.map((chunk) =>
				db
					.select({ objectKey: feedbackAttachments.objectKey })
					.from(feedbackAttachments)
					.where(and(eq(feedbackAttachments.userId, user.id), inArray(feedbackAttachments.feedbackId, chunk))),
			),
		)
	).flat();
	const statements = idChunks.flatMap((chunk) => [
		db
			.delete(feedbackAttachments)
			.where(and(eq(feedbackAttachments.userId, user.id), inArray(feedbackAttachments.feedbackId, chunk))),
		db
			.delete(feedback)
			.where(and(eq(feedback.userId, user.id), inArray(feedback.id, chunk)))
			.returning({ id: feedback.id }),
	]);
	const results = await db.batch(statements as [any, ...any[]]);
	const deleted = results.filter((_, i) => i % 2 === 1).reduce((sum: number, rows: unknown[]) => sum + rows.length, 0);

	// Rows are gone either way; an orphaned object is only storage, never visible to anyone.
	if (objects.length > 0) {
		await env.ATTACHMENTS.delete(objects.map((o) => o.objectKey)).catch((err) =>
			console.warn(`could not delete ${objects.length} attachment objects:`, err),
		);
	}
	return json({ deleted });
}

/** GET /api/feedback/attachments/:id: the image, to its owner only (another owner's id is 404). */
export async function downloadAttachment(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const attachment = await database(env).query.feedbackAttachments.findFirst({
		where: and(eq(feedbackAttachments.id, request.params.id), eq(feedbackAttachments.userId, user.id)),
	});
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
