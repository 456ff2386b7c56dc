import { useRef } from "react";
import { Link } from "react-router";
import type { UnmergeView } from "../api";
import { ago, count, plural, utcDateTime } from "../format";
import { useMergedIssues, useUnmergeIssues } from "../queries";
import { issueLink } from "../searchParams";
import { ConfirmButton } from "./ConfirmButton";
import { ActionError } from "./QueryState";
import { useSelection } from "./Selection";
import { TableWrap } from "./TableWrap";

/** What an unmerge made, with links to the issues it opened again. */
function Unmerged({ project, answer }: { project: string; answer: UnmergeView }) {
	if (answer.unmerged.length === 0) return <p role="status">Unmerged: their events had expired, so their next events open issues of their own.</p>;
	return (
		<p role="status">
			Unmerged into {plural(answer.unmerged.length, "issue")} of {answer.unmerged.length === 1 ? "its" : "their"} own:{" "}
			{answer.unmerged.map((issue, i) => (
				<span key={issue.group_hash}>
					{i > 0 && ", "}
					<Link to={issueLink(project, issue.group_hash)}>{issue.title}</Link> ({plural(issue.count, "event")})
				</span>
			))}
		</p>
	);
}

/**
 * Sentry's "Merged issues": the issues merged into this one, each by its latest event, to unmerge.
 * Unmerging sends their events back to issues of their own, and their later events too. Nothing
 * shows for an issue nothing was merged into.
 */
export function MergedIssues({ project, groupHash }: { project: string; groupHash: string }) {
	const merged = useMergedIssues(project, groupHash);
	const unmerge = useUnmergeIssues(project, groupHash);
	const fingerprints = merged.data?.merged ?? [];
	const selection = useSelection(
		fingerprints.map((m) => m.group_hash),
		`${project}/${groupHash}`,
	);
	const heading = useRef<HTMLHeadingElement>(null);
	if (fingerprints.length === 0 && !unmerge.data) return null;
	const chosen = selection.ids;
	return (
		<section className="card" aria-labelledby="merged-heading" data-testid="merged-issues">
			<h2 id="merged-heading" ref={heading} tabIndex={-1}>
				Merged issues
			</h2>
			{unmerge.data && <Unmerged project={project} answer={unmerge.data} />}
			{fingerprints.length > 0 && (
				<>
					<p className="muted small">
						Issues merged into this one. Unmerging one gives it back its events, and its later events; both issues are counted again from their events kept.
					</p>
					<TableWrap label="Merged issues table">
						<table>
							<thead>
								<tr>
									<th>
										<span className="visually-hidden">Unmerge</span>
									</th>
									<th>Latest event</th>
									<th>Events</th>
									<th>Last seen</th>
								</tr>
							</thead>
							<tbody>
								{fingerprints.map((m) => {
									const title = m.title ?? "No event kept";
									// Its own hash, as Sentry lists a merged fingerprint: two merged issues may share a title.
									const shortHash = m.group_hash.slice(0, 12);
									return (
										<tr key={m.group_hash}>
											<td>
												<input
													type="checkbox"
													aria-label={`Unmerge ${title} (${shortHash})`}
													checked={selection.has(m.group_hash)}
													onChange={(e) => selection.toggle([m.group_hash], e.target.checked)}
												/>
											</td>
											<td className="pre">
												{m.latest_event_id ? (
													<Link
														to={issueLink(project, groupHash, { event: m.latest_event_id })}
														// The event's detail is far above the card: take the reader there, as the events' list does.
														onClick={() => requestAnimationFrame(() => document.getElementById("event-heading")?.focus())}
													>
														{title}
													</Link>
												) : (
													<span className="muted">{title}</span>
												)}
												<br />
												<code className="muted small" title={m.group_hash}>
													{shortHash}
												</code>
											</td>
											<td>{count(m.events)}</td>
											<td>{m.last_seen ? <time dateTime={m.last_seen} title={utcDateTime(m.last_seen)}>{ago(m.last_seen)}</time> : "—"}</td>
										</tr>
									);
								})}
							</tbody>
						</table>
					</TableWrap>
					<div className="row">
						<ConfirmButton
							className=""
							question={`Unmerge ${plural(chosen.length, "issue")} from this one? ${chosen.length === 1 ? "Its" : "Their"} events, and later ones, go back to ${chosen.length === 1 ? "an issue of its" : "issues of their"} own.`}
							confirmLabel="Unmerge"
							disabled={chosen.length === 0 || unmerge.isPending}
							onConfirm={() => unmerge.mutate(chosen, { onSuccess: () => heading.current?.focus() })}
						>
							Unmerge…
						</ConfirmButton>
						<ActionError error={unmerge.error} inline />
					</div>
				</>
			)}
		</section>
	);
}
