import type { IssueDetailView } from "../api";
import { plural } from "../format";
import { useSearch } from "../searchParams";
import { TimeChart } from "./TimeChart";

const PERIODS = {
	"24h": { label: "24 hours", unit: "UTC hour" },
	"30d": { label: "30 days", unit: "UTC day" },
} as const;
type Period = keyof typeof PERIODS;

/**
 * An issue's events per UTC hour over the last 24 hours, or per UTC day over the last 30, as
 * Sentry's issue chart offers both; the period chosen is kept in the URL (`?period=30d`). The
 * buckets are the server's UTC ones, so the page shows every time in UTC (format.ts, utcDateTime).
 */
export function EventsOverTime({ issue }: { issue: IssueDetailView }) {
	const [search, change] = useSearch();
	const period: Period = search.get("period") === "30d" ? "30d" : "24h";
	const { label, unit } = PERIODS[period];
	const buckets =
		period === "30d"
			? issue.daily_counts.map((d) => ({ start: Date.parse(d.day), count: d.count }))
			: issue.hourly_counts.map((h) => ({ start: Date.parse(h.hour), count: h.count }));
	const total = buckets.reduce((sum, b) => sum + b.count, 0);
	const choose = (next: Period) => change({ period: next === "24h" ? null : next }, { replace: true });
	return (
		<section className="card" aria-labelledby="over-time-heading">
			<div className="row spread">
				<h2 id="over-time-heading">Events, last {label}</h2>
				<div className="tabs">
					{(Object.keys(PERIODS) as Period[]).map((p) => (
						<button key={p} type="button" className="chip" aria-pressed={p === period} onClick={() => choose(p)}>
							{PERIODS[p].label}
						</button>
					))}
				</div>
			</div>
			<TimeChart
				kind="bars"
				height={160}
				times={buckets.map((b) => b.start)}
				series={[{ label: "Events", values: buckets.map((b) => b.count), color: "--chart-1", total }]}
				label={`Events per ${unit} over the last ${label}: ${plural(total, "event")} in all`}
			/>
			<p className="muted small">One bar per {unit}: every time on this page is in UTC.</p>
		</section>
	);
}
