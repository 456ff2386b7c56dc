/** What became of a project's log events, day by day: Sentry's project stats (docs/api.md#log-outcomes). */
import type { LogOutcomesView } from "../../../domain/api/logOutcomes";
import { LOG_LIMITS } from "../../../domain/limits";
import { count } from "../format";
import { useLogOutcomes } from "../queries";
import { Figure } from "./Figure";
import { QueryState } from "./QueryState";
import { TimeChart } from "./TimeChart";

const DAYS = 30;

/** Each outcome as the card names it, and what it means to someone wondering where an error went. */
const OUTCOMES = {
	accepted: { label: "Accepted", note: "stored in issues" },
	filtered: { label: "Filtered", note: "browser extensions' errors" },
	rate_limited: { label: "Rate limited", note: "over a per-minute limit" },
	invalid: { label: "Invalid", note: "not an event, or too large" },
	over_issue_cap: { label: "Over the issue cap", note: `new issues past ${LOG_LIMITS.issuesPerProject.toLocaleString()}` },
	client_discard: { label: "Dropped by the SDK", note: "sampled out, or backing off" },
} as const satisfies Record<keyof LogOutcomesView["totals"], { label: string; note: string }>;

const dropped = (day: LogOutcomesView["totals"]) => day.rate_limited + day.invalid + day.over_issue_cap + day.client_discard;

function OutcomesChart({ data }: { data: LogOutcomesView }) {
	const { totals } = data;
	return (
		<TimeChart
			height={160}
			times={data.days.map((d) => Date.parse(d.day))}
			series={[
				{ label: "Accepted", values: data.days.map((d) => d.accepted), color: "--chart-1", total: totals.accepted },
				{ label: "Filtered", values: data.days.map((d) => d.filtered), color: "--chart-3", total: totals.filtered },
				{ label: "Dropped", values: data.days.map(dropped), color: "--chart-2", total: dropped(totals) },
			]}
			label={`Log events per day over the last ${DAYS} days: ${count(totals.accepted)} accepted, ${count(totals.filtered)} filtered, ${count(dropped(totals))} dropped`}
		/>
	);
}

export function LogOutcomes({ projectName }: { projectName: string }) {
	const outcomes = useLogOutcomes(projectName, DAYS);
	const totals = outcomes.data?.totals;
	return (
		<section className="card" aria-labelledby="outcomes-heading">
			<h2 id="outcomes-heading">Log events, last {DAYS} days</h2>
			<QueryState
				query={outcomes}
				loading="Counting log events…"
				empty={`No log events arrived in the last ${DAYS} days.`}
				isEmpty={(data) => Object.values(data.totals).every((n) => n === 0)}
			/>
			{outcomes.data && totals && Object.values(totals).some((n) => n > 0) && (
				<>
					<div className="figures">
						{Object.entries(OUTCOMES).map(([outcome, { label, note }]) => (
							<Figure key={outcome} testId={`outcome-${outcome}`} label={label} value={count(totals[outcome as keyof typeof OUTCOMES])} note={note} />
						))}
					</div>
					<OutcomesChart data={outcomes.data} />
					{totals.rate_limited > 0 && <p className="muted">Rate-limited events were refused with 429: raise “Log events per minute” above to accept more.</p>}
					{totals.over_issue_cap > 0 && (
						<p className="muted">
							Events that would open a new issue are refused once the project holds {LOG_LIMITS.issuesPerProject.toLocaleString()} issues; issues are removed as their events pass the
							log retention period.
						</p>
					)}
				</>
			)}
		</section>
	);
}
