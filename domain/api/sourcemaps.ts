/** Upload tokens and uploaded source maps (docs/api.md#upload-tokens, #artifacts). Dependency-free: the console bundles it. */

/** An upload token as listed: a hint, never the token. */
export interface UploadTokenView {
	id: string;
	project_name: string;
	token_hint: string;
	created_at: string;
}

/** Create answers the raw token, once. */
export type NewUploadTokenView = UploadTokenView & { token: string };

/** A source map, minified script or other file uploaded for a project. */
export interface ArtifactView {
	id: string;
	release: string | null;
	url: string;
	type: "minified_source" | "source_map" | "source";
	debug_id: string | null;
	source_map_url: string | null;
	size: number;
	created_at: string;
	used_at: string;
}

/** A project's files, newest first, with what they take of the project's caps. */
export interface ArtifactListView {
	artifacts: ArtifactView[];
	total_bytes: number;
	total_files: number;
	cap_bytes: number;
	cap_files: number;
}
