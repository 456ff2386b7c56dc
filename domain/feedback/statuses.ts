/** Feedback statuses, shared by the schema, the API and the console (no dependencies: the console bundles it). */
export const FEEDBACK_STATUSES = ["open", "in_progress", "human_review", "closed", "ignored"] as const;
export type FeedbackStatus = (typeof FEEDBACK_STATUSES)[number];
