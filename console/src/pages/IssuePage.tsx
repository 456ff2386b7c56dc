import { type FormEvent, useEffect, useId, useRef, useState } from "react";
import { Link, Navigate, useLocation, useNavigate, useParams } from "react-router";
import { ApiError, clientEventIdOf, handledOf, type IssueDetailView, type IssueStatus, type StatusDetails, searchValue } from "../api";
import { CopyButton } from "../components/CopyButton";
import { EventDetail, KeyValues } from "../components/EventDetail";
import { usePageTitle } from "../components/pageTitle";
import { EventsOverTime } from "../components/EventsOverTime";
import { Figure } from "../components/Figure";
import { IgnoreActions, ignoredUntil, isEscalating } from "../components/IgnoreActions";
import { ResolveActions, resolvedIn } from "../components/ResolveActions";
import { incompleteKey, type Unfinished, UnfinishedSearch } from "../components/UnfinishedSearch";
import { IssueActivity } from "../components/IssueActivity";
import { IssueFeedback } from "../components/IssueFeedback";
import { MergedIssues } from "../components/MergedIssues";
import { ConfirmButton } from "../components/ConfirmButton";
import { ActionError, QueryState } from "../components/QueryState";
import { TableWrap } from "../components/TableWrap";
import { IssueTags } from "../components/IssueTags";
import { SearchSuggestions } from "../components/SearchSuggestions";
import { ISSUE_ONLY_KEYS_LISTED } from "../../../domain/api/issueSearchSuggestions";
import { UnhandledTag } from "../components/UnhandledTag";
import { ago, count, plural, utcDateTime } from "../format";
import { useDeleteIssues, useIssue, useIssueEvent, useIssueEventSearch, useSetIssueStatus } from "../queries";
import { issueLink, issueListLink, useSearch } from "../searchParams";
import { STATUS_LABELS } from "./IssuesPage";


/** Sentry's Newest / Newer / Older / Oldest: from one of the issue's events to the next, among those the page holds. */
function EventSteps({
	events,
	shown,
	searched,
	onChoose,
}: { events: IssueDetailView["events"]; shown: IssueDetailView["events"][number]; searched: boolean; onChoose: (id: string) => void }) {
	const at = events.indexOf(shown);
	// An event read alone, not among those held: none of them is known to be next to it.
	const steps: [label: string, index: number][] = [
		["Newest", 0],
		["‹ Newer", at < 0 ? -1 : at - 1],
		["Older ›", at < 0 ? -1 : at + 1],
		["Oldest", events.length - 1],
	];
	return (
		<nav className="row" aria-label="Events of this issue">
			{steps.map(([label, index]) => (
				<button key={label} type="button" disabled={index < 0 || index >= events.length || index === at} onClick={() => onChoose(events[index].id)}>
					{label}
				</button>
			))}
			<span className="muted small">
				{at < 0 ? "Not one" : count(at + 1)} of the {count(events.length)} newest{searched ? " that match" : ""}
			</span>
		</nav>
	);
}

/** What the events table says an event is: its message, else its exception's type and value (Sentry's "Type: value"). */
function eventMessage(event: IssueDetailView["events"][number]): string {
	if (event.message) return event.message;
	const { type, value } = event.exception ?? {};
	return [type, value].filter(Boolean).join(": ");
}

/** The event search's box, as the page words it. */
const EVENT_SEARCH_WORDS = {
	q: {
		name: "The search",
		says: (message: string) =>
			message.endsWith("search the issue list, not an issue's events")
				? `This box searches this issue's events; ${ISSUE_ONLY_KEYS_LISTED} ask about an issue as a whole: search the issue list with them.`
				: undefined,
	},
};

/**
 * Sentry's search of an issue's events: its tags (`browser.name:Chrome`, `has:user`, `!`), level,
 * environment, release, user and text. The events shown and stepped through are then the matches.
 */
