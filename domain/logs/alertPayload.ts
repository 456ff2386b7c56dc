/**
 * The body an issue alert POSTs to its webhook: the issue and the event that raised it, and one
 * short line for chat apps (Slack and Mattermost read `text`, Discord `content`), linking to the
 * issue's console page.
 */
import type { AlertAction, AlertPayload } from "../api/alerts";
import { ALERT_LIMITS } from "../limits";

/** The issue as an alert tells of it; times in ms. */
export interface AlertIssue {
	groupHash: string;
	title: string;
	culprit: string | null;
	level: string;
	count: number;
	firstSeen: number;
	lastSeen: number;
}

export interface AlertEvent {
	eventId: string | null;
	environment: string | null;
	release: string | null;
	timestamp: number | null;
}

const HEADLINES: Record<AlertAction, string> = {
	created: "New issue",
	regressed: "Regression",
	unignored: "Ignored issue is back",
	escalating: "Escalating issue",
	test: "Test alert",
};

/** The console's page of the issue (its route /issues/:project/:hash); a test alert's, made up, links to the project's issues. */
const issueConsoleUrl = (origin: string, project: string, groupHash: string | null) =>
	`${origin}/issues/${encodeURIComponent(project)}${groupHash === null ? "" : `/${groupHash}`}`;

const cut = (text: string, chars: number) => (text.length > chars ? `${text.slice(0, chars - 1)}…` : text);

/** Slack reads `&`, `<` and `>` as markup: escaped as its incoming webhooks ask. */
const slackEscaped = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

export function alertPayload(action: AlertAction, project: string, origin: string, issue: AlertIssue, event: AlertEvent): AlertPayload {
	const url = issueConsoleUrl(origin, project, action === "test" ? null : issue.groupHash);
	const what = `${cut(issue.title, ALERT_LIMITS.titleChars)}${issue.culprit ? ` (${cut(issue.culprit, ALERT_LIMITS.titleChars)})` : ""}`;
	const line = (text: string) => `${HEADLINES[action]} in ${text} — `;
	return {
		action,
		project,
		issue: {
			group_hash: issue.groupHash,
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
		text: `${line(slackEscaped(`${project}: ${what}`))}<${url}>`,
		content: `${line(`${project}: ${what}`)}${url}`,
		allowed_mentions: { parse: [] },
	};
}
