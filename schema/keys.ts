import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { FieldDefinition } from "../domain/api/keys";
import { users } from "./accounts";

export const projectKeys = sqliteTable(
	"project_keys",
	{
		id: text("id").primaryKey(),
		userId: text("user_id")
			.notNull()
			.references(() => users.id, { onDelete: "cascade" }),
		projectName: text("project_name").notNull(),
		/** SHA-256 of the raw key, hex. The raw key is never stored. */
		keyHash: text("key_hash").notNull().unique(),
		keyHint: text("key_hint").notNull(),
		/** The project id in the key's Sentry DSN: Sentry SDKs take only digits there. Set on insert. */
		dsnId: integer("dsn_id").unique(),
		rateLimitPerMinute: integer("rate_limit_per_minute").notNull().default(60),
		logsRateLimitPerMinute: integer("logs_rate_limit_per_minute").notNull().default(60),
		logsEnabled: integer("logs_enabled", { mode: "boolean" }).notNull().default(true),
		/**
		 * Sentry's inbound filter "browser extensions" (domain/logs/browserExtensions.ts): on for a new
		 * key, as Sentry turns it on for a new project; keys older than the filter keep it off.
		 */
		filterBrowserExtensions: integer("filter_browser_extensions", { mode: "boolean" }).notNull().default(true),
		/**
		 * Counts the changes to the project's source-map artifacts: what an isolate learned about them
		 * holds until this moves, so ingestion sees an upload at once without asking D1 every event.
		 */
		artifactsVersion: integer("artifacts_version").notNull().default(0),
		issueFieldConfig: text("issue_field_config", { mode: "json" }).$type<FieldDefinition[]>().notNull(),
		featureFieldConfig: text("feature_field_config", { mode: "json" }).$type<FieldDefinition[]>().notNull(),
		createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
		updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
	},
	(t) => [uniqueIndex("project_keys_user_project_idx").on(t.userId, t.projectName)],
);
