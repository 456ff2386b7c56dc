/** Query keys and the hooks every page reads the API through. */
import { hashKey, type InfiniteData, keepPreviousData, useInfiniteQuery, useMutation, useQueries, useQuery } from "@tanstack/react-query";
import {
	api,
	type FeedbackPageView,
	type FeedbackRecord,
	type FeedbackStatus,
	type FeedbackType,
	type IssueFilters,
	type IssuePageView,
	type StatusDetails,
	type IssueStatus,
	type IssueView,
	type KeyChanges,
	type ProjectKey,
	type StatsQuery,
} from "./api";
import { queryClient, refreshAfter } from "./queryClient";

export const keys = {
	projects: ["projects"] as const,
	feedback: (project: string) => ["feedback", project] as const,
	issues: (project: string) => ["issues", project] as const,
	issueFilterValues: (project: string) => ["issue-filter-values", project] as const,
	sites: ["sites"] as const,
	site: (trackingId: string) => ["site", trackingId] as const,
	uploadTokens: (project: string) => ["upload-tokens", project] as const,
	artifacts: (project: string) => ["artifacts", project] as const,
	alertWebhook: (project: string) => ["alert-webhook", project] as const,
};

/** The owner's project keys; `{ read: false }` follows what pages read without reading it itself. */
export const useProjects = ({ read = true } = {}) => useQuery({ queryKey: keys.projects, queryFn: api.listKeys, enabled: read });

/** What became of the project's log events over the last `days` days (accepted, filtered, rate limited...). */
export const useLogOutcomes = (project: string, days: number) =>
	useQuery({ queryKey: [...keys.issues(project), "outcomes", days], queryFn: () => api.logOutcomes(project, days) });

/** The project's issue-alert webhook; null when none is set. */
export const useAlertWebhook = (project: string) => useQuery({ queryKey: keys.alertWebhook(project), queryFn: () => api.alertWebhook(project) });

/** The owner's sites; `{ read: false }` follows what pages read without reading it itself. */
export const useSites = ({ read = true } = {}) => useQuery({ queryKey: keys.sites, queryFn: api.listSites, enabled: read });

/**
 * Each site's visitors in the last 24 hours, by tracking ID: read beside the list, which shows at
 * once, and refreshed with it (its key is under the list's).
 */
export const useSiteFigures = () =>
	useQuery({
		queryKey: [...keys.sites, "last_24h"],
		queryFn: api.listSitesWithFigures,
		select: (sites) => new Map(sites.map((site) => [site.tracking_id, site.last_24h])),
	});

/** Feedback items read per request; more are read on demand with the list's cursor. */
const FEEDBACK_PAGE = 50;

/** The feedback list, newest first, one API page at a time (`fetchNextPage` reads the next). */
export const useFeedback = (project: string, type?: FeedbackType, status?: FeedbackStatus, q?: string) =>
	useInfiniteQuery({
		queryKey: [...keys.feedback(project), "list", type ?? "", status ?? "", q ?? ""],
		queryFn: ({ pageParam, signal }) => api.listFeedback(project, { type, status, q, cursor: pageParam, limit: FEEDBACK_PAGE }, signal),
		initialPageParam: undefined as string | undefined,
		getNextPageParam: (page) => page.next_cursor ?? undefined,
		placeholderData: keepPreviousData,
	});

/** One feedback item whole (a list cuts long text). */
const feedbackItemKey = (project: string, id: string) => [...keys.feedback(project), "one", id] as const;

export const useFeedbackItem = (project: string, id: string) => useQuery({ queryKey: feedbackItemKey(project, id), queryFn: () => api.readFeedback(id) });

/** Issues read per request; more are read on demand with the list's cursor. */
const ISSUE_PAGE = 50;

/** The issue list in its sort, one API page at a time (`fetchNextPage` reads the next). */
export const useIssues = (project: string, filters: IssueFilters) =>
	useInfiniteQuery({
		queryKey: [...keys.issues(project), "list", filters],
		queryFn: ({ pageParam, signal }) => api.listIssues(project, filters, { cursor: pageParam, limit: ISSUE_PAGE }, signal),
		initialPageParam: undefined as string | undefined,
		getNextPageParam: (page) => page.next_cursor ?? undefined,
		placeholderData: keepPreviousData,
	});

