/** Feedback records as the owner reads them (docs/api.md#feedback-owner). Dependency-free: the console bundles it. */
import type { FeedbackStatus, FeedbackType } from "../feedback/typesAndStatuses";

/** One record whole, as `GET /api/feedback/:id` answers it. */
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

/**
 * The fields a Sentry SDK's user feedback adds beside the form's (docs/api.md#sentry-sdks), each
 * with the label the console gives it: who sent it, from which page, about which error event.
 */
export const SENTRY_FEEDBACK_FIELDS = { name: "Name", page_url: "Page", sentry_event_id: "Error event" } as const;
export type SentryFeedbackField = keyof typeof SENTRY_FEEDBACK_FIELDS;

/** A record in the list: text over 500 characters cut, and the names of the fields that were cut. */
export type FeedbackListItemView = FeedbackRecordView & { truncated_fields: string[] };

/** A page of the list, newest first; `next_cursor` fetches the next page and is null on the last. */
export interface FeedbackPageView {
	feedback: FeedbackListItemView[];
	next_cursor: string | null;
}
