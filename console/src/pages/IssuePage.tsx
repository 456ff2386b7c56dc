import { useRef } from "react";
import { Link, useParams } from "react-router";
import type { IssueDetailView, IssueEventView, IssueStatus, StackFrame } from "../api";
import { EventsOverTime } from "../components/EventsOverTime";
import { Figure } from "../components/Figure";
import { QueryState } from "../components/QueryState";
import { TableWrap } from "../components/TableWrap";
import { ago, count, dateTime } from "../format";
import { useIssue, useSetIssueStatus } from "../queries";
import { useSearch } from "../searchParams";
import { STATUS_LABELS } from "./IssuesPage";

function frameLabel(frame: StackFrame): string {
	const where = frame.filename ?? frame.abs_path ?? frame.module ?? "?";
	const line = frame.lineno !== undefined ? `:${frame.lineno}${frame.colno !== undefined ? `:${frame.colno}` : ""}` : "";
	// Where the source map names no function, the name the runtime reported.
	return `${frame.function ?? frame.minified?.function ?? "<anonymous>"} (${where}${line})`;
}

/** A breadcrumb's time as the rest of the page shows times: seconds since the epoch (Sentry's) or ISO text; anything else as sent. */
function crumbTime(timestamp: string | number | undefined): string {
	if (timestamp === undefined) return "";
	const ms = typeof timestamp === "number" ? timestamp * 1000 : Date.parse(timestamp);
	return Number.isFinite(ms) ? new Date(ms).toLocaleTimeString() : String(timestamp);
}

/** A breadcrumb without a message, by its data: a request as `GET /api/order → 500`, else its members as `name: value`. */
function crumbData(data: unknown): string {
	if (data === undefined || data === null) return "";
	if (typeof data !== "object" || Array.isArray(data)) return JSON.stringify(data);
	const { method, url, status_code: status, ...rest } = data as Record<string, unknown>;
	const value = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));
	const request = typeof url === "string" ? `${typeof method === "string" ? `${method} ` : ""}${url}${status === undefined ? "" : ` → ${value(status)}`}` : null;
	const others = Object.entries(request === null ? (data as Record<string, unknown>) : rest).map(([name, v]) => `${name}: ${value(v)}`);
	return [request, ...others].filter(Boolean).join("\n");
}

/** The frame's line of source among the lines around it, numbered when the frame's line number is known. */
function SourceLines({ frame, line }: { frame: StackFrame; line: string }) {
	const before = frame.pre_context ?? [];
	// A line's distance from the frame's line is its identity: the same text can appear twice.
	const lines = [...before, line, ...(frame.post_context ?? [])].map((text, i) => ({ text, offset: i - before.length }));
	const firstLine = frame.lineno !== undefined && frame.lineno > before.length ? frame.lineno - before.length : undefined;
	return (
		// Long lines scroll sideways, so the list takes focus to scroll by keyboard.
		// biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (axe: scrollable-region-focusable)
		<ol className={firstLine === undefined ? "context" : "context numbered"} start={firstLine} tabIndex={0} aria-label="source around the frame's line">
			{lines.map(({ text, offset }) => (
				<li key={offset} className={offset === 0 ? "current" : undefined} aria-current={offset === 0 ? "true" : undefined}>
					<code>{text}</code>
				</li>
			))}
		</ol>
	);
}

function Frame({ frame }: { frame: StackFrame }) {
	return (
		<li className={frame.in_app ? "in-app" : undefined}>
			<code>{frameLabel(frame)}</code>
			{frame.in_app && <span className="tag">in app</span>}
			{frame.context_line !== undefined && <SourceLines frame={frame} line={frame.context_line} />}
			{frame.vars && (
				<details className="vars">
					<summary>Local variables</summary>
					<KeyValues values={frame.vars} empty="" />
				</details>
			)}
		</li>
	);
}

/**
 * The stack trace, crash site first as Sentry shows it. In-app frames are shown and
 * highlighted; each run of library frames folds into one line that opens on demand.
 */