/** The environments and releases the project's issues hold, whatever the list's filters. */
export const useIssueFilterValues = (project: string) =>
	useQuery({ queryKey: keys.issueFilterValues(project), queryFn: () => api.issueFilterValues(project) });

/** The issues of the people named (user ids or emails), any status, most recently seen first. */
export const useIssuesOfPeople = (project: string, people: string[]) =>
	useQueries({
		queries: people.map((user) => ({
			queryKey: [...keys.issues(project), "list", { user, status: "any" }],
			queryFn: ({ signal }: { signal: AbortSignal }) => api.listIssues(project, { user }, {}, signal),
		})),
		combine: (results) => {
			const seen = new Map<string, IssueView>();
			for (const issue of results.flatMap((r) => r.data?.issues ?? [])) seen.set(issue.group_hash, issue);
			return {
				issues: [...seen.values()].sort((a, b) => b.last_seen.localeCompare(a.last_seen)),
				pending: results.some((r) => r.isPending),
				error: results.find((r) => r.error)?.error ?? null,
			};
		},
	});

/** One issue; with `environment`, as it reads there (its figures, events and counts in it). */
export const useIssue = (project: string, groupHash: string, environment?: string) =>
	useQuery({ queryKey: [...keys.issues(project), "one", groupHash, environment], queryFn: () => api.readIssue(project, groupHash, environment) });

/** The issue's events that match `search` (in `environment` when named); nothing is asked without one. */
export const useIssueEventSearch = (project: string, groupHash: string, environment?: string, search?: string) =>
	useQuery({
		queryKey: [...keys.issues(project), "one", groupHash, environment, search],
		queryFn: ({ signal }) => api.readIssue(project, groupHash, environment, search, signal),
		enabled: search !== undefined,
		// The events found before stay while the next search runs, as a list's page does.
		placeholderData: keepPreviousData,
	});

/** One event of the issue by its id, read alone (one the issue's newest events do not hold); nothing is asked without one. */
export const useIssueEvent = (project: string, groupHash: string, eventId?: string) =>
	useQuery({
		queryKey: [...keys.issues(project), "event", groupHash, eventId],
		queryFn: ({ signal }) => api.readIssueEvent(project, groupHash, eventId ?? "", signal),
		enabled: eventId !== undefined,
	});

/** The tags of the issue's events (in `environment` when named). */
export const useIssueTags = (project: string, groupHash: string, environment?: string) =>
	useQuery({ queryKey: [...keys.issues(project), "tags", groupHash, environment], queryFn: () => api.issueTags(project, groupHash, environment) });

/** The statistics of a range; nothing is asked while not `enabled` (all time, until the site's first day is known). */
export const useSiteStats = (trackingId: string, query: StatsQuery, enabled = true) =>
	useQuery({
		queryKey: [...keys.site(trackingId), "stats", query],
		queryFn: ({ signal }) => api.siteStats(trackingId, query, signal),
		placeholderData: keepPreviousData,
		enabled,
		// "On the site now" counts the last 5 minutes: read again every minute while the page is in view.
		refetchInterval: 60_000,
	});

/** How often the realtime view reads again: Plausible's realtime dashboard refreshes every 30 seconds. */
const REALTIME_REFRESH_MS = 30_000;

/**
 * The realtime view: the last 30 minutes, read again every 30 seconds while the page is visible
 * (TanStack Query holds an interval's reads while the tab is hidden, `refetchIntervalInBackground`
 * being off, and reads again when it shows). Nothing is asked while not `enabled`.
 */
export const useRealtimeStats = (trackingId: string, query: StatsQuery, enabled = true) =>
	useQuery({
		queryKey: [...keys.site(trackingId), "realtime", query],
		queryFn: ({ signal }) => api.realtimeStats(trackingId, query, signal),
		placeholderData: keepPreviousData,
		enabled,
		refetchInterval: REALTIME_REFRESH_MS,
	});

