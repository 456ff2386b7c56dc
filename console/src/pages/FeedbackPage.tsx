import { type FormEvent, useEffect, useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { ApiError, api, clientEventIdOf, FEEDBACK_STATUSES, FEEDBACK_TYPES, type FeedbackRecord, type FeedbackStatus, type FeedbackType, type FieldDefinition } from "../api";
import { SENTRY_FEEDBACK_FIELDS, type SentryFeedbackField } from "../../../domain/api/feedback";
import { Attachment } from "../components/Attachment";
import { usePageTitle } from "../components/pageTitle";
import { ConfirmButton } from "../components/ConfirmButton";
import { DownloadButton } from "../components/DownloadButton";
import { lastUsed } from "../components/lastUsed";
import { ProjectPicker, useUnknownProjectText } from "../components/Pickers";
import { ActionError, describeError, QueryState } from "../components/QueryState";
import { SelectionBar, useSelection } from "../components/Selection";
import { type OfferedChoice, UnofferedChoices } from "../components/UnofferedChoices";
import { FEEDBACK_STATUS_LABELS as STATUS_LABELS } from "../feedbackLabels";
import { ago, plural, utcDateTime } from "../format";
import { useDeleteFeedback, useFeedback, useFeedbackItem, useIssuesOfPeople, useProjects, useSetFeedbackStatus } from "../queries";
import { feedbackItemLink, issueLink, issueListLink, offeredValue, useSearch } from "../searchParams";

/** The types of feedback, as the list's Type select offers them. */
const TYPE_LABELS: Record<FeedbackType, string> = { issue: "Issues", feature_request: "Feature requests" };

/** What the list's selects offer; a value in the address that is none of them is said by UnofferedChoices. */
const OFFERED = {
	type: { values: FEEDBACK_TYPES, what: "a type of feedback", instead: "all types" },
	status: { values: FEEDBACK_STATUSES, what: "a status", instead: "any status" },
} as const satisfies Record<string, OfferedChoice>;

const titleOf = (item: FeedbackRecord) => (typeof item.data.title === "string" && item.data.title) || "(no title)";

/** A status select, named by `label`, or by the visible label of its `id`. */
function StatusSelect({ value, onChange, label, id }: { value: FeedbackStatus; onChange: (status: FeedbackStatus) => void; label?: string; id?: string }) {
	return (
		<select id={id} aria-label={label} value={value} onChange={(e) => onChange(e.target.value as FeedbackStatus)}>
			{FEEDBACK_STATUSES.map((s) => (
				<option key={s} value={s}>
					{STATUS_LABELS[s]}
				</option>
			))}
		</select>
	);
}

function TypeTag({ type }: { type: FeedbackType }) {
	return <span className={`tag ${type}`}>{type === "issue" ? "Issue" : "Feature"}</span>;
}

/** Who sent an item, as log events name users: its email and any user id field. */
function peopleOf(item: FeedbackRecord): string[] {
	const values = ["email", "user_id", "userId", "user"].map((key) => item.data[key]);
	return [...new Set(values.filter((v): v is string => typeof v === "string" && v.trim() !== "").map((v) => v.trim()))];
}

/** The issues the sender of a feedback item ran into, by the user recorded on log events. */
function RelatedIssues({ project, people }: { project: string; people: string[] }) {
	const { issues, pending, error } = useIssuesOfPeople(project, people);
	return (
		<section className="card" aria-labelledby="related-heading">
			<h3 id="related-heading">Issues this person ran into</h3>
			{people.length === 0 ? (
				<p className="muted">This item names no email or user id to look for in the logs.</p>
			) : pending ? (
				<p className="muted" role="status">
					Looking for {people.join(" or ")} in the logs…
				</p>
			) : error ? (
				<p className="error">{describeError(error)}</p>
			) : issues.length === 0 ? (
				<p className="muted">No log event of this project names {people.join(" or ")}.</p>
			) : (
				<ul className="plain">
					{issues.slice(0, 10).map((issue) => (
						<li key={issue.group_hash} className="row">
							<span className={`level ${issue.level}`}>{issue.level}</span>
							<Link to={issueLink(project, issue.group_hash)}>{issue.title}</Link>
							<span className="muted">
								{issue.status} · {plural(issue.count, "event")} · last seen {ago(issue.last_seen)}
							</span>
						</li>
					))}
				</ul>
			)}
		</section>
	);
}

/** One item read whole (the list cuts long text), or why it cannot be shown. */
function FeedbackItem({ id, project, back }: { id: string; project: string; back: string }) {
	const item = useFeedbackItem(project, id);
	usePageTitle(item.data && titleOf(item.data), "Feedback", project);
	if (item.data) return <FeedbackDetail item={item.data} project={project} back={back} />;
	if (item.error instanceof ApiError && item.error.status === 404) {
		return (
			<p className="muted">
				This item no longer exists: it may have been deleted. <Link to={back}>All feedback</Link>
			</p>
		);
	}
	return <QueryState query={item} loading="Loading feedback…" empty="" isEmpty={() => false} />;
}

/**
 * The fields of the project's form, by key, as the owner configured them; a field sent beyond the
 * form (or since removed from it) has none and is shown by its key, as text.
 */
function useFormFields(project: string, type: FeedbackType): Map<string, FieldDefinition> {
	const projectKey = useProjects().data?.find((key) => key.project_name === project);
	const fields = type === "feature_request" ? projectKey?.feature_field_config : projectKey?.issue_field_config;
	return new Map(fields?.map((field) => [field.key, field]));
}

/** A stored value as the owner acts on it: an address to write to, a page to open (both were checked as submitted), else its text. */
/** The field's label when a Sentry SDK's feedback added it beside the form's. */
const sentryFieldLabel = (key: string): string | undefined => (Object.hasOwn(SENTRY_FEEDBACK_FIELDS, key) ? SENTRY_FEEDBACK_FIELDS[key as SentryFeedbackField] : undefined);

function FieldValue({ field, value, type, project }: { field: string; value: unknown; type: FieldDefinition["type"] | undefined; project: string }) {
	if (typeof value !== "string") return <>{JSON.stringify(value)}</>;
	if (type === "email") return <a href={`mailto:${value}`}>{value}</a>;
	if ((type === "url" || (type === undefined && field === ("page_url" satisfies SentryFeedbackField))) && /^https?:\/\//i.test(value)) {
		return (
			<a href={value} target="_blank" rel="noopener noreferrer nofollow">
				{value}
			</a>
		);
	}
	// The event the feedback was given for: the issue search finds the issue that holds it, whatever its status, and opens that event.
	const eventId = type === undefined && field === ("sentry_event_id" satisfies SentryFeedbackField) ? clientEventIdOf(value) : null;
	if (eventId) {
		return (
			<>
				{value} <Link to={issueListLink(project, new URLSearchParams({ status: "any", q: eventId }))}>Open its issue</Link>
			</>
		);
	}
	return <>{value}</>;
}

/** Every field of one item, its images among them, and what can be done with it. */
function FeedbackDetail({ item, project, back }: { item: FeedbackRecord; project: string; back: string }) {
	const setStatus = useSetFeedbackStatus(project);
	const remove = useDeleteFeedback(project);
	const navigate = useNavigate();
	const fields = useFormFields(project, item.type);
	const labelOf = (key: string) => fields.get(key)?.label ?? sentryFieldLabel(key) ?? key;
	const title = titleOf(item);
	// Each field's images, in the order they came: a row of the fields for each, as its other fields have.
	const imagesOf = new Map<string, FeedbackRecord["attachments"]>();
	for (const image of item.attachments) imagesOf.set(image.field, [...(imagesOf.get(image.field) ?? []), image]);
	return (
		<article className="card" aria-labelledby="feedback-title">
			<p>
				<Link to={back}>← All feedback</Link>
			</p>
			<h2 id="feedback-title" className="row">
				<TypeTag type={item.type} /> <span className="shrinks">{title}</span>
			</h2>
			<p className="muted">Received {utcDateTime(item.created_at)}</p>
			<div className="row">
				<label className="inline" htmlFor={`status-${item.id}`}>
					Status
					<StatusSelect id={`status-${item.id}`} value={item.status} onChange={(status) => setStatus.mutate({ ids: [item.id], status })} />
				</label>
				<ConfirmButton
					question={`Delete "${title}"? It cannot be brought back.`}
					confirmLabel="Delete feedback"
					onConfirm={() => remove.mutate([item.id], { onSuccess: () => navigate(back) })}
				>
					Delete…
				</ConfirmButton>
				{/* On the page before it speaks, so that a screen reader hears the change once made (a failure is the alert below). */}
				<span className="muted" role="status">
					{setStatus.isSuccess && `Status set to ${STATUS_LABELS[setStatus.variables.status]}`}
				</span>
			</div>
			<dl className="fields">
				{Object.entries(item.data).map(([key, value]) => (
					<div key={key}>
						<dt>{labelOf(key)}</dt>
						<dd className="pre">
							<FieldValue field={key} value={value} type={fields.get(key)?.type} project={project} />
						</dd>
					</div>
				))}
				{[...imagesOf].map(([field, images]) => (
					<div key={`images of ${field}`}>
						<dt>{labelOf(field)}</dt>
						<dd>
							<ul className="thumbs">
								{images.map((image, index) => (
									<li key={image.id}>
										{/* A field's images are told apart by their place among its own: "Screenshots, 2 of 3". */}
										<Attachment url={image.url} label={`${labelOf(field)}${images.length > 1 ? `, ${index + 1} of ${images.length}` : ""} of ${title}`} />
									</li>
								))}
							</ul>
						</dd>
					</div>
				))}
			</dl>
			<ActionError error={setStatus.error ?? remove.error} />
			<RelatedIssues project={project} people={peopleOf(item)} />
		</article>
	);
}

export function FeedbackPage() {
	const { project = "", id } = useParams();
	const [search, change] = useSearch();
	const type = offeredValue(search, "type", OFFERED.type.values);
	const status = offeredValue(search, "status", OFFERED.status.values);
	const q = search.get("q") || undefined;
	const list = useFeedback(project, type, status, q);
	const setStatus = useSetFeedbackStatus(project);
	const remove = useDeleteFeedback(project);
	const [bulkStatus, setBulkStatus] = useState<FeedbackStatus>("closed");
	const items = list.data?.pages.flatMap((page) => page.feedback) ?? [];
	// Feedback outlives a revoked key, so an unknown name is only worth saying when nothing is listed.
	const unknownProject = useUnknownProjectText(project);

	useEffect(() => lastUsed.project.set(project), [project]);
	// An item's page is named by FeedbackItem, which knows the item's title.
	usePageTitle(...(id ? [] : ["Feedback", project]));
	const selection = useSelection(
		items.map((item) => item.id),
		JSON.stringify([project, type, status, q]),
	);

	const setFilter = (name: string, value: string) => change({ [name]: value });
	function submitSearch(event: FormEvent<HTMLFormElement>) {
		event.preventDefault();
		const box = event.currentTarget.elements.namedItem("q") as HTMLInputElement;
		change({ q: box.value.trim() });
	}
	const back = `/feedback/${encodeURIComponent(project)}${search.size ? `?${search}` : ""}`;
	const { ids } = selection;
	// Only what was acted on is unticked: what is ticked meanwhile stays for the next action.
	const untick = (acted: string[]) => () => selection.toggle(acted, false);

	if (id) {
		return (
			<section>
				<div className="row spread">
					<h1>Feedback</h1>
					<ProjectPicker area="feedback" current={project} />
				</div>
				<FeedbackItem id={id} project={project} back={back} />
			</section>
		);
	}

	return (
		<section>
			<div className="row spread">
				<h1>Feedback</h1>
				<ProjectPicker area="feedback" current={project} />
			</div>
			<div className="row filters">
				<label className="inline">
					Type
					<select value={type ?? ""} onChange={(e) => setFilter("type", e.target.value)}>
						<option value="">All types</option>
						{FEEDBACK_TYPES.map((t) => (
							<option key={t} value={t}>
								{TYPE_LABELS[t]}
							</option>
						))}
					</select>
				</label>
				<label className="inline">
					Status
					<select value={status ?? ""} onChange={(e) => setFilter("status", e.target.value)}>
						<option value="">Any status</option>
						{FEEDBACK_STATUSES.map((s) => (
							<option key={s} value={s}>
								{STATUS_LABELS[s]}
							</option>
						))}
					</select>
				</label>
			</div>
			<UnofferedChoices search={search} offered={OFFERED} />
			<form className="row filters" onSubmit={submitSearch} aria-label="Search feedback" key={q ?? ""}>
				<label className="inline">
					<span className="visually-hidden">Search the feedback's text, or an item's id</span>
					<input type="search" name="q" placeholder="Search: text, email, id…" defaultValue={q} maxLength={200} size={28} />
				</label>
				<button type="submit">Search</button>
				{(q || type || status) && (
					<button type="button" className="link" onClick={() => change({ q: null, type: null, status: null })}>
						Clear
					</button>
				)}
			</form>
			{items.length > 0 && (
				<SelectionBar selection={selection} label="Selected feedback">
					<span aria-hidden="true">→</span>
					<StatusSelect label="New status for selected" value={bulkStatus} onChange={setBulkStatus} />
					<button type="button" disabled={ids.length === 0} onClick={() => setStatus.mutate({ ids, status: bulkStatus }, { onSuccess: untick(ids) })}>
						Set status
					</button>
					<ConfirmButton
						disabled={ids.length === 0}
						question={ids.length === 1 ? "Delete 1 feedback item? It cannot be brought back." : `Delete ${ids.length} feedback items? They cannot be brought back.`}
						confirmLabel="Delete selected"
						removes
						onConfirm={() => remove.mutate(ids, { onSuccess: untick(ids) })}
					>
						Delete…
					</ConfirmButton>
				</SelectionBar>
			)}
			<ActionError error={setStatus.error ?? remove.error} />
			{items.length > 0 && <DownloadButton what="the feedback these filters keep (the newest 1,000)" download={() => api.downloadFeedbackCsv(project, { type, status, q })} />}
			<QueryState
				query={list}
				loading="Loading feedback…"
				empty={
					unknownProject ?? (type || status || q ? "No feedback matches these filters." : "No feedback yet for this project.")
				}
				isEmpty={(data) => data.pages.every((page) => page.feedback.length === 0)}
			/>
			<ul className="plain">
				{items.map((item) => (
					<li key={item.id} className="card feedback">
						<div className="row">
							<input type="checkbox" checked={selection.has(item.id)} onChange={(e) => selection.toggle([item.id], e.target.checked)} aria-label={`Select ${titleOf(item)}`} />
							<TypeTag type={item.type} />
							<Link to={feedbackItemLink(project, item.id, search)} className="title">
								{titleOf(item)}
							</Link>
						</div>
						<div className="row">
							<span className="muted">{utcDateTime(item.created_at)}</span>
							{typeof item.data.email === "string" && <span className="muted">from {item.data.email}</span>}
							{item.attachments.length > 0 && <span className="muted">{plural(item.attachments.length, "image")}</span>}
							<StatusSelect label={`Status of ${titleOf(item)}`} value={item.status} onChange={(s) => setStatus.mutate({ ids: [item.id], status: s })} />
						</div>
						{typeof item.data.description === "string" && <p className="description clamp">{item.data.description}</p>}
						{item.truncated_fields.length > 0 && <p className="muted">Long text is cut here: open the item to read it whole.</p>}
					</li>
				))}
			</ul>
			{list.hasNextPage && (
				<p className="row">
					<button type="button" onClick={() => list.fetchNextPage()} disabled={list.isFetchingNextPage}>
						{list.isFetchingNextPage ? "Loading older feedback…" : "Show older feedback"}
					</button>
					<span className="muted">{items.length} shown</span>
				</p>
			)}
			{list.isFetchNextPageError && (
				<p className="error" role="alert">
					{describeError(list.error)}
				</p>
			)}
		</section>
	);
}