function StackTrace({ frames }: { frames: StackFrame[] }) {
	const hasInApp = frames.some((f) => f.in_app);
	// Frames carry no id: their place in the trace (0 is the crash site) is their key.
	const runs: Array<{ inApp: boolean; frames: Array<{ frame: StackFrame; place: number }> }> = [];
	[...frames].reverse().forEach((frame, place) => {
		const inApp = !hasInApp || frame.in_app === true;
		const last = runs.at(-1);
		if (last && last.inApp === inApp) last.frames.push({ frame, place });
		else runs.push({ inApp, frames: [{ frame, place }] });
	});
	const list = (run: (typeof runs)[number]) => (
		<ol className="frames">
			{run.frames.map(({ frame, place }) => (
				<Frame key={place} frame={frame} />
			))}
		</ol>
	);
	return (
		<div className="stack">
			{runs.map((run) =>
				run.inApp ? (
					<div key={run.frames[0].place}>{list(run)}</div>
				) : (
					<details key={run.frames[0].place}>
						<summary className="muted">
							{run.frames.length} library frame{run.frames.length === 1 ? "" : "s"}
						</summary>
						{list(run)}
					</details>
				),
			)}
		</div>
	);
}

const isScalar = (value: unknown) => ["string", "number", "boolean"].includes(typeof value);

/**
 * A value as one line where it can be: a context such as `{name: "Chrome", version: "131.0",
 * type: "browser"}` reads "Chrome 131.0 · type: browser", as Sentry's context cards list it; a
 * nested value stays JSON.
 */
function valueText(value: unknown): string {
	if (typeof value === "string") return value;
	if (typeof value !== "object" || value === null || Array.isArray(value) || !Object.values(value).every(isScalar)) return JSON.stringify(value, null, 1);
	const { name, version, ...rest } = value as Record<string, unknown>;
	const named = name === undefined ? [] : [[name, version].filter((part) => part !== undefined).join(" ")];
	const others = Object.entries(version !== undefined && name === undefined ? { version, ...rest } : rest).map(([key, part]) => `${key}: ${part}`);
	return [...named, ...others].join(" · ");
}

function KeyValues({ values, empty }: { values: Record<string, unknown>; empty: string }) {
	const entries = Object.entries(values).filter(([, v]) => v !== undefined && v !== null && v !== "");
	if (entries.length === 0) return <p className="muted">{empty}</p>;
	return (
		<dl>
			{entries.map(([key, value]) => (
				<div key={key}>
					<dt>{key}</dt>
					<dd className="pre">{valueText(value)}</dd>
				</div>
			))}
		</dl>
	);
}

type LogException = NonNullable<IssueEventView["exception"]>;

const stackOf = (exception: LogException | null) =>
	exception?.stacktrace?.frames.length ? <StackTrace frames={exception.stacktrace.frames} /> : <p className="muted">No stack trace was sent.</p>;

/** The other exceptions of a chain or group, the one nearest the reported exception first. */
function ChainedExceptions({ chain }: { chain: LogException[] }) {
	if (chain.length === 0) return null;
	return (
		<>
			{[...chain].reverse().map((exception, i) => (
				// biome-ignore lint/suspicious/noArrayIndexKey: a stored chain never reorders
				<div key={i} className="chained">
					<h3>
						{exception.type ?? "Exception"}{" "}
						<span className="muted small">{exception.mechanism?.source === "cause" ? "caused it" : exception.mechanism?.source ? `held as ${exception.mechanism.source}` : "in the same chain"}</span>
					</h3>
					{exception.value && <p className="pre">{exception.value}</p>}
					{stackOf(exception)}
				</div>
			))}
		</>
	);
}

