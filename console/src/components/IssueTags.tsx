import { Link, useLocation } from "react-router";
import type { IssueTagView } from "../../../domain/api/issues";
import { tagSearchToken } from "../../../domain/api/issueSearch";
import { count, percent, plural } from "../format";
import { useIssueTags } from "../queries";
import { issueLink } from "../searchParams";
import { QueryState } from "./QueryState";

/** Values shown before a tag's "more" opens: enough to tell one browser, release or user from many. */
const FIRST_VALUES = 3;

/** Where a value leads, if anywhere, and what the link says it opens. */
type LinkOf = (value: string) => { to: string; title: string } | null;

function ValueRows({ values, events, linkOf }: { values: IssueTagView["values"]; events: number; linkOf: LinkOf }) {
	// The page's way back to the list it was opened from goes with it.
	const { state } = useLocation();
	return values.map(({ value, count: n }) => {
		const link = linkOf(value);
		return (
			<tr key={value}>
				<td className="bar-cell">
					<span className="bar" style={{ width: `${(n / events) * 100}%` }} />
					{link ? (
						<Link to={link.to} title={link.title} state={state}>
							{value}
						</Link>
					) : (
						<span>{value}</span>
					)}
				</td>
				<td className="num" title={`${count(n)} of ${count(events)} events`}>
					{percent(n / events)}
				</td>
			</tr>
		);
	});
}

/** One tag: its first values, the rest behind "more", and the events that carry none of these. */
function Tag({ tag, events, linkOf }: { tag: IssueTagView; events: number; linkOf: LinkOf }) {
	const others = tag.total - tag.values.reduce((sum, v) => sum + v.count, 0);
	const rest = tag.values.slice(FIRST_VALUES);
	return (
		<section className="card" aria-label={`Tag ${tag.key}`}>
			<table className="breakdown">
				<thead>
					<tr>
						<th scope="col">{tag.key}</th>
						<th scope="col" className="num">
							{tag.distinct === 1 ? "1 value" : `${count(tag.distinct)} values`}
						</th>
					</tr>
				</thead>
				<tbody>
					<ValueRows values={tag.values.slice(0, FIRST_VALUES)} events={events} linkOf={linkOf} />
				</tbody>
			</table>
			{rest.length > 0 && (
				<details>
					<summary className="small">{rest.length === 1 ? "1 more value" : `${rest.length} more values`}</summary>
					<table className="breakdown">
						<tbody>
							<ValueRows values={rest} events={events} linkOf={linkOf} />
						</tbody>
					</table>
				</details>
			)}
			{others > 0 && <p className="muted small">Other values: {percent(others / events)}</p>}
		</section>
	);
}

/**
 * The issue's tags as Sentry's issue page sums them up: for each, its most common values and the
 * share of the events that carry each, over all the issue's events (in the environment read). A
 * value shows the issue's events with it, as Sentry's does (the search above them offers the
 * project's issues with it); an environment's value, when none is read, opens this issue as it reads there.
 */
export function IssueTags({ project, groupHash, environment }: { project: string; groupHash: string; environment?: string }) {
	const tags = useIssueTags(project, groupHash, environment);
	const data = tags.data;
	const linkOf =
		(key: string): LinkOf =>
		(value) => {
			if (key === "environment" && !environment) return { to: issueLink(project, groupHash, { environment: value }), title: `This issue in ${value}` };
			const token = tagSearchToken(key, value);
			if (!token) return null;
			return { to: issueLink(project, groupHash, { environment, q: token }), title: `This issue's events with ${key} ${value}${environment ? ` in ${environment}` : ""}` };
		};
	return (
		<section className="issue-tags" aria-labelledby="tags-heading">
			<h2 id="tags-heading">Tags</h2>
			<QueryState query={tags} loading="Counting tags…" empty="" isEmpty={() => false} />
			{data && (
				<>
					<p className="muted small">
						Of {plural(data.events, "event")}
						{environment ? ` in ${environment}` : ""}. A value shows this issue's events with it.
					</p>
					<div className="breakdowns">
						{data.tags.map((tag) => (
							<Tag key={tag.key} tag={tag} events={data.events} linkOf={linkOf(tag.key)} />
						))}
					</div>
				</>
			)}
		</section>
	);
}
