/**
 * The one typed client the console talks to the API through. The answer types are the Worker's
 * own (domain/api/), so a change to an answer is a type error here.
 */
import type { AlertTestView, AlertWebhookAnswer, AlertWebhookView } from "../../domain/api/alerts";
import type { PasswordChangedView, SessionView, SignedOutView, UserView } from "../../domain/api/accounts";
import type { FeedbackPageView, FeedbackRecordView } from "../../domain/api/feedback";
import type { TagKeysView, TagValuesView } from "../../domain/api/issueSearchSuggestions";
import type {
	IssueActivityView,
	IssueDetailView,
	IssueEventView,
	IssueFeedbackView,
	IssueFilterValuesView,
	IssuePageView,
	IssueStatus,
	IssueTagsView,
	IssueView,
	MergedFingerprintView,
	StatusDetails,
	UnmergeView,
} from "../../domain/api/issues";
import type { NewProjectKeyView, ProjectKeyView } from "../../domain/api/keys";
import type { LogOutcomesView } from "../../domain/api/logOutcomes";
import type { CrawlerStatsView, SitePagesView, SiteStatsView, SiteView, SiteWithFiguresView } from "../../domain/api/sites";
export type { ArtifactListView, ArtifactView as Artifact } from "../../domain/api/sourcemaps";
import type { ArtifactListView, NewUploadTokenView, UploadTokenView } from "../../domain/api/sourcemaps";
import type { FeedbackStatus, FeedbackType } from "../../domain/feedback/typesAndStatuses";
import { OWNER_LIMITS } from "../../domain/limits";

export type { UserView as User } from "../../domain/api/accounts";
export type { FeedbackPageView, FeedbackRecordView as FeedbackRecord } from "../../domain/api/feedback";
export {
	clientEventIdOf,
	ESCALATING_FOR_MS,
	handledOf,
	type IgnoreCondition,
	type IssueActivityView,
	type IssuePeriod,
	ISSUE_SORTS,
	ISSUE_STATUSES,
	type IssueDetailView,
	type IssueEventView,
	type IssuePageView,
	type IssueStatus,
	type IssueView,
	type StatusDetails,
	type UnmergeView,
} from "../../domain/api/issues";
export { parseIssueSearch, searchValue } from "../../domain/api/issueSearch";
export { FIELD_TYPES, type FieldDefinition, type FieldType, type ProjectKeyView as ProjectKey } from "../../domain/api/keys";
export {
	type CrawlerPurpose,
	type CrawlerStatsView,
	filterOperators,
	filterParam,
	GOAL_FILTER_PARAMS,
	negatedFilter,
	type PeriodTotalsView,
	type SeriesPointView,
	seriesBucketStarts,
	STATS_FILTER_NAMES,
	STATS_FILTER_PARAMS,
	type SitePagesView,
	type SiteStatsView,
	type SiteView,
	type SiteWithFiguresView,
	type StatsFilterName,
	type StatsFilterOperator,
	type StatsFilterParam,
	UTM_NAMES,
} from "../../domain/api/sites";
export type { StackFrame } from "../../domain/logs/logEvent";
export { FEEDBACK_STATUSES, FEEDBACK_TYPES, type FeedbackStatus, type FeedbackType } from "../../domain/feedback/typesAndStatuses";

export class ApiError extends Error {
	constructor(
		readonly status: number,
		message: string,
		/** The answer's other members, as an endpoint documents them (a merged issue's `merged_into`). */
		readonly details: Record<string, unknown> = {},
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

/** How long ignoring lasts, or resolving in the next release, as the API's fields name them. */
const detailFields = ({ minutes, events, users, escalating, inNextRelease, inRelease }: StatusDetails) => ({
	ignore_for_minutes: minutes,
	ignore_until_events: events,
	ignore_until_users: users,
	ignore_until_escalating: escalating,
	resolve_in_next_release: inNextRelease,
	resolve_in_release: inRelease,
});

async function request<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
	const headers: Record<string, string> = {};
	const token = sessionToken.get();
	if (token) headers.authorization = `Bearer ${token}`;
	if (body !== undefined) headers["content-type"] = "application/json";
	const res = await fetch(path, { method, headers, signal, body: body === undefined ? undefined : JSON.stringify(body) });
	if (res.status === 204) return undefined as T;
	const payload = await res.json().catch(() => ({ error: `Unexpected answer (${res.status})` }));
	if (!res.ok) {
		const { error, ...details } = payload;
		throw new ApiError(res.status, error ?? `Request failed (${res.status})`, details);
	}
	return payload as T;
}

/** A file the API makes, saved by the browser under the name the API gives it (else `fallbackName`). */
async function saveFile(path: string, fallbackName: string): Promise<void> {
	const res = await fetch(path, { headers: { authorization: `Bearer ${sessionToken.get()}` } });
	if (!res.ok) throw new ApiError(res.status, ((await res.json().catch(() => ({}))) as { error?: string }).error ?? `Download failed (${res.status})`);
	const name = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1] ?? fallbackName;
	const link = Object.assign(document.createElement("a"), { href: URL.createObjectURL(await res.blob()), download: name });
	link.click();
	setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

/**
 * Many ids changed at once, `most` a request (the server's limit; a list read whole holds more):
 * the requests go in turn, and their answers come back in order.
 */
async function inTurn<T>(ids: string[], most: number, send: (part: string[]) => Promise<T>): Promise<T[]> {
	const answers: T[] = [];
	for (let start = 0; start < ids.length; start += most) answers.push(await send(ids.slice(start, start + most)));
	return answers;
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

/** A query string of the parameters that have a value. */
const q = (params: Record<string, string | undefined>) =>
	new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== "")).toString();