function EventDetail({ event }: { event: IssueEventView }) {
	const { exception, request, user } = event;
	// A captured message arrives with a made-up exception to carry its stack: its type means nothing.
	const synthetic = exception?.mechanism?.synthetic === true;
	return (
		<>
			<section className="card" aria-labelledby="exception-heading">
				<h2 id="exception-heading">{(!synthetic && exception?.type) || "Message"}</h2>
				<p className="pre">{exception?.value ?? event.message}</p>
				{exception?.value && event.message && <p className="pre muted">{event.message}</p>}
				{stackOf(exception)}
				<ChainedExceptions chain={event.chained_exceptions ?? []} />
			</section>
			<section className="card" aria-labelledby="breadcrumbs-heading">
				<h2 id="breadcrumbs-heading">Breadcrumbs</h2>
				{event.breadcrumbs.length === 0 ? (
					<p className="muted">No breadcrumbs were sent with this event.</p>
				) : (
					<TableWrap label="Breadcrumbs table">
						<table>
							<thead>
								<tr>
									<th>Time</th>
									<th>Category</th>
									<th>Message</th>
									<th>Level</th>
								</tr>
							</thead>
							<tbody>
								{event.breadcrumbs.map((crumb, i) => (
									// biome-ignore lint/suspicious/noArrayIndexKey: breadcrumbs have no id and never reorder
									<tr key={i}>
										<td>{crumbTime(crumb.timestamp)}</td>
										<td>{crumb.category ?? crumb.type}</td>
										<td className="pre">{crumb.message ?? crumbData(crumb.data)}</td>
										<td>{crumb.level}</td>
									</tr>
								))}
							</tbody>
						</table>
					</TableWrap>
				)}
			</section>
			<div className="two-col">
				<section className="card" aria-labelledby="tags-heading">
					<h2 id="tags-heading">Tags</h2>
					<KeyValues
						values={{ environment: event.environment, release: event.release, platform: event.platform, level: event.level, ...event.tags }}
						empty="No tags."
					/>
				</section>
				<section className="card" aria-labelledby="user-heading">
					<h2 id="user-heading">User</h2>
					<KeyValues values={{ ...user }} empty="No user was sent." />
				</section>
			</div>
			<section className="card" aria-labelledby="request-heading">
				<h2 id="request-heading">Request</h2>
				{request ? (
					<>
						<p>
							<code>
								{request.method} {request.url}
								{/* SDKs send the query in the URL, in query_string, or in both. */}
								{request.query_string && !request.url?.includes("?") ? `?${request.query_string}` : ""}
							</code>
						</p>
						<KeyValues values={request.headers} empty="No headers." />
						{request.body && (
							<pre className="snippet">
								{request.body}
								{request.body_truncated ? "\n… (cut)" : ""}
							</pre>
						)}
					</>
				) : (
					<p className="muted">No request was sent.</p>
				)}
			</section>
			<section className="card" aria-labelledby="contexts-heading">
				<h2 id="contexts-heading">Contexts and SDK</h2>
				<KeyValues
					values={{ ...event.contexts, ...event.custom_contexts, sdk: event.sdk.name ? `${event.sdk.name} ${event.sdk.version ?? ""}` : undefined }}
					empty="No contexts."
				/>
			</section>
			{event.extra && (
				<section className="card" aria-labelledby="extra-heading">
					<h2 id="extra-heading">Additional data</h2>
					<KeyValues values={event.extra} empty="No additional data." />
				</section>
			)}
		</>
	);
}

function StatusActions({ issue, project }: { issue: IssueDetailView; project: string }) {
	const setStatus = useSetIssueStatus(project);
	const actions = useRef<HTMLDivElement>(null);
	// The pressed button goes away with the status it set: keyboard focus moves to the first action left.
	const act = (status: IssueStatus) =>
		setStatus.mutate({ groupHash: issue.group_hash, status }, { onSettled: () => actions.current?.querySelector("button")?.focus() });
	return (
		<div className="row" ref={actions}>
			{issue.status !== "resolved" && (
				<button type="button" className="primary" onClick={() => act("resolved")} disabled={setStatus.isPending}>
					Resolve
				</button>
			)}
			{issue.status !== "ignored" && (
				<button type="button" onClick={() => act("ignored")} disabled={setStatus.isPending}>
					Ignore
				</button>
			)}
			{issue.status !== "open" && (
				<button type="button" onClick={() => act("open")} disabled={setStatus.isPending}>
					Reopen
				</button>
			)}
			{setStatus.error && (
				<span className="error" role="alert">
					{setStatus.error.message}
				</span>
			)}
		</div>
	);
}

