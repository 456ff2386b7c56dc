import type { ReactNode } from "react";
import { Link } from "react-router";
import type { IssueActivityView, IssueDetailView } from "../api";
import { ago, count, utcDateTime } from "../format";
import { issueLink } from "../searchParams";
import { ignoredUntil } from "./IgnoreActions";

/** What the ignore waited for, by what ended it. */
const IGNORE_ENDS = { time: "its time was up", events: "it occurred as often as it waited for", users: "it affected as many people as it waited for" };

/** One entry of an issue's activity in words; `project`'s issues linked. */
function activityText(entry: IssueActivityView, project: string): ReactNode {
	switch (entry.kind) {
		case "resolved":
			if (!entry.release) return "Resolved";
			return entry.in_next_release ? `Resolved in the release after ${entry.release}` : `Resolved in release ${entry.release}`;
		case "ignored":
			return `Ignored ${ignoredUntil(entry) ?? "until reopened"}`;
		case "reopened":
			return "Reopened";
		case "regressed":
			return entry.release ? `Regression: seen again in release ${entry.release}` : "Regression: seen again";
		case "ignore_ended":
			return `Open again: ${IGNORE_ENDS[entry.by]}`;
		case "escalated":
			return `Escalating: over ${count(entry.events_per_hour)} events in an hour`;
		case "merged":
			return `Merged ${count(entry.issues)} other ${entry.issues === 1 ? "issue" : "issues"} into this one`;
		case "unmerged":
			return `Unmerged ${count(entry.issues)} ${entry.issues === 1 ? "issue" : "issues"} from this one`;
		case "unmerged_from":
			return (
				<>
					Unmerged from <Link to={issueLink(project, entry.group_hash)}>the issue it had been merged into</Link>
				</>
			);
	}
}

/** The issue's activity as Sentry's issue page lists it, newest first, ending with when it was first seen. */
export function IssueActivity({ issue, project }: { issue: Pick<IssueDetailView, "activity" | "first_seen">; project: string }) {
	const entries = [...issue.activity.map((entry) => ({ text: activityText(entry, project), at: entry.at })), { text: "First seen", at: issue.first_seen }];
	return (
		<section className="card" aria-labelledby="activity-heading">
			<h2 id="activity-heading">Activity</h2>
			<ol className="activity" data-testid="issue-activity">
				{entries.map(({ text, at }, i) => (
					// biome-ignore lint/suspicious/noArrayIndexKey: entries have no id, and the list is only ever read whole.
					<li key={i} className="activity-entry">
						<span>{text}</span> <time dateTime={at} title={utcDateTime(at)} className="muted">
							{ago(at)}
						</time>
					</li>
				))}
			</ol>
		</section>
	);
}