function EventSearchForm({ project, q, environment, found, error }: { project: string; q?: string; environment?: string; found?: IssueDetailView; error: unknown }) {
	const [, change] = useSearch();
	// A key without its value, as typed (not searched) or in the address (a link).
	const [typed, setTyped] = useState<{ q?: string; unfinished: Unfinished | null }>();
	const unfinished = (typed && typed.q === q && typed.unfinished) || incompleteKey(q, "events");
	const unfinishedId = useId();
	function submit(event: FormEvent<HTMLFormElement>) {
		event.preventDefault();
		const box = event.currentTarget.elements.namedItem("q") as HTMLInputElement;
		// Not searched: the box keeps what was typed, to be finished.
		const typedUnfinished = incompleteKey(box.value, "events");
		setTyped({ q, unfinished: typedUnfinished });
		if (typedUnfinished) return;
		// The event chosen may not match: the newest match is shown instead.
		change({ q: box.value.trim(), event: null });
	}
	const counted = found?.event_search;
	return (
		<>
			<form className="row filters" onSubmit={submit} aria-label="Search this issue's events" key={q ?? ""}>
				<SearchSuggestions
					project={project}
					environment={environment}
					scope="events"
					label="Search this issue's events: tags, has:, level:, user:, text"
					name="q"
					placeholder="Search events: browser.name:Chrome, has:user…"
					defaultValue={q}
					maxLength={200}
					size={36}
					aria-invalid={unfinished ? true : undefined}
					aria-describedby={unfinished ? unfinishedId : undefined}
				/>
				<button type="submit">Search events</button>
				{q && (
					<button type="button" className="link" onClick={() => change({ q: null, event: null })}>
						Clear
					</button>
				)}
			</form>
			{unfinished && <UnfinishedSearch unfinished={unfinished} id={unfinishedId} />}
			<ActionError error={error} fields={EVENT_SEARCH_WORDS} />
			{q && counted && (
				<p className="muted" data-testid="event-search-result" aria-live="polite">
					{counted.matched === 0 ? "None" : count(counted.matched)} of {counted.searched >= found.count ? "its" : "the latest"} {plural(counted.searched, "event")}{" "}
					{counted.matched > 1 ? "match" : "matches"} <code>{q}</code>.{" "}
					<Link to={issueListLink(project, new URLSearchParams({ status: "any", q, ...(environment && { environment }) }))}>Search all issues for it</Link>
				</p>
			)}
		</>
	);
}

function StatusActions({ issue, project, listLink }: { issue: IssueDetailView; project: string; listLink: string }) {
	const setStatus = useSetIssueStatus(project);
	const remove = useDeleteIssues(project);
	const navigate = useNavigate();
	const actions = useRef<HTMLDivElement>(null);
	const refocus = useRef(false);
	const act = (status: IssueStatus, details?: StatusDetails) => {
		refocus.current = true;
		setStatus.mutate({ groupHashes: [issue.group_hash], status, details });
	};
	// The pressed button goes away with the status it set: keyboard focus moves to the first action
	// left, once the actions are enabled again (a disabled button takes no focus, so not before).
	useEffect(() => {
		if (setStatus.isPending || !refocus.current) return;
		refocus.current = false;
		actions.current?.querySelector("button")?.focus();
	}, [setStatus.isPending]);
	return (
		<div className="row" ref={actions}>
			{issue.status !== "resolved" && <ResolveActions primary project={project} onResolve={(details) => act("resolved", details)} disabled={setStatus.isPending} />}
			<IgnoreActions
				onIgnore={(ignoring) => act("ignored", ignoring)}
				disabled={setStatus.isPending}
				ignoredForGood={issue.status === "ignored" && ignoredUntil(issue) === null}
			/>
			{issue.status !== "open" && (
				<button type="button" onClick={() => act("open")} disabled={setStatus.isPending}>
					Reopen
				</button>
			)}
			<ConfirmButton
				question="Delete this issue and every event of it? This cannot be undone; an event like them that arrives later opens it again."
				confirmLabel="Delete issue"
				onConfirm={() => remove.mutate([issue.group_hash], { onSuccess: () => navigate(listLink) })}
				disabled={remove.isPending}
			>
				Delete…
			</ConfirmButton>
			<ActionError error={setStatus.error ?? remove.error} inline />
		</div>
	);
}

