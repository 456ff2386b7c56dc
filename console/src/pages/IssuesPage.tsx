import { type FormEvent, useEffect, useId, useState } from "react";
import { Link, useParams } from "react-router";
import { clientEventIdOf, ISSUE_SORTS, ISSUE_STATUSES, type IssueFilters, type IssuePeriod, type IssueStatus, parseIssueSearch, type StatusDetails } from "../api";
import { IgnoreActions, ignoredUntil, isEscalating } from "../components/IgnoreActions";
import { LatestRelease } from "../components/LatestRelease";
import { ResolveActions } from "../components/ResolveActions";
import { incompleteKey, UnfinishedSearch } from "../components/UnfinishedSearch";
import { lastUsed } from "../components/lastUsed";
import { usePageTitle } from "../components/pageTitle";
import { ProjectPicker, useUnknownProjectText } from "../components/Pickers";
import { ConfirmButton } from "../components/ConfirmButton";
import { ActionError, describeError, QueryState } from "../components/QueryState";
import { SearchSuggestions } from "../components/SearchSuggestions";
import { SearchSyntax } from "../components/SearchSyntax";
import { SelectionBar, useSelection } from "../components/Selection";
import { TimeChart } from "../components/TimeChart";
import { UnhandledTag } from "../components/UnhandledTag";
import { type OfferedChoice, UnofferedChoices } from "../components/UnofferedChoices";
import { OWNER_LIMITS } from "../../../domain/limits";
import { ago, count, plural } from "../format";
import { useDeleteIssues, useIssueFilterValues, useIssues, useMergeIssues, useSetIssueStatus } from "../queries";
import { issueLink, offeredValue, useSearch } from "../searchParams";

const HOUR = 3_600_000;
/** The 24 hour starts a `last_24h` list counts, oldest first. */
function last24Hours(now = Date.now()): number[] {
	const current = Math.floor(now / HOUR) * HOUR;
	return Array.from({ length: 24 }, (_, i) => current - (23 - i) * HOUR);
}

/** Where a keyboard user goes after a merge: the dialog and the ticked rows are gone, the merged issue is the next step. */
const focusWhenShown = (element: HTMLElement | null) => element?.focus();

export const STATUS_LABELS = { open: "Open", resolved: "Resolved", ignored: "Ignored" } as const;


/** A name short enough for a select at 390 px: its start and end, which tell releases apart (cut on whole characters). */
function shortName(name: string): string {
	const characters = [...name];
	return characters.length <= 32 ? name : `${characters.slice(0, 14).join("")}…${characters.slice(-17).join("")}`;
}

/**
 * A filter by one of the names the project's issues hold, "All" first. A name in the URL that is
 * not among them (still loading, or no longer held) stays in the list, so the select shows what is applied.
 */
function NameFilter({ label, all, names, value, onChange }: { label: string; all: string; names: string[]; value: string; onChange: (name: string) => void }) {
	const options = value && !names.includes(value) ? [value, ...names] : names;
	return (
		<label className="inline">
			{label}
			<select value={value} onChange={(e) => onChange(e.target.value)}>
				<option value="">{all}</option>
				{options.map((name) => (
					<option key={name} value={name} title={name}>
						{shortName(name)}
					</option>
				))}
			</select>
		</label>
	);
}

/** The keys of a Sentry search that the filters above the list stand for. */
const SEARCH_FILTERS: ReadonlySet<"status" | "environment" | "release" | "period"> = new Set(["status", "environment", "release", "period"]);

/** Everything the list's address can choose: Clear puts each back to its default (open issues, last seen first). */
const CHOICES = ["q", "environment", "release", "status", "sort", "period"] as const;

/** The periods an issue may have been last seen in, as Sentry's issue stream offers them. */
const SEEN_PERIODS: ReadonlyArray<[IssuePeriod, string]> = [
	["1h", "Last hour"],
	["24h", "Last 24 hours"],
	["7d", "Last 7 days"],
	["14d", "Last 14 days"],
	["30d", "Last 30 days"],
	["90d", "Last 90 days"],
];

