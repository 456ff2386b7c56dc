/** Time series (counts unless told otherwise) drawn by uPlot, in the page's colour scheme and at its container's width. */
import { useEffect, useRef, useState } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

export interface Series {
	label: string;
	/** One per time; null leaves a gap. */
	values: Array<number | null>;
	/** A CSS custom property of styles.css, such as `--chart-1`. */
	color: string;
	/** A dashed line, for a figure to compare with (the period before). */
	dashed?: boolean;
	/** A dot at each value too: a value between two gaps (a share or mean of one bucket's visits) has no line to be drawn on. */
	dots?: boolean;
	/**
	 * The series' figure over the whole period, which the legend shows while the pointer is on no
	 * bucket (nothing without it). Not always the sum of the buckets: a period's visitors are fewer
	 * than its hours' visitors added up when a visitor came back.
	 */
	total?: number;
}

/** What a chart's values are: how they are written (axis, legend) and the steps of its value axis. */
export interface ValueAxis {
	format: (value: number) => string;
	/** The value axis' tick steps, from the smallest. */
	steps: number[];
	/** The top of the value axis when no value can pass it (a share: 100 %); else a tenth above the highest value, at least `least`. */
	max?: number;
	least?: number;
}

const cssVar = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

/** Changes when the system switches between light and dark, so charts redraw in the new colours. */
function useColorScheme() {
	const [dark, setDark] = useState(() => matchMedia("(prefers-color-scheme: dark)").matches);
	useEffect(() => {
		const query = matchMedia("(prefers-color-scheme: dark)");
		const change = () => setDark(query.matches);
		query.addEventListener("change", change);
		return () => query.removeEventListener("change", change);
	}, []);
	return dark;
}

/** Each chart's value-axis width as last measured. */
const measuredAxisSizes = new WeakMap<uPlot, number>();

/** The value axis as wide as its longest label ("12,000" needs more room than "5"), so none is cut off. */
function valueAxisSize(plot: uPlot, values: string[] | undefined, axisIndex: number, cycle: number): number {
	const axis = plot.axes[axisIndex];
	// uPlot asks again after laying out; the first answer stands, so the chart does not jitter.
	const measured = measuredAxisSizes.get(plot);
	if (cycle > 1 && measured !== undefined) return measured;
	const longest = (values ?? []).reduce((a, b) => (b.length > a.length ? b : a), "");
	// Once drawn, uPlot holds an axis font as [CSS font at the device's pixel ratio, size].
	const font = axis.font as unknown as [string, number] | undefined;
	if (font) plot.ctx.font = font[0];
	const gap = (axis.ticks?.size ?? 10) + (axis.gap ?? 5);
	const size = Math.ceil(gap + plot.ctx.measureText(longest).width / devicePixelRatio) + 4;
	measuredAxisSizes.set(plot, size);
	return size;
}

/** A chart of counts steps by whole numbers (1, 2, 5, 10, 20, 50...), never 0.5. */
const WHOLE_STEPS = Array.from({ length: 10 }, (_, power) => [1, 2, 5].map((step) => step * 10 ** power)).flat();
/** Counts, the default: whole steps, written as uPlot writes numbers (1,234). */
export const COUNT_AXIS: ValueAxis = { format: (n) => uPlot.fmtNum(n), steps: WHOLE_STEPS, least: 1 };

const HOUR_S = 3_600;
const DAY_S = 24 * HOUR_S;
/**
 * uPlot's own time-axis steps from an hour up (seconds; 30 days and more step by months, 365 by
 * years). A chart of daily buckets keeps to the steps of a day or more: a tick at 8am or 4pm
 * between two days' points would name an hour no figure is about.
 */
const TIME_STEPS = [
	...[1, 2, 3, 4, 6, 8, 12].map((n) => n * HOUR_S),
	...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 30, 60, 90, 120, 180, 365, 730, 1825].map((n) => n * DAY_S),
];

/** A bucket's start (seconds) as a date in UTC: the buckets are UTC hours and days. */
const utcDate = (ts: number) => uPlot.tzDate(new Date(ts * 1e3), "Etc/UTC");