export function IssuePage() {
	const { project = "", hash = "" } = useParams();
	// Back to the list as it was left (its search, filters and sort), when the list opened this page.
	const { state } = useLocation();
	const listQuery = typeof state?.list === "string" ? state.list : "";
	const listLink = issueListLink(project, listQuery);
	const [search, change] = useSearch();
	// Opened from the list filtered by environment: the issue as it reads there, as the list showed it.
	const environment = search.get("environment") || undefined;
	const issue = useIssue(project, hash, environment);
	const data = issue.data;
	// A search of its events: the events below are those that match it.
	const q = search.get("q") || undefined;
	const eventSearch = useIssueEventSearch(project, hash, environment, q);
	const events = (q ? eventSearch.data?.events : data?.events) ?? [];
	usePageTitle(data?.title, "Issues", project);
	// `event` is a stored event's id (the list below) or the id its SDK gave it (a search by it).
	const wanted = search.get("event");
	const wantedEventId = clientEventIdOf(wanted);
	const chosen = events.find((e) => e.id === wanted || (wantedEventId !== null && e.event_id === wantedEventId));
	// A linked event the newest do not hold (older than them: a merged issue's latest, an old link) is
	// read alone; not during a search, whose matches are what the page shows and steps through.
	const lookup = wanted && !q && data && !chosen && wantedEventId !== null ? wanted : undefined;
	const alone = useIssueEvent(project, hash, lookup);
	const refused = alone.error instanceof ApiError && (alone.error.status === 404 || alone.error.status === 400);
	const waiting = lookup !== undefined && alone.isPending;
	const event = chosen ?? (lookup ? alone.data : undefined) ?? (waiting ? undefined : events[0]);
	// A linked event not found: of another issue, expired, or (in a search) not matching or older than those read.
	const held = eventSearch.data?.event_search?.matched;
	const missing =
		wanted && !chosen && event && (q || wantedEventId === null || refused) ? { id: wanted, older: q !== undefined && held !== undefined && held > events.length } : null;
	// A link to an issue merged into another (a bookmark, an old alert): on to that issue, as Sentry goes, which says so.
	const mergedInto = issue.error instanceof ApiError ? issue.error.details.merged_into : undefined;
	if (typeof mergedInto === "string") return <Navigate to={issueLink(project, mergedInto)} replace state={{ ...state, mergedFrom: hash }} />;

	return (
		<section>
			<p>
				<Link to={listLink}>← Issues of {project}</Link>
			</p>
			<QueryState query={issue} loading="Loading issue…" empty="" isEmpty={() => false} />
			{/* A link kept from a list filtered by an environment the issue has no events in (any more): the issue is still there, in the others. */}
			{environment && issue.error instanceof ApiError && issue.error.status === 404 && !data && (
				<p>
					<Link to={issueLink(project, hash)} state={state}>
						Show all environments
					</Link>
				</p>
			)}
			{data && (
				<>
					{state?.mergedFrom && (
						<p className="card notice shrinks" role="status" data-testid="merged-from">
							The issue you opened, <code>{state.mergedFrom}</code>, was merged into this one.
						</p>
					)}
					<h1 className="pre">{data.title}</h1>
					{data.culprit && <p className="muted">{data.culprit}</p>}
					<p className="row">
						{data.short_id && (
							<span className="row short-id" data-testid="short-id">
								<code>{data.short_id}</code>
								<CopyButton text={data.short_id} what={`the short id ${data.short_id}`} />
							</span>
						)}
						<span className={`level ${data.level}`}>{data.level}</span>
						<span className={`tag ${data.status}`} data-testid="issue-status">
							{STATUS_LABELS[data.status]}
						</span>
						{data.status === "ignored" && ignoredUntil(data) && <span data-testid="ignored-until">{ignoredUntil(data)}</span>}
						{data.status === "resolved" && (
							<span>{resolvedIn(data)}</span>
						)}
						{data.status === "open" && data.resolved_in_release && (
							<span className="tag regression">Regression: resolved in {data.resolved_in_release}, seen again</span>
						)}
						{isEscalating(data) && data.escalated_at && (
							<span className="tag escalating" title={utcDateTime(data.escalated_at)}>
								Escalating: reopened {ago(data.escalated_at)}
							</span>
						)}
						{data.unhandled && <UnhandledTag issue />}
					</p>
					<StatusActions issue={data} project={project} listLink={listLink} />
					{environment && (
						<p className="muted" data-testid="environment-scope">
							Events, users, first and last seen, the chart and the newest events are those of <strong>{environment}</strong>.{" "}
							<Link to={issueLink(project, hash)} state={state}>
								Show all environments
							</Link>
						</p>
					)}
					<div className="figures">
						<Figure label="Events" value={count(data.count)} />
						<Figure label="Users" value={count(data.users)} />
						<Figure label="First seen" value={ago(data.first_seen)} note={utcDateTime(data.first_seen)} />
						<Figure label="Last seen" value={ago(data.last_seen)} note={utcDateTime(data.last_seen)} />
					</div>
					<div className="two-col">
						<EventsOverTime issue={data} />
						<section className="card" aria-labelledby="seen-in-heading">
							<h2 id="seen-in-heading">Seen in</h2>
							<KeyValues
								values={{
									environments: data.environments.join(", ") || undefined,
									releases: data.releases.join(", ") || undefined,
									"first seen in": data.first_release ?? undefined,
									"last seen in": data.last_release ?? undefined,
								}}
								empty="No environment or release was sent."
							/>
							{data.first_release && !data.first_release.includes('"') && (
								<p className="small">
									<Link
										to={issueListLink(
											project,
											new URLSearchParams({ status: "any", q: `firstRelease:${searchValue(data.first_release)}`, ...(environment && { environment }) }),
										)}
									>
										Issues new in {data.first_release}
									</Link>
								</p>
							)}
						</section>
					</div>
					<IssueTags project={project} groupHash={hash} environment={environment} />
					<EventSearchForm project={project} q={q} environment={environment} found={eventSearch.data} error={q && eventSearch.error} />
					{missing && (
						<p className="card notice shrinks" role="status" data-testid="event-not-found">
							The linked event <code>{missing.id}</code> was not found among {missing.older ? `the ${count(events.length)} newest` : "the"} events of this issue
							{q ? " that match the search" : ""}: it may {[missing.older && "be older", q && "not match", "have expired"].filter(Boolean).join(", ")} or
							belong to another issue. The newest {q ? "match" : "event"} is shown instead.
						</p>
					)}
					{(event || waiting) && (
						<>
							{/* One heading while the linked event is read and once it is: focus taken to it stays. */}
							<h2 id="event-heading" tabIndex={-1}>
								Event {event === events[0] ? (q ? "(newest match)" : "(newest)") : ""}{" "}
								{event && <span className="muted">{utcDateTime(event.timestamp)}</span>}
								{/* A minute apart or more: the SDK held the event (offline, batched) or its clock is off. */}
								{event && Math.abs(Date.parse(event.received_at) - Date.parse(event.timestamp)) >= 60_000 && (
									<span className="muted small"> received {utcDateTime(event.received_at)}</span>
								)}
								{/* The time the SDK sent, corrected: the sender's clock runs fast, or is set hours off. */}
								{event?.original_timestamp && (
									<span className="muted small">
										{" "}
										dated {utcDateTime(event.original_timestamp)} by a clock that runs {event.original_timestamp > event.timestamp ? "ahead" : "behind"}
									</span>
								)}
								{/* The id the SDK gave it: what Sentry.lastEventId() and a report dialog show the person who ran into it. */}
								{event?.event_id && <span className="muted small"> ID {event.event_id}</span>}
							</h2>
							{lookup && !refused && !alone.data && <QueryState query={alone} loading="Loading the linked event…" empty="" isEmpty={() => false} />}
							{event && (
								<>
									<EventSteps events={events} shown={event} searched={q !== undefined} onChoose={(id) => change({ event: id })} />
									<EventDetail event={event} />
								</>
							)}
						</>
					)}
					{events.length > 0 && (
						<section className="card" aria-labelledby="events-heading">
							<h2 id="events-heading">{q ? "Newest events that match" : "Newest events"}</h2>
							<TableWrap label="Newest events table">
								<table>
									<thead>
										<tr>
											<th>Occurred</th>
											<th>Message</th>
											<th>Release</th>
											<th>Environment</th>
											<th>User</th>
										</tr>
									</thead>
									<tbody>
										{events.map((e) => (
											<tr key={e.id} aria-current={e.id === event?.id ? "true" : undefined}>
												<td className="event-occurred">
													<button
														type="button"
														className="link"
														onClick={() => {
															change({ event: e.id });
															// The event's detail is above the list: take the reader there.
															requestAnimationFrame(() => document.getElementById("event-heading")?.focus());
														}}
													>
														{utcDateTime(e.timestamp)}
													</button>
													{handledOf(e) === "no" && <> <UnhandledTag /></>}
												</td>
												<td className="event-message" title={eventMessage(e)}>
													<span>{eventMessage(e)}</span>
												</td>
												<td>{e.release}</td>
												<td>{e.environment}</td>
												<td>{e.user?.email ?? e.user?.id ?? e.user?.username ?? e.user?.ip_address}</td>
											</tr>
										))}
									</tbody>
								</table>
							</TableWrap>
						</section>
					)}
					<IssueFeedback project={project} groupHash={hash} />
					<MergedIssues project={project} groupHash={hash} />
					<IssueActivity issue={data} project={project} />
				</>
			)}
		</section>
	);
}
