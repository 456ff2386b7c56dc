import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const users = sqliteTable("users", {
	id: text("id").primaryKey(),
	/** Stored lower-cased so sign-in is case-insensitive. */
	email: text("email").notNull().unique(),
	/** `pbkdf2-sha256$<iterations>$<salt b64>$<hash b64>` */
	passwordHash: text("password_hash").notNull(),
	plan: text("plan", { enum: ["free", "pro"] }).notNull().default("free"),
	trialEndsAt: integer("trial_ends_at", { mode: "timestamp_ms" }).notNull(),
	createdAt: integer("created_at", { mode: "timestamp_ms" })
		.notNull()
		.default(sql`(unixepoch('subsec') * 1000)`),
});

export const sessions = sqliteTable(
	"sessions",
	{
		/** SHA-256 of the bearer token, hex. The raw token is never stored. */
		tokenHash: text("token_hash").primaryKey(),
		userId: text("user_id")
			.notNull()
			.references(() => users.id, { onDelete: "cascade" }),
		createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
		expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
	},
	(t) => [
		index("sessions_user_idx").on(t.userId),
		// The clean-up's sweep of expired sessions, oldest first.
		index("sessions_expires_idx").on(t.expiresAt),
	],
);
