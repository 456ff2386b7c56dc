/** The one typed client the console talks to the API through. */

export interface User {
	id: string;
	email: string;
	plan: "free" | "pro";
	trial_ends_at: string;
	access: boolean;
}

import type { FieldDefinition } from "../../schema/keys";

export interface ProjectKey {
	project_name: string;
	key_hint: string;
	rate_limit_per_minute: number;
	logs_rate_limit_per_minute: number;
	logs_enabled: boolean;
	issue_field_config: FieldDefinition[];
	feature_field_config: FieldDefinition[];
	created_at: string;
	/** The Sentry DSN with `{PROJECT_KEY}` where the raw key goes. */
	dsn_template: string | null;
}

/** What create and regenerate answer, once: the raw key and the DSN that holds it. */
export type NewProjectKey = ProjectKey & { raw_api_key: string; dsn: string | null };

import type { FeedbackStatus } from "../../domain/feedback/statuses";

export { FEEDBACK_STATUSES, type FeedbackStatus } from "../../domain/feedback/statuses";

export interface FeedbackRecord {
	id: string;
	project_name: string;
	type: "issue" | "feature_request";
	status: FeedbackStatus;
	created_at: string;
	data: Record<string, unknown>;
	attachments: Array<{ id: string; field: string; content_type: string; url: string }>;
}

/** An upload token as listed: a hint, never the token. */
export interface UploadToken {
	id: string;
	project_name: string;
	token_hint: string;
	created_at: string;
}

/** A source map, minified script or other file uploaded for a project. */
export interface Artifact {
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

export interface ArtifactList {
	artifacts: Artifact[];
	total_bytes: number;
	total_files: number;
	cap_bytes: number;
	cap_files: number;
}

export class ApiError extends Error {
	constructor(
		readonly status: number,
		message: string,
	) {
		super(message);
	}
}

const TOKEN_KEY = "svc.session";
export const sessionToken = {
	get: () => localStorage.getItem(TOKEN_KEY),
	set: (token: string) => localStorage.setItem(TOKEN_KEY, token),
	clear: () => localStorage.removeItem(TOKEN_KEY),
};

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
	const headers: Record<string, string> = {};
	const token = sessionToken.get();
	if (token) headers.authorization = `Bearer ${token}`;
	if (body !== undefined) headers["content-type"] = "application/json";
	const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
	if (res.status === 204) return undefined as T;
	const payload = await res.json().catch(() => ({ error: `Unexpected answer (${res.status})` }));
	if (!res.ok) throw new ApiError(res.status, payload.error ?? `Request failed (${res.status})`);
	return payload as T;
}

const q = (params: Record<string, string | undefined>) =>
	new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined)).toString();

export const api = {
	signUp: (email: string, password: string) => request<{ token: string; user: User }>("POST", "/api/auth/signup", { email, password }),
	signIn: (email: string, password: string) => request<{ token: string; user: User }>("POST", "/api/auth/login", { email, password }),
	me: () => request<{ user: User }>("GET", "/api/auth/me"),
	signOut: () => request<void>("POST", "/api/auth/logout"),

	listKeys: () => request<{ keys: ProjectKey[] }>("GET", "/api/feedback-keys"),
	createKey: (project_name: string) => request<NewProjectKey>("POST", "/api/feedback-key", { project_name }),
	regenerateKey: (project_name: string) =>
		request<NewProjectKey>("POST", "/api/feedback-key/regenerate", { project_name }),
	updateKey: (project_name: string, changes: Partial<Omit<ProjectKey, "project_name" | "key_hint" | "created_at" | "dsn_template">>) =>
		request<ProjectKey>("PATCH", "/api/feedback-key", { project_name, ...changes }),
	revokeKey: (project_name: string) => request<{ deleted: boolean }>("DELETE", `/api/feedback-key?${q({ project_name })}`),

	listFeedback: (project_name: string, type?: string, status?: string) =>
		request<{ feedback: FeedbackRecord[] }>("GET", `/api/feedback?${q({ project_name, type, status })}`),
	setFeedbackStatus: (ids: string[], status: FeedbackStatus) => request<{ updated: number }>("PATCH", "/api/feedback", { ids, status }),
	deleteFeedback: (ids: string[]) => request<{ deleted: number }>("DELETE", "/api/feedback", { ids }),

	listUploadTokens: (project_name: string) => request<{ tokens: UploadToken[] }>("GET", `/api/upload-tokens?${q({ project_name })}`),
	createUploadToken: (project_name: string) => request<UploadToken & { token: string }>("POST", "/api/upload-tokens", { project_name }),
	revokeUploadToken: (id: string) => request<{ deleted: boolean }>("DELETE", `/api/upload-tokens/${encodeURIComponent(id)}`),
	listArtifacts: (project_name: string) => request<ArtifactList>("GET", `/api/artifacts?${q({ project_name })}`),
	deleteArtifact: (project_name: string, id: string) => request<{ deleted: number }>("DELETE", `/api/artifacts/${encodeURIComponent(id)}?${q({ project_name })}`),
	deleteRelease: (project_name: string, release: string) => request<{ deleted: number }>("DELETE", `/api/artifacts?${q({ project_name, release })}`),

	/** Attachments need the session header, so they are fetched as blobs rather than linked. */
	async attachmentUrl(url: string): Promise<string> {
		const res = await fetch(url, { headers: { authorization: `Bearer ${sessionToken.get()}` } });
		if (!res.ok) throw new ApiError(res.status, "Attachment could not be loaded");
		return URL.createObjectURL(await res.blob());
	},
};
