/**
 * The feedback and feedback_attachments tables. Every query is bounded to one owner: another
 * owner's ids are never read or touched.
 */
import { and, desc, eq, inArray, lt, or, sql } from "drizzle-orm";
import { feedback, feedbackAttachments } from "../../schema";
import { database } from "../db";
import { packJsonArrays } from "../jsonRows";
import type { FeedbackStatus, FeedbackType } from "./typesAndStatuses";

// D1 binds at most 100 parameters per statement; id lists are written in chunks below that.
const IDS_PER_STATEMENT = 90;

function chunks<T>(items: T[], size = IDS_PER_STATEMENT): T[][] {
	const out: T[][] = [];
	for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
	return out;
}

const countRows = (results: unknown[][]) => results.reduce((sum, rows) => sum + rows.length, 0);

interface NewAttachment {
	id: string;
	field: string;
	contentType: string;
	objectKey: string;
	size: number;
}

/** An accepted submission waiting in its key's ProjectCollector for its move to D1. */
export interface PendingFeedback {
	id: string;
	userId: string;
	projectName: string;
	type: string;
	/** The stored fields, already JSON. */
	dataJson: string;
	createdAt: number;
	/** NewAttachment[] as JSON; their objects are in R2 already. */
	attachmentsJson: string;
}

// Rows travel as JSON arrays unpacked by json_each (see jsonRows.ts), a record as an array of its
// columns with its fields as a JSON string, which SQLite copies out rather than parsing and writing
// it again. OR IGNORE: a batch written again after D1 took it but before the outbox forgot it
// stores nothing twice.
const INSERT_FEEDBACK = `INSERT OR IGNORE INTO feedback (id, user_id, project_name, type, status, data, created_at)
	SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, 'open', value ->> 4, value ->> 5
	FROM json_each(?1)`;

const INSERT_ATTACHMENTS = `INSERT OR IGNORE INTO feedback_attachments (id, feedback_id, user_id, field, content_type, object_key, size)
	SELECT json_extract(value, '$.id'), json_extract(value, '$.feedback_id'), json_extract(value, '$.user_id'), json_extract(value, '$.field'),
		json_extract(value, '$.contentType'), json_extract(value, '$.objectKey'), json_extract(value, '$.size')
	FROM json_each(?1)`;

/** The statements that move pending feedback to D1, records before their attachments; run them in one batch. */
export function feedbackWriteStatements(db: D1Database, pending: PendingFeedback[]): D1PreparedStatement[] {
	const records = pending.map((f) => JSON.stringify([f.id, f.userId, f.projectName, f.type, f.dataJson, f.createdAt]));
	const attachments = pending.flatMap((f) =>
		(JSON.parse(f.attachmentsJson) as NewAttachment[]).map((a) => JSON.stringify({ ...a, feedback_id: f.id, user_id: f.userId })),
	);
	return [
		...packJsonArrays(records).map((rows) => db.prepare(INSERT_FEEDBACK).bind(rows)),
		...packJsonArrays(attachments).map((rows) => db.prepare(INSERT_ATTACHMENTS).bind(rows)),
	];
}

export interface FeedbackFilters {
	projectName: string;
	type?: FeedbackType;
	status?: FeedbackStatus;
	/** Only records with a text value holding this (ASCII letters in either case), or with this id. */
	q?: string;
	/** Only records older than this one (newest-first order: created_at, then id). */
	before?: { createdAt: number; id: string };
	limit: number;
}

const recordColumns = {
	id: feedback.id,
	projectName: feedback.projectName,
	type: feedback.type,
	status: feedback.status,
	createdAt: feedback.createdAt,
	data: feedback.data,
	attachments: sql<string>`(SELECT json_group_array(json_object('id', a.id, 'field', a.field, 'content_type', a.content_type))
		FROM feedback_attachments a WHERE a.feedback_id = feedback.id)`,
};

const withAttachments = <T extends { attachments: string }>(row: T) => ({
	...row,
	attachments: JSON.parse(row.attachments) as Array<{ id: string; field: string; content_type: string }>,
});

/**
 * Newest first, from `before` on, by feedback_owner_project_created_idx. One statement:
 * attachments ride along as a JSON array per row, so a page never needs a second query with
 * its ids bound.
 */
