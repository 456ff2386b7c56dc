import { type FormEvent, useEffect } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import { ISSUE_STATUSES, type IssueFilters } from "../api";
import { lastUsed } from "../components/lastUsed";
import { usePage } from "../components/Pager";
import { ProjectPicker } from "../components/Pickers";
import { QueryState } from "../components/QueryState";
import { TimeChart } from "../components/TimeChart";
import { ago, count, plural } from "../format";
import { useIssues } from "../queries";

const HOUR = 3_600_000;
/** The 24 hour starts a `last_24h` list counts, oldest first. */
function last24Hours(now = Date.now()): number[] {
	const current = Math.floor(now / HOUR) * HOUR;
	return Array.from({ length: 24 }, (_, i) => current - (23 - i) * HOUR);
}

export const STATUS_LABELS = { open: "Open", resolved: "Resolved", ignored: "Ignored" } as const;

export function IssuesPage() {
	const { project = "" } = useParams();
	const [search, setSearch] = useSearchParams();
	// Open issues unless another status, or all ("any"), is asked for.
	const status = search.get("status") ?? "open";
	const filters: IssueFilters = {
		status: status === "any" ? undefined : status,
		environment: search.get("environment") ?? undefined,
		release: search.get("release") ?? undefined,
		q: search.get("q") ?? undefined,
		sort: search.get("sort") ?? undefined,
	};
	const issues = useIssues(project, filters);
	const { pageItems, pager } = usePage(issues.data ?? [], 25);
	useEffect(() => lastUsed.project.set(project), [project]);

	const set = (name: string, value: string) =>
		setSearch((s) => {
			value ? s.set(name, value) : s.delete(name);
			s.delete("page");
			return s;
		});
	const environments = [...new Set(issues.data?.flatMap((i) => i.environments))].sort();
	const releases = [...new Set(issues.data?.flatMap((i) => i.releases))].sort();
	const hours = last24Hours();
	const filtered = search.has("q") || search.has("environment") || search.has("release");

	function submitSearch(event: FormEvent<HTMLFormElement>) {
		event.preventDefault();
		const data = new FormData(event.currentTarget);
		setSearch((s) => {
			for (const name of ["q", "environment", "release"]) {
				const value = String(data.get(name) ?? "").trim();
				value ? s.set(name, value) : s.delete(name);
			}
			s.delete("page");
			return s;
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
				<label className="inline">
					Sort by
					<select value={search.get("sort") ?? "last_seen"} onChange={(e) => set("sort", e.target.value === "last_seen" ? "" : e.target.value)}>
						<option value="last_seen">Last seen</option>
						<option value="first_seen">First seen</option>
						<option value="count">Events</option>
					</select>
				</label>
			</div>
			<form className="row filters" onSubmit={submitSearch} aria-label="Search issues" key={search.toString()}>
				<label className="inline">
					<span className="visually-hidden">Search title, culprit or hash</span>
					<input type="search" name="q" placeholder="Search title, culprit or hash" defaultValue={filters.q} maxLength={200} size={28} />
				</label>
				<label className="inline">
					Environment
					<input name="environment" list="environments" defaultValue={filters.environment} size={12} />
				</label>
				<label className="inline">
					Release
					<input name="release" list="releases" defaultValue={filters.release} size={10} />
				</label>
				<datalist id="environments">
					{environments.map((e) => (
						<option key={e} value={e} />
					))}
				</datalist>
				<datalist id="releases">
					{releases.map((r) => (
						<option key={r} value={r} />
					))}
				</datalist>
				<button type="submit">Search</button>
				{filtered && (
					<button type="button" className="link" onClick={() => setSearch(new URLSearchParams(status === "open" ? {} : { status }))}>
						Clear
					</button>
				)}
			</form>
			<QueryState
				query={issues}
				loading="Loading issues…"
				empty={
					filtered || status !== "open"
						? "No issues match these filters."
						: "No open issues. Send a log event with this project's key (see the project's set-up) and it shows here."
				}
			/>
			<ul className="plain">
				{pageItems.map((issue) => (
					<li key={issue.group_hash} className="card issue-row">
						<div>
							<div className="row">
								<span className={`level ${issue.level}`}>{issue.level}</span>
								<Link className="title" to={`/issues/${encodeURIComponent(project)}/${issue.group_hash}`}>
									{issue.title}
								</Link>
								{issue.status !== "open" && <span className={`tag ${issue.status}`}>{STATUS_LABELS[issue.status]}</span>}
								{issue.status === "open" && issue.resolved_in_release && <span className="tag regression">Regression</span>}
							</div>
							{issue.culprit && <div className="muted">{issue.culprit}</div>}
							<div className="facts muted">
								<span>first seen {ago(issue.first_seen)}</span>
								<span>last seen {ago(issue.last_seen)}</span>
								{issue.resolved_in_release && <span>{issue.status === "open" ? `back after it was resolved in ${issue.resolved_in_release}` : `resolved in ${issue.resolved_in_release}`}</span>}
							</div>
						</div>
						<div className="stats">
							<TimeChart
								kind="sparkline"
								height={32}
								times={hours}
								series={[{ label: "events", values: issue.last_24h, color: "--chart-1" }]}
								label={`${plural(issue.last_24h.reduce((a, b) => a + b, 0), "event")} in the last 24 hours`}
							/>
							<span title="events">
								<strong>{count(issue.count)}</strong> <span className="muted">{issue.count === 1 ? "event" : "events"}</span>
							</span>
							<span title="users">
								<strong>{count(issue.users)}</strong> <span className="muted">{issue.users === 1 ? "user" : "users"}</span>
							</span>
						</div>
					</li>
				))}
			</ul>
			{pager}
		</section>
	);
}
