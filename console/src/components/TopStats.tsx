/**
 * The dashboard's top figures and the chart under them, as Plausible's: each figure that has a
 * series is a toggle button, and the chart draws the one chosen over the period, the period
 * before's line following it. The choice is kept in the address (`?metric=`, visitors by default
 * and then absent), as the period, the filters and each card's list are: a reload or a shared link
 * draws the same.
 */
import type { ReactNode } from "react";
import type { PeriodTotalsView, SeriesPointView, SiteStatsView } from "../api";
import { count, duration, oneDecimal, percent, plural } from "../format";
import { useAddressChoice } from "../searchParams";
import { conversionRate } from "./CustomEventsCard";
import { Figure } from "./Figure";
import { COUNT_AXIS, TimeChart, type ValueAxis } from "./TimeChart";

const GRAPH_METRICS = ["visitors", "visits", "pageviews", "views_per_visit", "bounce_rate", "visit_duration", "conversion_rate"] as const;
export type GraphMetric = (typeof GRAPH_METRICS)[number];
const DEFAULT_METRIC: GraphMetric = "visitors";

/** The period's figures, and under a goal's filter the visitors its conversion rate is out of. */
interface Period {
	figures: PeriodTotalsView;
	base?: { visitors: number; series: Array<{ visitors: number }> };
}

/** A bucket of a period's series, and its visitors a conversion rate is out of. */
interface Bucket {
	point?: SeriesPointView;
	base?: { visitors: number };
}

interface Metric {
	label: string;
	/** The period's figure; undefined where it has none (a conversion rate without a goal's filter). */
	total: (period: Period) => number | undefined;
	/** A bucket's figure; null where there is none (no visit began in it, a bucket still to come): a gap. */
	point: (bucket: Bucket) => number | null;
	format: (n: number) => string;
	axis: ValueAxis;
	/** How a count reads in the chart's description ("2 visitors"); a figure of another kind is written as formatted. */
	noun?: string;
	lowerIsBetter?: boolean;
	/**
	 * Whether a period has the figure at all: a share or mean of nothing is none, so compared with
	 * nothing; its buckets likewise, so the chart dots each value, which gaps may leave alone.
	 */
	counted?: (period: Period) => boolean;
}

/** A share or mean of visits: none in a period without visits. */
const hadVisits = (p: Period) => p.figures.sessions > 0;
const oneDecimalOf = (n: number) => Math.round(n * 10) / 10;
/** Page views per visit (session), one decimal; 0 without visits. */
const viewsPerVisit = ({ pageviews, sessions }: { pageviews: number; sessions: number }) => (sessions > 0 ? oneDecimalOf(pageviews / sessions) : 0);

const SHARE_AXIS: ValueAxis = { format: percent, steps: [0.05, 0.1, 0.2, 0.25, 0.5, 1], max: 1 };
const DECIMAL_AXIS: ValueAxis = { format: oneDecimal, steps: [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100], least: 1 };
const DURATION_AXIS: ValueAxis = { format: duration, steps: [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1_800, 3_600], least: 10 };

const METRICS: Record<GraphMetric, Metric> = {
	visitors: { label: "Visitors", total: (p) => p.figures.visitors, point: (b) => b.point?.visitors ?? null, format: count, axis: COUNT_AXIS, noun: "visitor" },
	visits: { label: "Visits", total: (p) => p.figures.sessions, point: (b) => b.point?.sessions ?? null, format: count, axis: COUNT_AXIS, noun: "visit" },
	pageviews: { label: "Page views", total: (p) => p.figures.pageviews, point: (b) => b.point?.pageviews ?? null, format: count, axis: COUNT_AXIS, noun: "page view" },
	// A bucket's page views over the visits that began in it: none began, no figure.
	views_per_visit: {
		label: "Views per visit",
		total: (p) => viewsPerVisit(p.figures),
		point: ({ point }) => (point && point.sessions > 0 ? viewsPerVisit(point) : null),
		format: oneDecimal,
		axis: DECIMAL_AXIS,
		counted: hadVisits,
	},
	bounce_rate: { label: "Bounce rate", total: (p) => p.figures.bounce_rate, point: (b) => b.point?.bounce_rate ?? null, format: percent, axis: SHARE_AXIS, lowerIsBetter: true, counted: hadVisits },
	visit_duration: { label: "Visit duration", total: (p) => p.figures.avg_duration, point: (b) => b.point?.avg_duration ?? null, format: duration, axis: DURATION_AXIS, counted: hadVisits },
	// Converted visitors out of the visitors the other filters keep, bucket by bucket; none there, no figure.
	conversion_rate: {
		label: "Conversion rate",
		total: (p) => (p.base ? conversionRate(p.figures, p.base) : undefined),
		point: ({ point, base }) => (point && base && base.visitors > 0 ? conversionRate(point, base) : null),
		format: percent,
		axis: SHARE_AXIS,
		counted: (p) => (p.base?.visitors ?? 0) > 0,
	},
};

/**
 * The metric the chart draws: the address's, if offered here (a conversion rate only under an
 * event or property filter, as Plausible draws it only for a goal), else visitors; and the choice
 * of another, shown at once while the address follows.
 */
export function useGraphMetric(converting: boolean) {
	const [inAddress, chooseInAddress] = useAddressChoice("metric");
	const chosen = GRAPH_METRICS.find((metric) => metric === inAddress) ?? DEFAULT_METRIC;
	const choose = (metric: GraphMetric) => chooseInAddress(metric === DEFAULT_METRIC ? null : metric);
	return [chosen === "conversion_rate" && !converting ? DEFAULT_METRIC : chosen, choose] as const;
}