export const useCrawlerStats = (trackingId: string, query: StatsQuery, enabled = true) =>
	useQuery({
		queryKey: [...keys.site(trackingId), "crawlers", query],
		queryFn: ({ signal }) => api.crawlerStats(trackingId, query, signal),
		placeholderData: keepPreviousData,
		enabled,
	});

export const useSitePages = (trackingId: string, query: StatsQuery) =>
	useQuery({
		queryKey: [...keys.site(trackingId), "pages", query],
		queryFn: ({ signal }) => api.sitePages(trackingId, query, signal),
		placeholderData: keepPreviousData,
	});

/** A project key change; the projects list is read again afterwards. */
export const useUpdateKey = (project: string) =>
	useMutation({
		mutationFn: (changes: KeyChanges) => api.updateKey(project, changes),
		onSuccess: (key) => queryClient.setQueryData<ProjectKey[]>(keys.projects, (list) => list?.map((k) => (k.project_name === key.project_name ? key : k))),
		onSettled: (_answer, error) => refreshAfter(error, { queryKey: keys.projects }),
	});

/** A cached feedback answer (a list's pages or one item) with the chosen items' status changed. */
function withStatus(data: InfiniteData<FeedbackPageView> | FeedbackRecord | undefined, chosen: Set<string>, status: FeedbackStatus) {
	if (!data) return data;
	if ("pages" in data) {
		return { ...data, pages: data.pages.map((page) => ({ ...page, feedback: page.feedback.map((item) => (chosen.has(item.id) ? { ...item, status } : item)) })) };
	}
	return chosen.has(data.id) ? { ...data, status } : data;
}

/**
 * Sets the status of feedback items at once in every cached list and item (optimistic), puts
 * them back if the server refuses, and reads them again either way.
 */
export const useSetFeedbackStatus = (project: string) =>
	useMutation({
		mutationFn: ({ ids, status }: { ids: string[]; status: FeedbackStatus }) => api.setFeedbackStatus(ids, status),
		onMutate: async ({ ids, status }) => {
			const key = keys.feedback(project);
			await queryClient.cancelQueries({ queryKey: key });
			const previous = queryClient.getQueriesData({ queryKey: key });
			const chosen = new Set(ids);
			queryClient.setQueriesData<InfiniteData<FeedbackPageView> | FeedbackRecord>({ queryKey: key }, (data) => withStatus(data, chosen, status));
			return { previous };
		},
		onError: (_error, _vars, context) => {
			for (const [key, data] of context?.previous ?? []) queryClient.setQueryData(key, data);
		},
		onSettled: (_answer, error) => refreshAfter(error, { queryKey: keys.feedback(project) }),
	});

export const useDeleteFeedback = (project: string) =>
	useMutation({
		mutationFn: (ids: string[]) => api.deleteFeedback(ids),
		// Everything but the deleted items is read again: an item's page, still open until the owner is
		// taken back, would ask for it and get a 404.
		onSettled: (_answer, error, ids) =>
			refreshAfter(error, {
				queryKey: keys.feedback(project),
				predicate: ({ queryHash }) => !ids.some((id) => queryHash === hashKey(feedbackItemKey(project, id))),
			}),
	});

/** Deletes issues with their events (the issue page's one, or the list's selection); every issue query but the deleted ones' own is read again. */
export const useDeleteIssues = (project: string) =>
	useMutation({
		mutationFn: (groupHashes: string[]) =>
			groupHashes.length === 1 ? api.deleteIssue(project, groupHashes[0]) : api.deleteIssues(project, groupHashes),
		onSettled: (_answer, error, groupHashes) =>
			refreshAfter(error, { queryKey: keys.issues(project), predicate: ({ queryKey }) => !groupHashes.some((hash) => queryKey.includes(hash)) }),
	});

/** Merge issues into one: every issue read may have changed (counts, tags, the merged ones gone). */
export const useMergeIssues = (project: string) =>
	useMutation({
		mutationFn: (groupHashes: string[]) => api.mergeIssues(project, groupHashes),
		onSettled: (_answer, error) => refreshAfter(error, { queryKey: keys.issues(project) }),
	});

