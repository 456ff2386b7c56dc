import { attachmentBytes, feedbackWriteStatements, type PendingFeedback } from "../domain/feedback/feedbackStore";
import type { readSubmission } from "../domain/feedback/submission";
import type { FeedbackType } from "../domain/feedback/typesAndStatuses";
import { FEEDBACK_LIMITS } from "../domain/limits";
import type { OutboxBatch } from "./outbox";
import { type FeedbackOutcome, refused } from "./projectCommands";

type Submission = Extract<ReturnType<typeof readSubmission>, { ok: true }>;

/** Feedback as it was stored; `createdAt` in ms. */
export interface StoredFeedback {
	id: string;
	type: FeedbackType;
	data: Record<string, unknown>;
	createdAt: number;
}

/** Rows moved to D1 per batch. */
const FLUSH_FEEDBACK = 500;

type OutboxRow = {
	seq: number;
	id: string;
	user_id: string;
	project_name: string;
	type: string;
	data: string;
	created_at: number;
	attachments: string;
};

/**
 * A project key's accepted feedback until D1 has it (the `feedback_outbox` table of its
 * ProjectCollector): the images go to R2 first, under the project's storage cap, then the row
 * here, so the submission is durable before it is answered and a row never points at an image
 * that was not written.
 */
export class FeedbackOutbox {
	readonly #sql: SqlStorage;
	readonly #env: Env;

	constructor(sql: SqlStorage, env: Env) {
		this.#sql = sql;
		this.#env = env;
	}

	/**
	 * Stores a valid submission: accepted with what was stored, or refused (413 when the project's
	 * images would pass the cap, 500 when R2 fails).
	 */
	async accept(
		key: { userId: string; projectName: string },
		submission: Submission,
	): Promise<{ status: "accepted"; stored: StoredFeedback } | Extract<FeedbackOutcome, { status: "refused" }>> {
		const id = crypto.randomUUID();
		const attachments = submission.images.map((image) => ({
			id: crypto.randomUUID(),
			field: image.field,
			contentType: image.contentType,
			objectKey: `feedback/${key.userId}/${id}/${crypto.randomUUID()}`,
			size: image.bytes.byteLength,
			bytes: image.bytes,
		}));
		const incoming = attachments.reduce((sum, a) => sum + a.size, 0);
		// Images no record will point at: written in part, or their record not stored.
		const deleteImages = () => this.#env.ATTACHMENTS.delete(attachments.map((a) => a.objectKey)).catch(() => {});
		if (incoming > 0) {
			// What waits here, then what D1 holds: a flush in between counts its rows twice, never none.
			const stored = this.#pendingAttachmentBytes() + (await attachmentBytes(this.#env, key.userId, key.projectName));
			if (stored + incoming > FEEDBACK_LIMITS.attachmentBytesPerProject) {
				return refused(413, "The project's image storage is full (1 GiB): delete old feedback with images to make room", { body: { fields: [] } });
			}
			try {
				await Promise.all(attachments.map((a) => this.#env.ATTACHMENTS.put(a.objectKey, a.bytes, { httpMetadata: { contentType: a.contentType } })));
			} catch (err) {
				console.error(`feedback ${id}: images could not be stored:`, err);
				await deleteImages();
				return refused(500, "Feedback could not be stored; try again");
			}
		}
		const createdAt = Date.now();
		try {
			this.#sql.exec(
				`INSERT INTO feedback_outbox (id, user_id, project_name, type, data, created_at, attachments, attachment_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
				id,
				key.userId,
				key.projectName,
				submission.type,
				JSON.stringify(submission.data),
				createdAt,
				JSON.stringify(attachments.map(({ bytes, ...stored }) => stored)),
				incoming,
			);
		} catch (err) {
			if (incoming > 0) await deleteImages();
			throw err;
		}
		return { status: "accepted", stored: { id, type: submission.type, data: submission.data, createdAt } };
	}

	/**
	 * The oldest waiting rows, as statements for the flush's D1 batch; call `written` once D1 has
	 * them. `more`: a full batch, so more may be waiting.
	 */
	nextBatch(db: D1Database): OutboxBatch {
		const rows = this.#sql
			.exec<OutboxRow>(`SELECT seq, id, user_id, project_name, type, data, created_at, attachments FROM feedback_outbox ORDER BY seq LIMIT ?`, FLUSH_FEEDBACK)
			.toArray();
		const pending: PendingFeedback[] = rows.map((f) => ({
			id: f.id,
			userId: f.user_id,
			projectName: f.project_name,
			type: f.type,
			dataJson: f.data,
			createdAt: f.created_at,
			attachmentsJson: f.attachments,
		}));
		const last = rows.at(-1);
		return {
			statements: feedbackWriteStatements(db, pending),
			more: rows.length === FLUSH_FEEDBACK,
			// Only what was written goes: rows that arrived meanwhile go next time.
			written: () => {
				if (last) this.#sql.exec(`DELETE FROM feedback_outbox WHERE seq <= ?`, last.seq);
			},
		};
	}

	/** Whether feedback waits for D1. */
	hasPending(): boolean {
		return this.#sql.exec<{ pending: number }>(`SELECT EXISTS (SELECT 1 FROM feedback_outbox) AS pending`).one().pending === 1;
	}

	#pendingAttachmentBytes(): number {
		return this.#sql.exec<{ bytes: number }>(`SELECT coalesce(sum(attachment_bytes), 0) AS bytes FROM feedback_outbox`).one().bytes;
	}
}