export async function listFeedback(env: Env, userId: string, filters: FeedbackFilters) {
	const { before } = filters;
	const rows = await database(env)
		.select(recordColumns)
		.from(feedback)
		.where(
			and(
				eq(feedback.userId, userId),
				eq(feedback.projectName, filters.projectName),
				filters.type ? eq(feedback.type, filters.type) : undefined,
				filters.status ? eq(feedback.status, filters.status) : undefined,
				// Checked per record of the walk, as the issue list's text: instr, not LIKE (D1 refuses
				// patterns over 50 bytes), over the values alone (not the fields' names).
				filters.q
					? or(
							eq(feedback.id, filters.q),
							sql`exists (select 1 from json_each(${feedback.data}) where type = 'text' and instr(lower(value), lower(${filters.q})) > 0)`,
						)
					: undefined,
				before
					? or(lt(feedback.createdAt, new Date(before.createdAt)), and(eq(feedback.createdAt, new Date(before.createdAt)), lt(feedback.id, before.id)))
					: undefined,
			),
		)
		.orderBy(desc(feedback.createdAt), desc(feedback.id))
		.limit(filters.limit);
	return rows.map(withAttachments);
}

/** One whole record of the owner's, with its attachments. */
export async function findOwnFeedback(env: Env, userId: string, id: string) {
	const [row] = await database(env)
		.select(recordColumns)
		.from(feedback)
		.where(and(eq(feedback.userId, userId), eq(feedback.id, id)))
		.limit(1);
	return row ? withAttachments(row) : undefined;
}

/** How many of the owner's records now have `status`. */
export async function setFeedbackStatus(env: Env, userId: string, ids: string[], status: FeedbackStatus): Promise<number> {
	const db = database(env);
	const statements = chunks(ids).map((chunk) =>
		db
			.update(feedback)
			.set({ status })
			.where(and(eq(feedback.userId, userId), inArray(feedback.id, chunk)))
			.returning({ id: feedback.id }),
	);
	return countRows(await db.batch(statements as [(typeof statements)[0], ...typeof statements]));
}

/**
 * Deletes the owner's records and their attachment rows; answers how many records went and the
 * R2 object keys of their images, for the caller to remove.
 */
export async function deleteFeedback(env: Env, userId: string, ids: string[]): Promise<{ deleted: number; objectKeys: string[] }> {
	const db = database(env);
	const idChunks = chunks(ids);
	const objects = (
		await Promise.all(
			idChunks.map((chunk) =>
				db
					.select({ objectKey: feedbackAttachments.objectKey })
					.from(feedbackAttachments)
					.where(and(eq(feedbackAttachments.userId, userId), inArray(feedbackAttachments.feedbackId, chunk))),
			),
		)
	).flat();
	const deletions = idChunks.map((chunk) =>
		db
			.delete(feedback)
			.where(and(eq(feedback.userId, userId), inArray(feedback.id, chunk)))
			.returning({ id: feedback.id }),
	);
	const attachmentDeletions = idChunks.map((chunk) =>
		db.delete(feedbackAttachments).where(and(eq(feedbackAttachments.userId, userId), inArray(feedbackAttachments.feedbackId, chunk))),
	);
	// Attachment rows first: they reference their record.
	const results = await db.batch([...attachmentDeletions, ...deletions] as [(typeof deletions)[0], ...typeof deletions]);
	return { deleted: countRows(results.slice(attachmentDeletions.length)), objectKeys: objects.map((o) => o.objectKey) };
}

/** Bytes of images the project's feedback holds, by the feedback index and the attachments' own. */
export async function attachmentBytes(env: Env, userId: string, projectName: string): Promise<number> {
	const row = await env.DB.prepare(
		`SELECT coalesce(sum(a.size), 0) AS bytes FROM feedback f JOIN feedback_attachments a ON a.feedback_id = f.id
		 WHERE f.user_id = ? AND f.project_name = ?`,
	)
		.bind(userId, projectName)
		.first<{ bytes: number }>();
	return row?.bytes ?? 0;
}

export function findOwnAttachment(env: Env, userId: string, attachmentId: string) {
	return database(env).query.feedbackAttachments.findFirst({
		where: and(eq(feedbackAttachments.id, attachmentId), eq(feedbackAttachments.userId, userId)),
	});
}