/** A note left on an issue: its activity read again. */
export const useAddIssueNote = (project: string, groupHash: string) =>
	useMutation({
		mutationFn: (text: string) => api.addIssueNote(project, groupHash, text),
		onSettled: (_answer, error) => refreshAfter(error, { queryKey: [...keys.issues(project), "one", groupHash] }),
	});

/** The issues merged into this one, to unmerge. */
/** The user feedback given about the issue's events. */
export const useIssueFeedback = (project: string, groupHash: string) =>
	useQuery({ queryKey: [...keys.issues(project), "feedback", groupHash], queryFn: () => api.issueFeedback(project, groupHash) });

export const useMergedIssues = (project: string, groupHash: string) =>
	useQuery({ queryKey: [...keys.issues(project), "merged", groupHash], queryFn: () => api.mergedIssues(project, groupHash) });

/** Unmerge issues from this one: every issue read may have changed (both sides counted again, the unmerged ones back). */
export const useUnmergeIssues = (project: string, groupHash: string) =>
	useMutation({
		mutationFn: (groupHashes: string[]) => api.unmergeIssues(project, groupHash, groupHashes),
		onSettled: (_answer, error) => refreshAfter(error, { queryKey: keys.issues(project) }),
	});

/** Resolve, ignore or reopen an issue, or several of the list's at once, shown at once everywhere it is cached. */
export const useSetIssueStatus = (project: string) =>
	useMutation({
		mutationFn: ({ groupHashes, status, details }: { groupHashes: string[]; status: IssueStatus; details?: StatusDetails }) =>
			groupHashes.length === 1
				? api.setIssueStatus(project, groupHashes[0], status, details).then((issue) => [issue])
				: api.setIssueStatuses(project, groupHashes, status, details),
		onMutate: async ({ groupHashes, status }) => {
			const key = keys.issues(project);
			await queryClient.cancelQueries({ queryKey: key });
			const previous = queryClient.getQueriesData({ queryKey: key });
			const chosen = new Set(groupHashes);
			queryClient.setQueriesData<InfiniteData<IssuePageView> | IssuePageView | IssueView>({ queryKey: key }, (data) => {
				const change = <T extends IssueView>(issue: T) => (chosen.has(issue.group_hash) ? { ...issue, status } : issue);
				const changePage = (page: IssuePageView) => ({ ...page, issues: page.issues.map(change) });
				if (!data) return data;
				if ("pages" in data) return { ...data, pages: data.pages.map(changePage) };
				return "issues" in data ? changePage(data) : change(data);
			});
			return { previous };
		},
		onError: (_error, _vars, context) => {
			for (const [key, data] of context?.previous ?? []) queryClient.setQueryData(key, data);
		},
		onSettled: (_answer, error) => refreshAfter(error, { queryKey: keys.issues(project) }),
	});

/** The search box's suggestions are read again at most this often while it is used. */
const SUGGESTIONS_FRESH_MS = 30_000;

/** The project's tag keys (with a value in `environment` when named), for the search box; read only while `enabled`. */
export const useIssueTagKeys = (project: string, environment: string | undefined, enabled: boolean) =>
	useQuery({
		queryKey: ["issue-search-suggestions", project, "keys", environment],
		queryFn: ({ signal }) => api.issueTagKeys(project, environment, signal),
		enabled,
		staleTime: SUGGESTIONS_FRESH_MS,
	});

/**
 * A tag's most common values from `prefix`, for the search box; keyed by the prefix (which the
 * box debounces), the last answer shown while the next is read.
 */
export const useIssueTagValues = (project: string, key: string, prefix: string, environment: string | undefined, enabled: boolean) =>
	useQuery({
		queryKey: ["issue-search-suggestions", project, "values", key, prefix, environment],
		queryFn: ({ signal }) => api.issueTagValues(project, key, prefix, environment, signal),
		enabled,
		staleTime: SUGGESTIONS_FRESH_MS,
		placeholderData: keepPreviousData,
	});
