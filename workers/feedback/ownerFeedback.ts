import type { IRequest } from "itty-router";
import { z } from "zod";
import type { FeedbackListItemView, FeedbackPageView, FeedbackRecordView } from "../../domain/api/feedback";
import {
	deleteFeedback as deleteOwnFeedback,
	findOwnAttachment,
	findOwnFeedback,
	listFeedback as listOwnFeedback,
	setFeedbackStatus,
} from "../../domain/feedback/feedbackStore";
import { FEEDBACK_STATUSES, FEEDBACK_TYPES } from "../../domain/feedback/typesAndStatuses";
import { findOwnKey, listOwnKeys } from "../../domain/keys/keyStore";
import { OWNER_LIMITS } from "../../domain/limits";
import { cutText } from "../../domain/text";
import type { OwnerRequest } from "../auth/session";
import { csvOf, fileNamePart } from "../csv";
import { cursorSchema, encodeCursor } from "../cursor";
import { HttpError, json, readJsonObject } from "../http";
import { flushKeys } from "../objects";
import { projectNameSchema } from "../keys/projectKeys";
import { limitParam, parseBody } from "../validation";

/**
 * Accepted submissions wait in their key's ProjectCollector for up to a second before D1 has
 * them: every owner read or change of feedback moves them first, so none is ever missed.
 */
async function flushProject(env: Env, userId: string, projectName: string) {
	const key = await findOwnKey(env, userId, projectName);
	if (key) await flushKeys(env, [key.id]);
	return key;
}

/** For reads and changes by id, which name no project: every key of the owner. */
async function flushOwner(env: Env, userId: string): Promise<void> {
	await flushKeys(env, (await listOwnKeys(env, userId)).map((key) => key.id));
}

/** `find`, and when it finds nothing, again after the owner's keys have moved what they hold. */
async function findFlushingOnMiss<T>(env: Env, userId: string, find: () => Promise<T | undefined>): Promise<T | undefined> {
	const found = await find();
	if (found) return found;
	await flushOwner(env, userId);
	return find();
}

/** A page's position: the created_at and id of the page's last record. */
const encodeFeedbackCursor = (record: { createdAt: Date; id: string }) => encodeCursor([record.createdAt.getTime(), record.id]);

const feedbackCursorSchema = cursorSchema(/^(\d{1,15}):([\w-]{1,100})$/, (match) => ({ createdAt: Number(match[1]), id: match[2] }));

const listQuerySchema = z.object({
	project_name: projectNameSchema,
	type: z.enum(FEEDBACK_TYPES).optional(),
	status: z.enum(FEEDBACK_STATUSES).optional(),
	q: z.string().trim().max(200).optional(),
	limit: limitParam(OWNER_LIMITS.feedbackList).default(OWNER_LIMITS.feedbackPage),
	cursor: feedbackCursorSchema.optional(),
});

const exportQuerySchema = listQuerySchema.omit({ limit: true, cursor: true });

/** The list's filters as the store takes them (an empty search is none), for the list and its CSV alike. */
const listFilters = (query: z.infer<typeof exportQuerySchema>) => ({ projectName: query.project_name, type: query.type, status: query.status, q: query.q || undefined });

type StoredRecord = NonNullable<Awaited<ReturnType<typeof findOwnFeedback>>>;

function recordView(row: StoredRecord, data: Record<string, unknown>): FeedbackRecordView {
	return {
		id: row.id,
		project_name: row.projectName,
		type: row.type,
		status: row.status,
		created_at: row.createdAt.toISOString(),
		data,
		attachments: row.attachments.map((a) => ({ ...a, url: `/api/feedback/attachments/${a.id}` })),
	};
}

/** The record as a list shows it: long text cut, with the names of the fields that were cut. */
function listView(row: StoredRecord): FeedbackListItemView {
	const truncated: string[] = [];
	const data = Object.fromEntries(
		Object.entries(row.data).map(([key, value]) => {
			if (typeof value !== "string" || value.length <= OWNER_LIMITS.feedbackListText) return [key, value];
			truncated.push(key);
			return [key, cutText(value, OWNER_LIMITS.feedbackListText)];
		}),
	);
	return { ...recordView(row, data), truncated_fields: truncated };
}