function options(width: number, height: number, series: Series[], kind: "chart" | "bars" | "sparkline", bucketS: number, valueAxis: ValueAxis): uPlot.Options {
	const text = cssVar("--muted");
	const grid = cssVar("--chart-grid");
	const spark = kind === "sparkline";
	// A sparkline is small bars, like the charts of an issue: an empty hour shows nothing.
	const bars = kind === "bars" || spark;
	const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
	const daily = bucketS >= DAY_S;
	// A day's point is the whole day: its time of day (always 12:00am) would mislead.
	const stamp = uPlot.fmtDate(daily ? "{YYYY}-{MM}-{DD}" : "{YYYY}-{MM}-{DD} {h}:{mm}{aa}");
	// While the pointer is on no bucket (uPlot's index is null, where it writes "--"), the legend
	// gives the period's figures when the chart has them, else nothing.
	const totals = series.some((s) => s.total !== undefined);
	return {
		width,
		height,
		legend: {
			// A chart of one line needs no key, but bars show their value only there, on hover.
			show: !spark && (series.length > 1 || bars),
			// A line's marker is drawn as its line is, dashed or not: two lines of one colour stay apart.
			markers: bars ? undefined : { width: 3, fill: "transparent", dash: (_u, i) => (series[i - 1]?.dashed ? "dashed" : "solid") },
		},
		cursor: spark ? { show: false } : { points: { size: 6 } },
		// Times in UTC: the buckets are UTC hours and days, and a day drawn at its local start would
		// land on the evening before west of UTC.
		tzDate: utcDate,
		scales: {
			// A bar stands centred on its bucket's start: half a bucket more at each end, or the first and
			// the last (the hour under way) would be cut in half by the chart's edges.
			x: { time: true, ...(bars && bucketS > 0 ? { range: (_u, min, max) => [min - bucketS / 2, max + bucketS / 2] } : {}) },
			y: { range: (_u, _min, max) => [0, valueAxis.max ?? Math.max(valueAxis.least ?? 0, max ?? 0) * 1.1] },
		},
		axes: spark ? [{ show: false }, { show: false }] : [daily ? { ...axis, incrs: TIME_STEPS.filter((step) => step >= bucketS) } : axis, { ...axis, size: valueAxisSize, incrs: valueAxis.steps, values: (_u, splits) => splits.map(valueAxis.format) }],
		series: [
			{ label: "Time (UTC)", value: (_u, ts, _i, index) => (index == null ? (totals ? "whole period" : "") : stamp(utcDate(ts))) },
			...series.map((s) => ({
				label: s.label,
				value: (_u: uPlot, value: number | null, _i: number, index: number | null) =>
					index == null ? (s.total === undefined ? "" : valueAxis.format(s.total)) : value == null ? "" : valueAxis.format(value),
				stroke: cssVar(s.color),
				// Bars are filled, not outlined: an outline would draw empty buckets as dashes.
				width: bars ? 0 : 2,
				dash: s.dashed ? [6, 4] : undefined,
				fill: bars ? cssVar(s.color) : undefined,
				paths: bars ? uPlot.paths.bars?.({ size: [0.7, 40] }) : undefined,
				points: s.dots ? { show: true, size: 5, fill: cssVar(s.color) } : { show: false },
			})),
		],
	};
}

/**
 * A chart of values over time. `label` is read to people who cannot see it: say what it shows
 * and its main figures. `times` are the bucket starts, in milliseconds.
 */
export function TimeChart({
	times,
	series,
	label,
	height = 220,
	kind = "chart",
	valueAxis = COUNT_AXIS,
}: {
	times: number[];
	series: Series[];
	label: string;
	height?: number;
	kind?: "chart" | "bars" | "sparkline";
	/** What the values are, when not counts (a share, a duration). */
	valueAxis?: ValueAxis;
}) {
	const box = useRef<HTMLDivElement>(null);
	const dark = useColorScheme();
	const data = [times.map((t) => t / 1000), ...series.map((s) => s.values)] as uPlot.AlignedData;
	const dataKey = JSON.stringify(data);
	// Two metrics can hold the same values (as many visits as visitors): their lines' names tell them apart.
	const seriesKey = series.map((s) => `${s.label}\u0000${s.color}\u0000${s.dashed ?? false}\u0000${s.dots ?? false}\u0000${s.total}`).join("\u0001");

	// biome-ignore lint/correctness/useExhaustiveDependencies: redrawn when the data (by value), the scheme, the shape or the kind of value changes
	useEffect(() => {
		const element = box.current;
		if (!element) return;
		const width = () => Math.max(60, element.clientWidth);
		const bucketS = times.length > 1 ? (times[1] - times[0]) / 1000 : 0;
		const plot = new uPlot(options(width(), height, series, kind, bucketS, valueAxis), data, element);
		const resize = new ResizeObserver(() => plot.setSize({ width: width(), height }));
		resize.observe(element);
		return () => {
			resize.disconnect();
			plot.destroy();
		};
	}, [dataKey, seriesKey, dark, height, kind, valueAxis]);

	return <div ref={box} className={kind === "sparkline" ? "sparkline" : "chart"} role="img" aria-label={label} />;
}
