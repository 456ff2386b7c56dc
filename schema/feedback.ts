import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { FEEDBACK_STATUSES, FEEDBACK_TYPES } from "../domain/feedback/typesAndStatuses";
import { users } from "./accounts";

/**
 * Feedback belongs to the owner and the project name, not to the key row, so revoking
 * or regenerating a key never loses what was already submitted.
 */
export const feedback = sqliteTable(
	"feedback",
	{
		id: text("id").primaryKey(),
		userId: text("user_id")
			.notNull()
			.references(() => users.id, { onDelete: "cascade" }),
		projectName: text("project_name").notNull(),
		type: text("type", { enum: FEEDBACK_TYPES }).notNull(),
		status: text("status", { enum: FEEDBACK_STATUSES }).notNull().default("open"),
		/** Submitted fields after validation: configured and extra, attachments excluded. */
		data: text("data", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
		createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
	},
	(t) => [index("feedback_owner_project_created_idx").on(t.userId, t.projectName, t.createdAt)],
);

export const feedbackAttachments = sqliteTable(
	"feedback_attachments",
	{
		id: text("id").primaryKey(),
		feedbackId: text("feedback_id")
			.notNull()
			.references(() => feedback.id, { onDelete: "cascade" }),
		userId: text("user_id").notNull(),
		field: text("field").notNull(),
		contentType: text("content_type").notNull(),
		/** Object key in the ATTACHMENTS bucket. */
		objectKey: text("object_key").notNull(),
		size: integer("size").notNull(),
	},
	(t) => [index("feedback_attachments_feedback_idx").on(t.feedbackId)],
);