/**
 * GET /api/feedback?project_name=&type=&status=&q=&limit=&cursor= → {feedback: [record],
 * next_cursor}, newest first; `q` keeps the records with a text value that holds it, or with that
 * id. A page holds `limit` records (default 100, at most 1,000) and ends early rather than pass
 * about 2 MB; `next_cursor` (null on the last page) fetches the rest. Text longer than 500
 * characters is cut in the list and named in `truncated_fields`; attachments are links.
 */
export async function listFeedback(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const query = parseBody(listQuerySchema, request.query);
	await flushProject(env, user.id, query.project_name);
	// One more than asked says whether another page follows.
	const rows = await listOwnFeedback(env, user.id, { ...listFilters(query), before: query.cursor, limit: query.limit + 1 });
	const page: FeedbackListItemView[] = [];
	let chars = 0;
	for (const row of rows.slice(0, query.limit)) {
		const view = listView(row);
		chars += JSON.stringify(view).length;
		if (page.length > 0 && chars > OWNER_LIMITS.feedbackPageChars) break;
		page.push(view);
	}
	const last = rows[page.length - 1];
	return json({ feedback: page, next_cursor: page.length < rows.length && last ? encodeFeedbackCursor(last) : null } satisfies FeedbackPageView);
}

/** The columns every exported record has, before its fields. */
const RECORD_COLUMNS = ["id", "created_at", "type", "status"] as const;

/** A field's value as a cell: text as it is, anything else as JSON. */
const cellOf = (value: unknown) => (typeof value === "string" || value === undefined ? value : JSON.stringify(value));

/**
 * GET /api/feedback.csv?project_name=&type=&status=&q= → the records the list shows for these
 * filters, the newest 1,000, whole, as CSV: id, created_at, type and status, then a column a
 * field, by its key: the project's forms' fields in their order, then any other field the records
 * hold. An image field's cell says how many images it holds (they are read one by one, signed in).
 */
export async function exportFeedbackCsv(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const query = parseBody(exportQuerySchema, request.query);
	const key = await flushProject(env, user.id, query.project_name);
	const rows = await listOwnFeedback(env, user.id, { ...listFilters(query), limit: OWNER_LIMITS.feedbackList });
	const formFields = key ? [...key.issueFieldConfig, ...key.featureFieldConfig].map((field) => field.key) : [];
	const fields = [...new Set([...formFields, ...rows.flatMap((row) => [...Object.keys(row.data), ...row.attachments.map((image) => image.field)])])];
	// A field named as a record's column is told apart by its header.
	const header = (field: string) => ((RECORD_COLUMNS as readonly string[]).includes(field) ? `${field} (field)` : field);
	const cells = rows.map((row) => {
		const images = Map.groupBy(row.attachments, (image) => image.field);
		return {
			id: row.id,
			created_at: row.createdAt.toISOString(),
			type: row.type,
			status: row.status,
			...Object.fromEntries(
				fields.map((field) => {
					const count = images.get(field)?.length;
					return [header(field), count ? `${count} image${count === 1 ? "" : "s"}` : cellOf(row.data[field])];
				}),
			),
		};
	});
	const day = new Date().toISOString().slice(0, 10);
	return new Response(csvOf([...RECORD_COLUMNS, ...fields.map(header)], cells), {
		headers: {
			"content-type": "text/csv; charset=utf-8",
			"content-disposition": `attachment; filename="${fileNamePart(query.project_name, "project")}-feedback-${day}.csv"`,
		},
	});
}

/** GET /api/feedback/:id → the whole record, every field uncut; another owner's id is 404. */
export async function readFeedback(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const row = await findFlushingOnMiss(env, user.id, () => findOwnFeedback(env, user.id, String(request.params.id)));
	if (!row) throw new HttpError(404, "Feedback not found");
	return json(recordView(row, row.data));
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
	const ids = targetIds(request, body);
	await flushOwner(env, user.id);
	return json({ updated: await setFeedbackStatus(env, user.id, ids, status) });
}

/** DELETE /api/feedback[?id=] {ids} → {deleted: n}; their images are removed from R2 best-effort. */
export async function deleteFeedback(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	// With `?id=` the row is named in the URL and a body is not needed.
	const ids = targetIds(request, request.query.id === undefined ? await readJsonObject(request) : {});
	await flushOwner(env, user.id);
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
	const attachment = await findFlushingOnMiss(env, user.id, () => findOwnAttachment(env, user.id, String(request.params.id)));
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
