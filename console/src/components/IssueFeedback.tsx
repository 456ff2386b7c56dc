import { Link } from "react-router";
import { clientEventIdOf } from "../api";
import { FEEDBACK_STATUS_LABELS } from "../feedbackLabels";
import { ago, utcDateTime } from "../format";
import { useIssueFeedback } from "../queries";
import { feedbackItemLink, issueLink } from "../searchParams";

/**
 * Sentry's "User feedback" of an issue: what people said through the feedback widget or the
 * crash-report dialog about one of its events, newest first, each to its feedback page and to the
 * event it was about. Nothing shows for an issue no one gave feedback about.
 */
export function IssueFeedback({ project, groupHash }: { project: string; groupHash: string }) {
	const feedback = useIssueFeedback(project, groupHash).data?.feedback ?? [];
	if (feedback.length === 0) return null;
	return (
		<section className="card" aria-labelledby="issue-feedback-heading" data-testid="issue-feedback">
			<h2 id="issue-feedback-heading">User feedback</h2>
			<ul className="plain">
				{feedback.map((item) => (
					<li key={item.id} className="row">
						<Link to={feedbackItemLink(project, item.id)}>{item.title ?? "(no title)"}</Link>
						<span className={`tag ${item.status}`}>{FEEDBACK_STATUS_LABELS[item.status]}</span>
						<span className="muted" title={utcDateTime(item.created_at)}>
							{ago(item.created_at)}
						</span>
						<Link className="muted" to={issueLink(project, groupHash, { event: clientEventIdOf(item.event_id) ?? item.event_id })}>
							about its event
						</Link>
					</li>
				))}
			</ul>
		</section>
	);
}
