/** Project keys and their feedback field definitions (docs/api.md#project-keys). Dependency-free: the console bundles it. */

export const FIELD_TYPES = ["text", "long_text", "email", "url", "number", "boolean", "select", "attachment"] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** An entry of `issue_field_config` / `feature_field_config`. */
export interface FieldDefinition {
	key: string;
	label: string;
	type: FieldType;
	required: boolean;
	options?: string[];
}

/** A key as every answer shows it: a hint, never the raw key. */
export interface ProjectKeyView {
	project_name: string;
	key_hint: string;
	rate_limit_per_minute: number;
	logs_rate_limit_per_minute: number;
	logs_enabled: boolean;
	/** Sentry's inbound filter "browser extensions": log events an extension raised are answered and dropped. */
	filter_browser_extensions: boolean;
	issue_field_config: FieldDefinition[];
	feature_field_config: FieldDefinition[];
	created_at: string;
	/** The key's Sentry DSN with `{PROJECT_KEY}` where the raw key goes (null only for a key without a DSN number). */
	dsn_template: string | null;
}

/** Create and regenerate answer the raw key, once, and the DSN holding it. */
export type NewProjectKeyView = ProjectKeyView & { raw_api_key: string; dsn: string | null };
