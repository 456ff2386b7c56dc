/** Feedback's types and statuses, shared by the schema, the API and the console (no dependencies: the console bundles it). */
export const FEEDBACK_TYPES = ["issue", "feature_request"] as const;
export type FeedbackType = (typeof FEEDBACK_TYPES)[number];

export const FEEDBACK_STATUSES = ["open", "in_progress", "human_review", "closed", "ignored"] as const;
export type FeedbackStatus = (typeof FEEDBACK_STATUSES)[number];
