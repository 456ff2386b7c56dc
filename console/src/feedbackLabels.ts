import type { FeedbackStatus } from "./api";

/** A feedback record's status as the console words it: on the feedback pages, and beside an issue's user feedback. */
export const FEEDBACK_STATUS_LABELS: Record<FeedbackStatus, string> = {
	open: "Open",
	in_progress: "In progress",
	human_review: "Human review",
	closed: "Closed",
	ignored: "Ignored",
};