export interface IssueFilters {
	status?: string;
	environment?: string;
	release?: string;
	q?: string;
	sort?: string;
	user?: string;
	period?: string;
}

/** Statistics queries: a range, optional filters, the rows per list and `compare=previous`. */
export type StatsQuery = Record<string, string | undefined>;

export type KeyChanges = Partial<Omit<ProjectKeyView, "project_name" | "key_hint" | "created_at">>;

const byName = new Intl.Collator(undefined, { sensitivity: "base", numeric: true });

export const api = {
	signUp: (email: string, password: string) => request<SessionView>("POST", "/api/auth/signup", { email, password }),
	signIn: (email: string, password: string) => request<SessionView>("POST", "/api/auth/login", { email, password }),
	me: () => request<{ user: UserView }>("GET", "/api/auth/me"),
	signOut: () => request<void>("POST", "/api/auth/logout"),
	changePassword: (current_password: string, new_password: string) =>
		request<PasswordChangedView>("POST", "/api/auth/password", { current_password, new_password }),
	signOutOtherSessions: () => request<SignedOutView>("POST", "/api/auth/logout-others"),

	/** In the order people read names: letter case aside, and `app 2` before `app 10`. */
	listKeys: () => request<{ keys: ProjectKeyView[] }>("GET", "/api/feedback-keys").then((r) => r.keys.sort((a, b) => byName.compare(a.project_name, b.project_name))),
	createKey: (project_name: string) => request<NewProjectKeyView>("POST", "/api/feedback-key", { project_name }),
	regenerateKey: (project_name: string) => request<NewProjectKeyView>("POST", "/api/feedback-key/regenerate", { project_name }),
	updateKey: (project_name: string, changes: KeyChanges) => request<ProjectKeyView>("PATCH", "/api/feedback-key", { project_name, ...changes }),
	revokeKey: (project_name: string) => request<{ deleted: boolean }>("DELETE", `/api/feedback-key?${q({ project_name })}`),

	/** One page of the list, newest first; `cursor` is the previous page's `next_cursor`. */
	listFeedback: (project_name: string, filters: { type?: FeedbackType; status?: FeedbackStatus; q?: string; cursor?: string; limit: number }, signal?: AbortSignal) =>
		request<FeedbackPageView>("GET", `/api/feedback?${q({ project_name, ...filters, limit: String(filters.limit) })}`, undefined, signal),
	readFeedback: (id: string) => request<FeedbackRecordView>("GET", `/api/feedback/${encodeURIComponent(id)}`),
	/** One status for many items, OWNER_LIMITS.feedbackMutationIds a request. */
	setFeedbackStatus: async (ids: string[], status: FeedbackStatus) => ({
		updated: sum(await inTurn(ids, OWNER_LIMITS.feedbackMutationIds, async (part) => (await request<{ updated: number }>("PATCH", "/api/feedback", { ids: part, status })).updated)),
	}),
	/** Many items at once, OWNER_LIMITS.feedbackMutationIds a request. */
	deleteFeedback: async (ids: string[]) => ({
		deleted: sum(await inTurn(ids, OWNER_LIMITS.feedbackMutationIds, async (part) => (await request<{ deleted: number }>("DELETE", "/api/feedback", { ids: part })).deleted)),
	}),

	/** One page of the list; `cursor` is the previous page's `next_cursor`, in the same sort. */
	listIssues: (project_name: string, filters: IssueFilters, page: { cursor?: string; limit?: number }, signal?: AbortSignal) =>
		request<IssuePageView>("GET", `/api/issues?${q({ project_name, ...filters, cursor: page.cursor, limit: page.limit?.toString() })}`, undefined, signal),
	issueFilterValues: (project_name: string) => request<IssueFilterValuesView>("GET", `/api/issues/filter-values?${q({ project_name })}`),
	/** The search box's suggestions: the project's tag keys, and a tag's most common values from a prefix. */
	issueTagKeys: (project_name: string, environment?: string, signal?: AbortSignal) =>
		request<TagKeysView>("GET", `/api/issues/tag-keys?${q({ project_name, environment })}`, undefined, signal),
	issueTagValues: (project_name: string, key: string, prefix: string, environment?: string, signal?: AbortSignal) =>
		request<TagValuesView>("GET", `/api/issues/tag-values?${q({ project_name, key, prefix, environment })}`, undefined, signal),
	/** With `search` (`q`), the issue's events that match it (parseIssueSearch's syntax, the keys about events). */
	readIssue: (project_name: string, groupHash: string, environment?: string, search?: string, signal?: AbortSignal) =>
		request<IssueDetailView>("GET", `/api/issues/${groupHash}?${q({ project_name, environment, q: search })}`, undefined, signal),
	/** One event of the issue, whatever its age, by its stored id or the id its SDK gave it. */
	readIssueEvent: (project_name: string, groupHash: string, eventId: string, signal?: AbortSignal) =>
		request<IssueEventView>("GET", `/api/issues/${groupHash}/events/${encodeURIComponent(eventId)}?${q({ project_name })}`, undefined, signal),
	issueTags: (project_name: string, groupHash: string, environment?: string) =>
		request<IssueTagsView>("GET", `/api/issues/${groupHash}/tags?${q({ project_name, environment })}`),
	/** The user feedback given about the issue's events, newest first. */
	issueFeedback: (project_name: string, groupHash: string) => request<{ feedback: IssueFeedbackView[] }>("GET", `/api/issues/${groupHash}/feedback?${q({ project_name })}`),
	deleteIssue: (project_name: string, groupHash: string) => request<{ deleted: number; events: number }>("DELETE", `/api/issues/${groupHash}?${q({ project_name })}`),
	/** Many issues at once, OWNER_LIMITS.issueMutationHashes a request. */
	async deleteIssues(project_name: string, groupHashes: string[]): Promise<{ deleted: number; events: number }> {
		const answers = await inTurn(groupHashes, OWNER_LIMITS.issueMutationHashes, (group_hashes) =>
			request<{ deleted: number; events: number }>("DELETE", "/api/issues", { project_name, group_hashes }),
		);
		return { deleted: sum(answers.map((a) => a.deleted)), events: sum(answers.map((a) => a.events)) };
	},
	/** Sentry's merge: the issues become the one of them with the most events, which is answered. */
	mergeIssues: (project_name: string, groupHashes: string[]) => request<IssueView>("POST", "/api/issues/merge", { project_name, group_hashes: groupHashes }),
	/** The issues merged into this one (their fingerprints), with their events it holds. */
	mergedIssues: (project_name: string, groupHash: string) =>
		request<{ merged: MergedFingerprintView[] }>("GET", `/api/issues/${groupHash}/merged?${q({ project_name })}`),
	/** Sentry's unmerge: the issues named, merged into this one, get their events back. */
	unmergeIssues: (project_name: string, groupHash: string, groupHashes: string[]) =>
		request<UnmergeView>("POST", `/api/issues/${groupHash}/unmerge`, { project_name, group_hashes: groupHashes }),
	/** A note left in the issue's activity (Sentry's comment). */
	addIssueNote: (project_name: string, groupHash: string, text: string) => request<IssueActivityView>("POST", `/api/issues/${groupHash}/notes`, { project_name, text }),
	setIssueStatus: (project_name: string, groupHash: string, status: IssueStatus, details: StatusDetails = {}) =>
		request<IssueView>("PATCH", `/api/issues/${groupHash}`, { project_name, status, ...detailFields(details) }),
	/** One status for many issues, OWNER_LIMITS.issueMutationHashes a request. */
	async setIssueStatuses(project_name: string, groupHashes: string[], status: IssueStatus, details: StatusDetails = {}): Promise<IssueView[]> {
		const answers = await inTurn(groupHashes, OWNER_LIMITS.issueMutationHashes, (group_hashes) =>
			request<{ issues: IssueView[] }>("PATCH", "/api/issues", { project_name, group_hashes, status, ...detailFields(details) }),
		);
		return answers.flatMap((a) => a.issues);
	},
	alertWebhook: (project_name: string) => request<AlertWebhookAnswer>("GET", `/api/alert-webhook?${q({ project_name })}`).then((r) => r.webhook),
	setAlertWebhook: (project_name: string, url: string, feedback?: boolean) => request<AlertWebhookView>("PUT", "/api/alert-webhook", { project_name, url, feedback }),
	removeAlertWebhook: (project_name: string) => request<void>("DELETE", `/api/alert-webhook?${q({ project_name })}`),
	testAlertWebhook: (project_name: string) => request<AlertTestView>("POST", "/api/alert-webhook/test", { project_name }),
	logOutcomes: (project_name: string, days: number) => request<LogOutcomesView>("GET", `/api/log-outcomes?${q({ project_name, days: String(days) })}`),

	listSites: () => request<{ sites: SiteView[] }>("GET", "/api/sites").then((r) => r.sites),
	listSitesWithFigures: () => request<{ sites: SiteWithFiguresView[] }>("GET", "/api/sites?figures=last_24h").then((r) => r.sites),
	createSite: (domain: string, name?: string) => request<SiteView>("POST", "/api/sites", { domain, name: name || undefined }),
	updateSite: (trackingId: string, changes: Partial<Pick<SiteView, "name" | "domain" | "active" | "attack_mode">>) =>
		request<SiteView>("PATCH", `/api/sites/${trackingId}`, changes),
	deleteSite: (trackingId: string) => request<void>("DELETE", `/api/sites/${trackingId}`),
	siteStats: (trackingId: string, query: StatsQuery, signal?: AbortSignal) =>
		request<SiteStatsView>("GET", `/api/sites/${trackingId}/stats?${q(query)}`, undefined, signal),
	/** The last 30 minutes by minute and the visitors on the site now, under the filters. */
	realtimeStats: (trackingId: string, query: StatsQuery, signal?: AbortSignal) =>
		request<SiteStatsView>("GET", `/api/sites/${trackingId}/stats/realtime?${q(query)}`, undefined, signal),
	crawlerStats: (trackingId: string, query: StatsQuery, signal?: AbortSignal) =>
		request<CrawlerStatsView>("GET", `/api/sites/${trackingId}/crawlers?${q(query)}`, undefined, signal),
	sitePages: (trackingId: string, query: StatsQuery, signal?: AbortSignal) =>
		request<SitePagesView>("GET", `/api/sites/${trackingId}/pages?${q(query)}`, undefined, signal),

	/** One breakdown of the statistics as a CSV file, saved by the browser under the name the API gives it. */
	downloadCsv: (trackingId: string, breakdown: string, query: StatsQuery) => saveFile(`/api/sites/${trackingId}/stats/${breakdown}.csv?${q(query)}`, `${breakdown}.csv`),
	/** The feedback the list's filters keep as a CSV file (the newest 1,000, whole). */
	downloadFeedbackCsv: (project_name: string, filters: { type?: FeedbackType; status?: FeedbackStatus; q?: string }) =>
		saveFile(`/api/feedback.csv?${q({ project_name, ...filters })}`, "feedback.csv"),

	listUploadTokens: (project_name: string) => request<{ tokens: UploadTokenView[] }>("GET", `/api/upload-tokens?${q({ project_name })}`).then((r) => r.tokens),
	createUploadToken: (project_name: string) => request<NewUploadTokenView>("POST", "/api/upload-tokens", { project_name }),
	revokeUploadToken: (id: string) => request<{ deleted: boolean }>("DELETE", `/api/upload-tokens/${encodeURIComponent(id)}`),
	listArtifacts: (project_name: string) => request<ArtifactListView>("GET", `/api/artifacts?${q({ project_name })}`),
	deleteArtifact: (project_name: string, id: string) => request<{ deleted: number }>("DELETE", `/api/artifacts/${encodeURIComponent(id)}?${q({ project_name })}`),
	deleteRelease: (project_name: string, release: string) => request<{ deleted: number }>("DELETE", `/api/artifacts?${q({ project_name, release })}`),

	/** Attachments need the session header, so they are fetched as blobs rather than linked. */
	async attachmentUrl(url: string): Promise<string> {
		const res = await fetch(url, { headers: { authorization: `Bearer ${sessionToken.get()}` } });
		if (!res.ok) throw new ApiError(res.status, "Attachment could not be loaded");
		return URL.createObjectURL(await res.blob());
	},
};
