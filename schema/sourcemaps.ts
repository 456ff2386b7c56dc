import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "./accounts";
import { projectKeys } from "./keys";

/**
 * Upload tokens: what CI presents to upload source maps (sentry-cli's SENTRY_AUTH_TOKEN, or the
 * plain upload's bearer). Each belongs to one project key and can upload for it and nothing else;
 * revoking the key revokes its tokens (the foreign key cascades).
 */
export const uploadTokens = sqliteTable(
	"upload_tokens",
	{
		id: text("id").primaryKey(),
		userId: text("user_id")
			.notNull()
			.references(() => users.id, { onDelete: "cascade" }),
		keyId: text("key_id")
			.notNull()
			.references(() => projectKeys.id, { onDelete: "cascade" }),
		/** SHA-256 of the raw `svcu_…` token, hex. The raw token is never stored. */
		tokenHash: text("token_hash").notNull().unique(),
		tokenHint: text("token_hint").notNull(),
		createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
	},
	(t) => [index("upload_tokens_key_idx").on(t.keyId, t.createdAt)],
);

export const ARTIFACT_TYPES = ["minified_source", "source_map", "source"] as const;
export type ArtifactType = (typeof ARTIFACT_TYPES)[number];

/**
 * Uploaded files of a project (a minified script, its source map, other sources), found at
 * ingestion by debug id or by release and the URL the browser loaded them from. The bytes are in
 * R2 (`object_key`); the row says how to find them. An upload of the same release and URL, or of
 * the same debug id and type, replaces the earlier file.
 */
export const artifacts = sqliteTable(
	"artifacts",
	{
		id: text("id").primaryKey(),
		keyId: text("key_id")
			.notNull()
			.references(() => projectKeys.id, { onDelete: "cascade" }),
		/** Null for a file found only by its debug id. */
		release: text("release"),
		/** The URL the browser sees, `~/assets/app.js` (any scheme and host) or a whole URL. */
		url: text("url").notNull(),
		/** Lower-case UUID; the same for a minified file and its source map. */
		debugId: text("debug_id"),
		type: text("type", { enum: ARTIFACT_TYPES }).notNull(),
		/** For a minified file: the URL of its source map (`~/assets/app.js.map`), from its `sourceMappingURL`. */
		sourceMapUrl: text("source_map_url"),
		objectKey: text("object_key").notNull(),
		size: integer("size").notNull(),
		/** The checksum of the sentry-cli bundle it came in, so that the same bundle is not taken twice. */
		bundle: text("bundle"),
		createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
		/** Uploaded, or last used to symbolicate an event (at most once a day): the clean-up's clock. */
		usedAt: integer("used_at", { mode: "timestamp_ms" }).notNull(),
	},
	(t) => [
		uniqueIndex("artifacts_key_release_url_idx").on(t.keyId, t.release, t.url),
		uniqueIndex("artifacts_key_debug_id_type_idx").on(t.keyId, t.debugId, t.type),
		// The owner's list, newest first, and the project's storage total.
		index("artifacts_key_created_idx").on(t.keyId, t.createdAt, t.size),
		index("artifacts_key_bundle_idx").on(t.keyId, t.bundle),
		// The clean-up: artifacts no event has used within the log retention, oldest first.
		index("artifacts_used_idx").on(t.usedAt),
	],
);

/**
 * Chunks of a sentry-cli bundle between their upload and the bundle's assembly, named by the
 * SHA-1 of their bytes. The bytes are in R2; assembly deletes them, the clean-up deletes what was
 * never assembled.
 */
export const uploadChunks = sqliteTable(
	"upload_chunks",
	{
		keyId: text("key_id")
			.notNull()
			.references(() => projectKeys.id, { onDelete: "cascade" }),
		checksum: text("checksum").notNull(),
		size: integer("size").notNull(),
		createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
	},
	(t) => [primaryKey({ columns: [t.keyId, t.checksum] }), index("upload_chunks_created_idx").on(t.createdAt)],
);
