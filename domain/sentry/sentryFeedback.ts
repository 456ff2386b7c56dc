/**
 * Sentry's user feedback as a feedback submission of the key's project (docs/api.md#sentry-sdks):
 * a `feedback` item (the feedback widget, `Sentry.captureFeedback`: an event whose
 * `contexts.feedback` holds `message`, `contact_email`, `name`, `url`) or a `user_report` item
 * (the older crash-report dialog: `comments`, `email`, `name`, `event_id`). It lands in the
 * project's feedback inbox as an issue report, through the same field rules and windows as
 * /functions/v1/submit-feedback.
 */
import type { SentryFeedbackField } from "../api/feedback";
import { isObject, type Json, member } from "../logs/jsonFields";
import { cutText } from "../text";

/** A title is the message's first line, cut here to a list's width (the whole message is the description). */
const TITLE_CHARS = 120;
/** Enough of an address to be one: an invalid one would refuse the whole submission where the form has an email field. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const textOf = (value: unknown) => (typeof value === "string" && value.trim() !== "" ? value.trim() : undefined);

function titleOf(message: string): string {
	const line = message.split(/\r?\n/, 1)[0].trim();
	return line.length > TITLE_CHARS ? `${cutText(line, TITLE_CHARS - 1).trimEnd()}…` : line;
}

interface SentFeedback {
	message?: string;
	email?: string;
	name?: string;
	url?: string;
	/** The error event the feedback is about. */
	about?: string;
}

function sentFeedback(type: string, payload: Json): SentFeedback | null {
	if (type === "user_report") {
		return { message: textOf(member(payload, "comments")), email: textOf(member(payload, "email")), name: textOf(member(payload, "name")), about: textOf(member(payload, "event_id")) };
	}
	if (type !== "feedback") return null;
	const contexts = member(payload, "contexts");
	const feedback = isObject(contexts) ? member(contexts, "feedback") : undefined;
	if (!isObject(feedback)) return null;
	return {
		message: textOf(member(feedback, "message")),
		email: textOf(member(feedback, "contact_email")),
		name: textOf(member(feedback, "name")),
		url: textOf(member(feedback, "url")),
		about: textOf(member(feedback, "associated_event_id")),
	};
}

/** The submission an item of `type` makes; null for another item, or one without a message. */
export function feedbackSubmission(type: string, payload: Json): Record<string, unknown> | null {
	const sent = sentFeedback(type, payload);
	if (!sent?.message) return null;
	const submission: Record<string, unknown> = { type: "issue", title: titleOf(sent.message), description: sent.message };
	if (sent.email && EMAIL.test(sent.email)) submission.email = sent.email;
	// Extra fields, kept as the inbox keeps any: who sent it, from where, about which error.
	const extras: Record<SentryFeedbackField, string | undefined> = { name: sent.name, page_url: sent.url, sentry_event_id: sent.about };
	for (const [field, value] of Object.entries(extras)) if (value) submission[field] = value;
	return submission;
}
