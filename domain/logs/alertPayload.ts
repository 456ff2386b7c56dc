/**
 * The bodies alerts POST to their webhook: an issue alert's (the issue and the event that raised
 * it) and a feedback alert's (the new feedback), each with one short line for chat apps (Slack and
 * Mattermost read `text`, Discord `content`) linking to its console page.
 */
import type { FeedbackAlertPayload, IssueAlertAction, IssueAlertPayload } from "../api/alerts";
import type { FeedbackType } from "../feedback/typesAndStatuses";
import { ALERT_LIMITS } from "../limits";
import { cutText } from "../text";
import { shortIdOf } from "./shortId";

/** The issue as an alert tells of it; times in ms. */
export interface AlertIssue {
	groupHash: string;
	title: string;
	culprit: string | null;
	level: string;
	count: number;
	firstSeen: number;
	lastSeen: number;
	/** Its number in the project (shortId.ts); null for the made-up issue of a test alert. */
	shortId: number | null;
}

export interface AlertEvent {
	eventId: string | null;
	environment: string | null;
	release: string | null;
	timestamp: number | null;
}

/** New feedback as its alert tells of it; `createdAt` in ms. */
export interface AlertFeedback {
	id: string;
	type: FeedbackType;
	data: Record<string, unknown>;
	createdAt: number;
}

const HEADLINES: Record<IssueAlertAction | FeedbackType, string> = {
	created: "New issue",
	regressed: "Regression",
	unignored: "Ignored issue is back",
	escalating: "Escalating issue",
	test: "Test alert",
	issue: "New bug report",
	feature_request: "New feature request",
};

/** The console's page of the issue (its route /issues/:project/:hash); a test alert's, made up, links to the project's issues. */
const issueConsoleUrl = (origin: string, project: string, groupHash: string | null) =>
	`${origin}/issues/${encodeURIComponent(project)}${groupHash === null ? "" : `/${groupHash}`}`;

/** The console's page of a feedback item (its route /feedback/:project/:id). */
const feedbackConsoleUrl = (origin: string, project: string, id: string) => `${origin}/feedback/${encodeURIComponent(project)}/${encodeURIComponent(id)}`;

/** Cut on a whole character, with an ellipsis to say so. */
const cut = (text: string, chars: number) => (text.length > chars ? `${cutText(text, chars - 1)}…` : text);

/** Slack reads `&`, `<` and `>` as markup: escaped as its incoming webhooks ask. */
const slackEscaped = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** The one line chat apps show, `Headline in project: what — url`: Slack's escaped and its link marked, Discord's as is. */
function lines(headline: string, project: string, what: string, url: string): Pick<IssueAlertPayload, "text" | "content" | "allowed_mentions"> {
	return {
		text: `${headline} in ${slackEscaped(`${project}: ${what}`)} — <${url}>`,
		content: `${headline} in ${project}: ${what} — ${url}`,
		allowed_mentions: { parse: [] },
	};
}

export function issueAlertPayload(action: IssueAlertAction, project: string, origin: string, issue: AlertIssue, event: AlertEvent): IssueAlertPayload {
	const url = issueConsoleUrl(origin, project, action === "test" ? null : issue.groupHash);
	const shortId = shortIdOf(project, issue.shortId);
	// The short id last, as people quote it in the thread that follows (Sentry's alerts show it too).
	const what = `${cut(issue.title, ALERT_LIMITS.titleChars)}${issue.culprit ? ` (${cut(issue.culprit, ALERT_LIMITS.titleChars)})` : ""}${shortId ? ` · ${shortId}` : ""}`;
	return {
		action,
		project,
		issue: {
			group_hash: issue.groupHash,
			short_id: shortId,
			title: issue.title,
			culprit: issue.culprit,
			level: issue.level,
			count: issue.count,
			first_seen: new Date(issue.firstSeen).toISOString(),
			last_seen: new Date(issue.lastSeen).toISOString(),
			url,
		},
		event: {
			event_id: event.eventId,
			environment: event.environment,
			release: event.release,
			timestamp: event.timestamp === null ? null : new Date(event.timestamp).toISOString(),
		},
		...lines(HEADLINES[action], project, what, url),
	};
}

/** The feedback's title as the console shows it: its `title` field when that is non-empty text, else "(no title)". */
const feedbackTitle = (data: Record<string, unknown>) => (typeof data.title === "string" && data.title) || "(no title)";

export function feedbackAlertPayload(project: string, origin: string, feedback: AlertFeedback): FeedbackAlertPayload {
	const url = feedbackConsoleUrl(origin, project, feedback.id);
	const title = feedbackTitle(feedback.data);
	// A title typed in a text area may span lines: the alert's line is one.
	const what = cut(title.replace(/\s+/g, " ").trim() || "(no title)", ALERT_LIMITS.titleChars);
	return {
		action: "feedback",
		project,
		feedback: { id: feedback.id, type: feedback.type, title, url, created_at: new Date(feedback.createdAt).toISOString() },
		...lines(HEADLINES[feedback.type], project, what, url),
	};
}