export function IssuePage() {
	const { project = "", hash = "" } = useParams();
	const [search, change] = useSearch();
	const issue = useIssue(project, hash);
	const data = issue.data;
	const event = data?.events.find((e) => e.id === search.get("event")) ?? data?.events[0];

	return (
		<section>
			<p>
				<Link to={`/issues/${encodeURIComponent(project)}`}>← Issues of {project}</Link>
			</p>
			<QueryState query={issue} loading="Loading issue…" empty="" isEmpty={() => false} />
			{data && (
				<>
					<h1 className="pre">{data.title}</h1>
					{data.culprit && <p className="muted">{data.culprit}</p>}
					<p className="row">
						<span className={`level ${data.level}`}>{data.level}</span>
						<span className={`tag ${data.status}`} data-testid="issue-status">
							{STATUS_LABELS[data.status]}
						</span>
						{data.status === "resolved" && (
							<span>{data.resolved_in_release ? `Resolved in release ${data.resolved_in_release}` : "Resolved (no release recorded)"}</span>
						)}
						{data.status === "open" && data.resolved_in_release && (
							<span className="tag regression">Regression: resolved in {data.resolved_in_release}, seen again</span>
						)}
					</p>
					<StatusActions issue={data} project={project} />
					<div className="figures">
						<Figure label="Events" value={count(data.count)} />
						<Figure label="Users" value={count(data.users)} />
						<Figure label="First seen" value={ago(data.first_seen)} note={dateTime(data.first_seen)} />
						<Figure label="Last seen" value={ago(data.last_seen)} note={dateTime(data.last_seen)} />
					</div>
					<div className="two-col">
						<EventsOverTime issue={data} />
						<section className="card" aria-labelledby="seen-in-heading">
							<h2 id="seen-in-heading">Seen in</h2>
							<KeyValues
								values={{ environments: data.environments.join(", ") || undefined, releases: data.releases.join(", ") || undefined }}
								empty="No environment or release was sent."
							/>
						</section>
					</div>
					{event && (
						<>
							<h2 id="event-heading" tabIndex={-1}>
								Event {event === data.events[0] ? "(newest)" : ""} <span className="muted">{dateTime(event.timestamp)}</span>
								{/* A minute apart or more: the SDK held the event (offline, batched) or its clock is off. */}
								{Math.abs(Date.parse(event.received_at) - Date.parse(event.timestamp)) >= 60_000 && (
									<span className="muted small"> received {dateTime(event.received_at)}</span>
								)}
								{/* The time the SDK sent, too far ahead to keep: the sender's clock runs fast. */}
								{event.original_timestamp && <span className="muted small"> dated {dateTime(event.original_timestamp)} by a clock that runs ahead</span>}
								{/* The id the SDK gave it: what Sentry.lastEventId() and a report dialog show the person who ran into it. */}
								{event.event_id && <span className="muted small"> ID {event.event_id}</span>}
							</h2>
							<EventDetail event={event} />
						</>
					)}
					<section className="card" aria-labelledby="events-heading">
						<h2 id="events-heading">Newest events</h2>
						<TableWrap label="Newest events table">
							<table>
								<thead>
									<tr>
										<th>Occurred</th>
										<th>Release</th>
										<th>Environment</th>
										<th>User</th>
									</tr>
								</thead>
								<tbody>
									{data.events.map((e) => (
										<tr key={e.id} aria-current={e.id === event?.id ? "true" : undefined}>
											<td>
												<button
													type="button"
													className="link"
													onClick={() => {
														change({ event: e.id });
														// The event's detail is above the list: take the reader there.
														requestAnimationFrame(() => document.getElementById("event-heading")?.focus());
													}}
												>
													{dateTime(e.timestamp)}
												</button>
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
				</>
			)}
		</section>
	);
}