/** What the list's selects offer; a value in the address that is none of them is said by UnofferedChoices. */
const OFFERED = {
	status: { values: [...ISSUE_STATUSES, "any"], what: "a status", instead: "open issues" },
	sort: { values: ISSUE_SORTS, what: "an order", instead: "the last seen first" },
	period: { values: SEEN_PERIODS.map(([period]) => period), what: "a period", instead: "any time" },
} as const satisfies Record<string, OfferedChoice>;

/** The address's value of `name` if the list offers it. */
const offered = <Name extends keyof typeof OFFERED>(search: URLSearchParams, name: Name): (typeof OFFERED)[Name]["values"][number] | undefined =>
	offeredValue<(typeof OFFERED)[Name]["values"][number]>(search, name, OFFERED[name].values);

export function IssuesPage() {
	const { project = "" } = useParams();
	usePageTitle("Issues", project);
	const [search, change] = useSearch();
	// Open issues unless another status, or all ("any"), is asked for.
	const status = offered(search, "status") ?? "open";
	const filters: IssueFilters = {
		status: status === "any" ? undefined : status,
		environment: search.get("environment") ?? undefined,
		release: search.get("release") ?? undefined,
		q: search.get("q") ?? undefined,
		sort: offered(search, "sort"),
		period: offered(search, "period"),
	};
	const issues = useIssues(project, filters);
	const names = useIssueFilterValues(project);
	// A revoked key takes its issues with it: its list and filters answer "not found", said once in words.
	const unknownProject = useUnknownProjectText(project);
	const items = issues.data?.pages.flatMap((page) => page.issues) ?? [];
	const setStatus = useSetIssueStatus(project);
	const remove = useDeleteIssues(project);
	const merge = useMergeIssues(project);
	const selection = useSelection(
		items.map((issue) => issue.group_hash),
		JSON.stringify([project, filters]),
	);
	useEffect(() => lastUsed.project.set(project), [project]);
	const none = selection.ids.length === 0 || setStatus.isPending || remove.isPending || merge.isPending;
	// Only what was acted on is unticked: what is ticked meanwhile stays for the next action.
	const untick = (groupHashes: string[]) => () => selection.toggle(groupHashes, false);
	const act = (status: IssueStatus, details?: StatusDetails) => {
		const groupHashes = selection.ids;
		setStatus.mutate({ groupHashes, status, details }, { onSuccess: untick(groupHashes) });
	};
	const selected = selection.ids.length;

	const set = (name: string, value: string) => change({ [name]: value });
	const hours = last24Hours();
	// Filtered by environment, each issue's figures are its figures there (as Sentry shows them).
	const scope = filters.environment ? ` in ${shortName(filters.environment)}` : "";
	const filtered = search.has("q") || search.has("environment") || search.has("release") || search.has("period") || status !== "open";
	// A search by the id an SDK gave an event opens that event on the issue's page.
	const searchedEvent = clientEventIdOf(filters.q?.trim());
	// A key without its value, in the box when searched (not sent) or in the address (a link).
	const [typedIncomplete, setTypedIncomplete] = useState<{ at: string; key: ReturnType<typeof incompleteKey> }>();
	const incomplete = (typedIncomplete?.at === search.toString() && typedIncomplete.key) || incompleteKey(filters.q);
	const incompleteId = useId();

	function submitSearch(event: FormEvent<HTMLFormElement>) {
		event.preventDefault();
		const box = event.currentTarget.elements.namedItem("q") as HTMLInputElement;
		// Not searched: the box keeps what was typed, to be finished.
		const unfinished = incompleteKey(box.value);
		setTypedIncomplete({ at: search.toString(), key: unfinished });
		if (unfinished) return;
		// Sentry's is:, environment:, release: and lastSeen: set the filters above, which then show them; the
		// rest (text, level:, is:unhandled, user:, tags) is searched as typed.
		const { text, status: searched, environment, release, period } = parseIssueSearch(box.value.trim(), SEARCH_FILTERS);
		// The box keeps only what is left, also when that leaves the address's search as it was.
		box.value = text ?? "";
		change({
			q: text ?? "",
			...(searched && { status: searched === "open" ? "" : searched }),
			...(environment && { environment }),
			...(release && { release }),
			...(period && { period }),
		});
	}

	return (
		<section>
			<div className="row spread">
				<h1>Issues</h1>
				<ProjectPicker area="issues" current={project} />
			</div>
			<div className="row filters">
				<label className="inline">
					Status
					<select value={status} onChange={(e) => set("status", e.target.value === "open" ? "" : e.target.value)}>
						{ISSUE_STATUSES.map((s) => (
							<option key={s} value={s}>
								{STATUS_LABELS[s]}
							</option>
						))}
						<option value="any">Any status</option>
					</select>
				</label>
				<NameFilter label="Environment" all="All environments" names={names.data?.environments ?? []} value={filters.environment ?? ""} onChange={(v) => set("environment", v)} />
				<NameFilter label="Release" all="All releases" names={names.data?.releases ?? []} value={filters.release ?? ""} onChange={(v) => set("release", v)} />
				<label className="inline">
					Seen in
					<select value={filters.period ?? ""} onChange={(e) => set("period", e.target.value)}>
						<option value="">Any time</option>
						{SEEN_PERIODS.map(([value, label]) => (
							<option key={value} value={value}>
								{label}
							</option>
						))}
					</select>
				</label>
				<label className="inline">
					Sort by
					<select value={filters.sort ?? "last_seen"} onChange={(e) => set("sort", e.target.value === "last_seen" ? "" : e.target.value)}>
						<option value="last_seen">Last seen</option>
						<option value="first_seen">First seen</option>
						<option value="count">Events</option>
						<option value="users">Users</option>
					</select>
				</label>
			</div>
			<UnofferedChoices search={search} offered={OFFERED} />
			{filters.environment && (
				<p className="muted" data-testid="environment-scope">
					Events, users, first and last seen and the 24-hour chart count only what happened in{" "}
					<strong title={filters.environment}>{shortName(filters.environment)}</strong>; an issue's status is the same in every environment.
				</p>
			)}
			{names.isError && !unknownProject && (
				<p className="error" role="alert">
					The environments and releases to filter by could not be read: {describeError(names.error)}
				</p>
			)}
			<form className="row filters" onSubmit={submitSearch} aria-label="Search issues" key={search.get("q") ?? ""}>
				<SearchSuggestions
					project={project}
					environment={filters.environment}
					label="Search title, culprit, short id, hash or event id; Sentry's is:, level:, environment:, release:, user: and tags too"
					name="q"
					placeholder="Search: text, hash, event id, is:unresolved, browser.name:Chrome…"
					defaultValue={filters.q}
					maxLength={200}
					size={28}
					aria-invalid={incomplete ? true : undefined}
					aria-describedby={incomplete ? incompleteId : undefined}
				/>
				<button type="submit">Search</button>
				{CHOICES.some((name) => search.has(name)) && (
					<button type="button" className="link" onClick={() => change(Object.fromEntries(CHOICES.map((name) => [name, null])))}>
						Clear
					</button>
				)}
			</form>
			{incomplete && <UnfinishedSearch unfinished={incomplete} id={incompleteId} />}
			{/* Not the answer to the search before, shown while this one is read. */}
			{!issues.isPlaceholderData && <LatestRelease q={filters.q} release={issues.data?.pages[0]?.latest_release} />}
			<SearchSyntax />
			{items.length > 0 && (
				<SelectionBar selection={selection} label="Selected issues">
					<ResolveActions project={project} disabled={none} onResolve={(details) => act("resolved", details)} />
					<IgnoreActions disabled={none} onIgnore={(ignoring) => act("ignored", ignoring)} />
					<button type="button" disabled={none} onClick={() => act("open")}>
						Reopen
					</button>
					<ConfirmButton
						disabled={none}
						question={
							selected === 1
								? "Delete 1 issue and every event of it? This cannot be undone; an event like them that arrives later opens it again."
								: `Delete ${count(selected)} issues and every event of them? This cannot be undone; an event like theirs that arrives later opens its issue again.`
						}
						confirmLabel="Delete selected"
						removes
						onConfirm={() => remove.mutate(selection.ids, { onSuccess: untick(selection.ids) })}
					>
						Delete…
					</ConfirmButton>
					<ConfirmButton
						disabled={none || selected < 2 || selected > OWNER_LIMITS.issueMutationHashes}
						question={`Merge ${count(selected)} issues into the one with the most events? Their events, users and tags become its, and later events like theirs join it, until you unmerge them from its page.`}
						confirmLabel="Merge selected"
						onConfirm={() => merge.mutate(selection.ids, { onSuccess: untick(selection.ids) })}
					>
						Merge…
					</ConfirmButton>
				</SelectionBar>
			)}
			{merge.data && !merge.isPending && (
				<p role="status">
					Merged into{" "}
					<Link to={issueLink(project, merge.data.group_hash)} ref={focusWhenShown}>
						{merge.data.title}
					</Link>
					.
				</p>
			)}
			<ActionError error={setStatus.error ?? remove.error ?? merge.error} />
			{unknownProject ? (
				<p className="muted empty">{unknownProject}</p>
			) : (
				<QueryState
					query={issues}
					loading="Loading issues…"
					empty={
						filtered
							? searchedEvent && status !== "any"
								? `No ${status} issue holds this event: its issue may have another status (choose Any status).`
								: "No issues match these filters."
							: "No open issues. Send a log event with this project's key (see the project's set-up) and it shows here."
					}
					isEmpty={(data) => data.pages.every((page) => page.issues.length === 0)}
				/>
			)}
			<ul className="plain">
				{items.map((issue) => (
					<li key={issue.group_hash} className="card issue-row">
						<div>
							<div className="row">
								<input
									type="checkbox"
									checked={selection.has(issue.group_hash)}
									onChange={(e) => selection.toggle([issue.group_hash], e.target.checked)}
									aria-label={`Select ${issue.title}`}
								/>
								<span className={`level ${issue.level}`}>{issue.level}</span>
								<Link className="title" to={issueLink(project, issue.group_hash, { event: searchedEvent, environment: filters.environment })} state={{ list: search.toString() }}>
									{issue.title}
								</Link>
								{issue.status !== "open" && <span className={`tag ${issue.status}`}>{STATUS_LABELS[issue.status]}</span>}
								{issue.status === "open" && issue.resolved_in_release && <span className="tag regression">Regression</span>}
								{isEscalating(issue) && <span className="tag escalating">Escalating</span>}
								{issue.unhandled && <UnhandledTag issue />}
							</div>
							{issue.culprit && (
								<div className="muted culprit" title={issue.culprit}>
									{issue.culprit}
								</div>
							)}
							<div className="facts muted">
								{issue.short_id && <span className="short-id">{issue.short_id}</span>}
								<span>
									first seen{scope} {ago(issue.first_seen)}
								</span>
								<span>
									last seen{scope} {ago(issue.last_seen)}
								</span>
								{issue.status === "ignored" && ignoredUntil(issue) && <span>ignored {ignoredUntil(issue)}</span>}
								{issue.resolved_in_release && (
									<span>
										{issue.status === "open"
											? `back after it was resolved in ${issue.resolved_in_release}`
											: `resolved in ${issue.resolved_in_next_release ? "the release after " : ""}${issue.resolved_in_release}`}
									</span>
								)}
							</div>
						</div>
						<div className="stats">
							<TimeChart
								kind="sparkline"
								height={32}
								times={hours}
								series={[{ label: "events", values: issue.last_24h, color: "--chart-1" }]}
								label={`${plural(issue.last_24h.reduce((a, b) => a + b, 0), "event")}${scope} in the last 24 hours`}
							/>
							<span title={`events${scope}`}>
								<strong>{count(issue.count)}</strong> <span className="muted">{issue.count === 1 ? "event" : "events"}</span>
							</span>
							<span title={`users${scope}`}>
								<strong>{count(issue.users)}</strong> <span className="muted">{issue.users === 1 ? "user" : "users"}</span>
							</span>
						</div>
					</li>
				))}
			</ul>
			{issues.hasNextPage && (
				<p className="row">
					<button type="button" onClick={() => issues.fetchNextPage()} disabled={issues.isFetchingNextPage}>
						{issues.isFetchingNextPage ? "Loading more issues…" : "Show more issues"}
					</button>
					<span className="muted">{plural(items.length, "issue")} shown</span>
				</p>
			)}
			{issues.isFetchNextPageError && (
				<p className="error" role="alert">
					{describeError(issues.error)}
				</p>
			)}
		</section>
	);
}
