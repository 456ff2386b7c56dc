/**
 * One event of an issue as the issue page shows it: the exception and its stack (crash site first,
 * library frames folded, each mapped frame beside the minified one it came as, and why frames
 * were not mapped), breadcrumbs, tags, user, request, contexts and additional data.
 */
import { handledOf, type IssueEventView, type StackFrame } from "../api";
import { utcTime } from "../format";
import { CopyButton } from "./CopyButton";
import { TableWrap } from "./TableWrap";
import { UnhandledTag } from "./UnhandledTag";

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
	return Number.isFinite(ms) ? utcTime(ms) : String(timestamp);
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
			{/* Mapped through a source map: where the code that ran was, as the runtime reported it. */}
			{frame.minified && <span className="muted small minified"> mapped from {frameLabel(frame.minified)}</span>}
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

export function KeyValues({ values, empty }: { values: Record<string, unknown>; empty: string }) {
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

/** Why frames of a minified stack were not mapped to the original code (no map uploaded for the release, a map too large…). */
function SymbolicationNotes({ event }: { event: IssueEventView }) {
	const { symbolication } = event;
	if (!symbolication || symbolication.notes.length === 0) return null;
	return (
		<div className="symbolication" role="note">
			<p className="muted">
				{symbolication.mapped} of {symbolication.frames} frame{symbolication.frames === 1 ? "" : "s"} mapped to the original code.
			</p>
			<ul className="muted small">
				{symbolication.notes.map((note) => (
					<li key={note}>{note}</li>
				))}
			</ul>
		</div>
	);
}

/** What a Sentry event lost to keep the rest (a member of the wrong shape, dropped), as Sentry lists its processing errors. */
function ProcessingErrors({ event }: { event: IssueEventView }) {
	const errors = event.processing_errors ?? [];
	if (errors.length === 0) return null;
	return (
		<div role="note" aria-label="Problems processing this event">
			<p className="muted">
				{errors.length === 1 ? "There was 1 problem" : `There were ${errors.length} problems`} processing this event: what the SDK sent there was
				dropped, the rest kept.
			</p>
			<ul className="muted small">
				{errors.map((error) => (
					<li key={error}>{error}</li>
				))}
			</ul>
		</div>
	);
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The tags Sentry derives from an event's contexts and request: `browser` ("Chrome 153.0.0") and
 * `browser.name` ("Chrome"), alike for `os`, `client_os` (a server event's client) and `runtime`;
 * `device` (its model, else its family) and `url` (without its query), as the issue's tag summary
 * counts them.
 */
function derivedTags(event: IssueEventView): Record<string, string | undefined> {
	const contexts: Record<string, unknown> = { ...event.contexts, ...event.custom_contexts };
	const tags: Record<string, string | undefined> = {};
	for (const key of ["browser", "os", "client_os", "runtime"]) {
		const context = contexts[key];
		if (!isRecord(context) || typeof context.name !== "string") continue;
		tags[key] = typeof context.version === "string" ? `${context.name} ${context.version}` : context.name;
		tags[`${key}.name`] = context.name;
	}
	const device = contexts.device;
	if (isRecord(device)) tags.device = [device.model, device.family].find((name): name is string => typeof name === "string");
	tags.url = event.request?.url?.split("?")[0] || undefined;
	return tags;
}

/** The event as stored, Sentry's JSON view: what the page does not lay out (a field it does not know) is there to read and copy. */
function RawEvent({ event }: { event: IssueEventView }) {
	const text = JSON.stringify(event, null, 2);
	return (
		<details className="card">
			<summary>The event as stored (JSON)</summary>
			<p>
				<CopyButton text={text} label="Copy JSON" what="of this event" />
			</p>
			<pre className="snippet">
				{text}
			</pre>
		</details>
	);
}

export function EventDetail({ event }: { event: IssueEventView }) {
	const { exception, request, user } = event;
	// A captured message arrives with a made-up exception to carry its stack: its type means nothing.
	const synthetic = exception?.mechanism?.synthetic === true;
	const handled = handledOf(event);
	return (
		<>
			<section className="card" aria-labelledby="exception-heading">
				<h2 id="exception-heading" className="row">
					{(!synthetic && exception?.type) || "Message"}
					{handled === "no" && <UnhandledTag />}
				</h2>
				<p className="pre">{exception?.value ?? event.message}</p>
				{exception?.value && event.message && <p className="pre muted">{event.message}</p>}
				{stackOf(exception)}
				<SymbolicationNotes event={event} />
				<ProcessingErrors event={event} />
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
									<th>Time (UTC)</th>
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
										<td className="pre crumb-message">{crumb.message ?? crumbData(crumb.data)}</td>
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
						values={{
							environment: event.environment,
							release: event.release,
							platform: event.platform,
							level: event.level,
							// What Sentry derives from the exceptions' mechanisms.
							handled,
							mechanism: exception?.mechanism?.type,
							...derivedTags(event),
							...event.tags,
						}}
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
			<RawEvent event={event} />
		</>
	);
}
