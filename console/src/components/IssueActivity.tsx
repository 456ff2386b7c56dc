import { type FormEvent, type ReactNode, useState } from "react";
import { Link } from "react-router";
import { OWNER_LIMITS } from "../../../domain/limits";
import type { IssueActivityView, IssueDetailView } from "../api";
import { ago, count, utcDateTime } from "../format";
import { useAddIssueNote } from "../queries";
import { issueLink } from "../searchParams";
import { ignoredUntil } from "./IgnoreActions";
import { ActionError } from "./QueryState";

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
		case "note":
			return (
				<>
					<strong>Note</strong> <span className="note-text">{entry.text}</span>
				</>
			);
	}
}

/** A note to leave on the issue: what was found, the fix, where it is tracked. */
function NoteForm({ project, groupHash }: { project: string; groupHash: string }) {
	const add = useAddIssueNote(project, groupHash);
	const [text, setText] = useState("");
	function submit(event: FormEvent<HTMLFormElement>) {
		event.preventDefault();
		add.mutate(text, { onSuccess: () => setText("") });
	}
	return (
		<form className="note-form" aria-label="Leave a note" onSubmit={submit}>
			<label htmlFor="issue-note">Leave a note</label>
			<textarea
				id="issue-note"
				value={text}
				onChange={(event) => setText(event.target.value)}
				maxLength={OWNER_LIMITS.issueNoteChars}
				rows={2}
				placeholder="What you found, the fix, where it is tracked…"
			/>
			<div className="row">
				<button type="submit" disabled={add.isPending}>
					Add note
				</button>
				<ActionError inline error={add.error} fields={{ text: { name: "The note", missing: "Write the note first." } }} />
			</div>
		</form>
	);
}

/** The issue's activity as Sentry's issue page lists it, newest first, ending with when it was first seen. */
export function IssueActivity({ issue, project }: { issue: Pick<IssueDetailView, "group_hash" | "activity" | "first_seen">; project: string }) {
	const entries = [...issue.activity.map((entry) => ({ text: activityText(entry, project), at: entry.at })), { text: "First seen", at: issue.first_seen }];
	return (
		<section className="card" aria-labelledby="activity-heading">
			<h2 id="activity-heading">Activity</h2>
			<NoteForm project={project} groupHash={issue.group_hash} />
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
