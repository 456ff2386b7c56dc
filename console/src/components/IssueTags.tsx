import { Link } from "react-router";
import type { IssueTagView } from "../../../domain/api/issues";
import { OWNER_LIMITS } from "../../../domain/limits";
import { count, percent } from "../format";
import { useIssueTags } from "../queries";
import { issueLink } from "../searchParams";
import { QueryState } from "./QueryState";

/** Values shown before a tag's "more" opens: enough to tell one browser, release or user from many. */
const FIRST_VALUES = 3;

/** Where a value leads, if anywhere: an environment's value to the issue as it reads there. */
type LinkOf = ((value: string) => string) | undefined;

function ValueRows({ values, events, linkOf }: { values: IssueTagView["values"]; events: number; linkOf: LinkOf }) {
	return values.map(({ value, count: n }) => (
		<tr key={value}>
			<td className="bar-cell">
				<span className="bar" style={{ width: `${(n / events) * 100}%` }} />
				{linkOf ? <Link to={linkOf(value)}>{value}</Link> : <span>{value}</span>}
			</td>
			<td className="num" title={`${count(n)} of ${count(events)} events`}>
				{percent(n / events)}
			</td>
		</tr>
	));
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
 * share of the events that carry each, over the issue's newest events (in the environment read).
 */
export function IssueTags({ project, groupHash, environment }: { project: string; groupHash: string; environment?: string }) {
	const tags = useIssueTags(project, groupHash, environment);
	const data = tags.data;
	const inEnvironment = (value: string) => issueLink(project, groupHash, { environment: value });
	return (
		<section className="issue-tags" aria-labelledby="tags-heading">
			<h2 id="tags-heading">Tags</h2>
			<QueryState query={tags} loading="Counting tags…" empty="" isEmpty={() => false} />
			{data && (
				<>
					<p className="muted small">
						{data.events < OWNER_LIMITS.issueTagEvents
							? `Of all ${count(data.events)} ${data.events === 1 ? "event" : "events"}${environment ? ` in ${environment}` : ""}.`
							: `Of the newest ${count(data.events)} events${environment ? ` in ${environment}` : ""}.`}
					</p>
					<div className="breakdowns">
						{data.tags.map((tag) => (
							<Tag key={tag.key} tag={tag} events={data.events} linkOf={tag.key === "environment" && !environment ? inEnvironment : undefined} />
						))}
					</div>
				</>
			)}
		</section>
	);
}
