/** Feedback records as the owner reads them (docs/api.md#list-feedback). Dependency-free: the console bundles it. */
import type { FeedbackStatus } from "../feedback/statuses";

export type FeedbackType = "issue" | "feature_request";

export interface FeedbackRecordView {
	id: string;
	project_name: string;
	type: FeedbackType;
	status: FeedbackStatus;
	created_at: string;
	/** The stored submitted fields, configured and extra. */
	data: Record<string, unknown>;
	attachments: Array<{ id: string; field: string; content_type: string; url: string }>;
}