/** A figure with its change from the previous period, in words for screen readers; a toggle of what the chart draws. */
function Compared({ metric, value, previous, pressed, onPress }: { metric: Metric; value: number; previous?: number; pressed: boolean; onPress: () => void }) {
	const { label, format, lowerIsBetter = false } = metric;
	let change = null;
	if (previous !== undefined && previous > 0) {
		const ratio = (value - previous) / previous;
		const better = lowerIsBetter ? ratio < 0 : ratio > 0;
		const words = `${ratio > 0 ? "up" : "down"} ${percent(Math.abs(ratio))} from the previous period`;
		change =
			ratio === 0 ? (
				<span className="muted">no change</span>
			) : (
				<span className={`change ${better ? "up" : "down"}`} title={words}>
					<span aria-hidden="true">
						{ratio > 0 ? "↑" : "↓"} {percent(Math.abs(ratio))}
					</span>
					<span className="visually-hidden">{words}</span>
				</span>
			);
	} else if (previous === 0 && value > 0) change = <span className="muted">{format === count ? "none the period before" : `was ${format(0)}`}</span>;
	return <Figure label={label} value={format(value)} note={change} testId={`figure-${label}`} pressed={pressed} onPress={onPress} />;
}

/** The period before's figure to compare with, where it has one. */
const previousOf = (metric: Metric, before: Period | undefined) => (before && (metric.counted?.(before) ?? true) ? metric.total(before) : undefined);

/** The figures of the period and the one before, each with its conversion base under a goal's filter. */
function periods(data: SiteStatsView) {
	const now: Period = { figures: data, base: data.conversion_base };
	const before: Period | undefined = data.previous && { figures: data.previous, base: data.previous.conversion_base };
	return { now, before };
}

/**
 * The top figures, each with a series a toggle of what the chart draws (`children` first: the
 * figure on the site now, which has none).
 */
export function TopFigures({
	data,
	converting,
	chosen,
	choose,
	children,
}: {
	data: SiteStatsView;
	converting: boolean;
	chosen: GraphMetric;
	choose: (metric: GraphMetric) => void;
	children: ReactNode;
}) {
	const { now, before } = periods(data);
	return (
		<div className="figures">
			{children}
			{GRAPH_METRICS.filter((key) => key !== "conversion_rate" || converting).map((key) => {
				const value = METRICS[key].total(now);
				// A conversion rate waits for the visitors it is out of.
				if (value === undefined) return null;
				return <Compared key={key} metric={METRICS[key]} value={value} previous={previousOf(METRICS[key], before)} pressed={key === chosen} onPress={() => choose(key)} />;
			})}
		</div>
	);
}

/** What the realtime view's chart draws: its visitors, or its page views when they are chosen. */
export const realtimeMetric = (chosen: GraphMetric): GraphMetric => (chosen === "pageviews" ? "pageviews" : "visitors");

/**
 * The realtime view's figures, as Plausible's: the visitors on the site now (the last 5 minutes),
 * then the last 30 minutes' visitors (converted ones under a goal's filter) and page views, each of
 * these two a toggle of what the chart draws. Nothing to compare with.
 */
export function RealtimeFigures({
	data,
	converting,
	chosen,
	choose,
}: {
	data: SiteStatsView;
	converting: boolean;
	chosen: GraphMetric;
	choose: (metric: GraphMetric) => void;
}) {
	const drawn = realtimeMetric(chosen);
	return (
		<div className="figures">
			<Figure label="Current visitors" value={count(data.visitors_now)} note={<span className="muted">in the last 5 minutes</span>} testId="figure-current-visitors" />
			<Figure
				label={converting ? "Unique conversions (last 30 min)" : "Unique visitors (last 30 min)"}
				value={count(data.visitors)}
				testId="figure-realtime-visitors"
				pressed={drawn === "visitors"}
				onPress={() => choose("visitors")}
			/>
			<Figure label="Pageviews (last 30 min)" value={count(data.pageviews)} testId="figure-realtime-pageviews" pressed={drawn === "pageviews"} onPress={() => choose("pageviews")} />
		</div>
	);
}

/** The chart of the chosen metric over the period's buckets (`times`), and of the period before when compared. */
export function MetricChart({ metric: chosen, data, times }: { metric: GraphMetric; data: SiteStatsView; times: number[] }) {
	const { now, before } = periods(data);
	const metric = METRICS[chosen];
	const total = metric.total(now);
	const previousTotal = previousOf(metric, before);
	const dots = metric.counted !== undefined;
	const bucketsOf = (period: Period) => times.map((_, i) => metric.point({ point: period.figures.series[i], base: period.base?.series[i] }));
	const said = (n: number | undefined) => (n === undefined ? "none" : metric.noun ? plural(n, metric.noun) : metric.format(n));
	return (
		<section className="card" aria-labelledby="over-time">
			<h2 id="over-time">{metric.label} over time</h2>
			<TimeChart
				times={times}
				valueAxis={metric.axis}
				series={[
					{ label: metric.label, values: bucketsOf(now), color: "--chart-1", total, dots },
					// The period before, bucket by bucket from its start: the same length, so the same place on the chart.
					...(before ? [{ label: `${metric.label}, period before`, values: bucketsOf(before), color: "--chart-3", dashed: true, total: previousTotal, dots }] : []),
				]}
				label={`${metric.label} over the period: ${said(total)}${before ? `; ${said(previousTotal)} in the period before` : ""}`}
			/>
		</section>
	);
}
