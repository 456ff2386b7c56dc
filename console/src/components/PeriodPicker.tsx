import { useCallback, useEffect, useRef, useState } from "react";
import { useSearchParams } from "react-router";
import {
	customDates,
	customRangeFault,
	isPeriod,
	MAX_PERIOD_DAYS,
	offeredPeriods,
	type PeriodChoice,
	type PeriodOptions,
	PERIODS,
	periodOf,
	stepPeriod,
} from "../period";
import { useSearch } from "../searchParams";
import { stepNow, usePeriodShortcuts } from "./usePeriodShortcuts";

/** The period of a dashboard, read from and written to the URL (`?period=`, `?from=`, `?to=`), as the page offers it. */
export function usePeriod(options: PeriodOptions = {}) {
	const [search] = useSearchParams();
	return periodOf(search, Date.now(), options);
}

/** The period's part of a query string, for a link to another dashboard of the site: its filters are this page's own. */
export function periodQuery(search: URLSearchParams): string {
	return new URLSearchParams(["period", "from", "to"].flatMap((name) => (search.has(name) ? [[name, search.get(name) ?? ""]] : []))).toString();
}

/** Sets the URL to a period: the default (the last 7 days) is no parameter at all. */
function useChoosePeriod() {
	const [, set] = useSearch();
	return useCallback((choice: PeriodChoice) => set({ period: choice.period === "7d" ? "" : choice.period, from: choice.from ?? "", to: choice.to ?? "" }), [set]);
}

const days = (choice: PeriodChoice | null) =>
	choice && (choice.period === "custom" ? `${choice.from} to ${choice.to}` : PERIODS.find(([value]) => value === choice.period)?.[1]);

/**
 * A whole date: a date field is empty while one of its parts is (a day's first digit, 0, typed),
 * and holds the year 2 as 0002 until the year's other digits come.
 */
const wholeDate = (day: string) => /^[1-9]\d{3}-\d{2}-\d{2}$/.test(day);

/**
 * A custom period's first or last day. Typed digit by digit, a date field changes at each digit,
 * and the address follows in a transition: held to the address alone, the field was set back to
 * the address's day in between, which ends the browser's typing in it (11 typed as a month came
 * out 01, and the year went astray). The field keeps what is typed; the address takes each whole
 * date, and the field follows the address again (a step of the period, Back) while not in use.
 */
function DayField({ label, day, min, max, onDay }: { label: string; day: string; min?: string; max?: string; onDay: (day: string) => void }) {
	const [typed, setTyped] = useState(day);
	const field = useRef<HTMLInputElement>(null);
	useEffect(() => {
		if (document.activeElement !== field.current) setTyped(day);
	}, [day]);
	return (
		<label className="inline">
			{label}
			<input
				ref={field}
				type="date"
				value={typed}
				min={min}
				max={max}
				onChange={(e) => {
					setTyped(e.target.value);
					if (wholeDate(e.target.value)) onDay(e.target.value);
				}}
				// A date left half typed (or emptied) is not the period's: the field shows the period's day again.
				onBlur={() => setTyped(day)}
			/>
		</label>
	);
}

/** What the date fields say of dates that make no period, while the figures are the default period's. */
const FAULTS = {
	order: "From must be a date on or before To: showing the last 7 days",
	long: `A period covers at most ${MAX_PERIOD_DAYS} days: pick a later From or an earlier To; showing the last 7 days`,
};

/** Why an arrow steps nowhere. */
const noStep = (period: string, direction: "before" | "after") =>
	period === "realtime" ? "The realtime view has no period to step to" : period === "all" ? `All time has no period ${direction} it` : "This period reaches today";

export function PeriodPicker(options: PeriodOptions) {
	const [search, set] = useSearch();
	const { period, current } = usePeriod(options);
	const fault = customRangeFault(search.get("from"), search.get("to"));
	const choose = useChoosePeriod();
	const earlier = stepPeriod(period, current, -1);
	const later = stepPeriod(period, current, 1);
	usePeriodShortcuts(choose, options);
	return (
		<div className="row">
			<div className="row">
				<button
					type="button"
					aria-label={earlier ? `Previous period: ${days(earlier)}` : "Previous period"}
					title={earlier ? `${days(earlier)} (←)` : noStep(period, "before")}
					aria-keyshortcuts="ArrowLeft"
					disabled={!earlier}
					onClick={() => stepNow(-1, choose, options)}
				>
					‹
				</button>
				<button
					type="button"
					aria-label={later ? `Next period: ${days(later)}` : "Next period"}
					title={later ? `${days(later)} (→)` : noStep(period, "after")}
					aria-keyshortcuts="ArrowRight"
					disabled={!later}
					onClick={() => stepNow(1, choose, options)}
				>
					›
				</button>
			</div>
			<label className="inline">
				Period
				<select
					value={period}
					onChange={(e) => {
						const value = e.target.value;
						if (isPeriod(value)) choose(value === "custom" ? customDates(current) : { period: value });
					}}
				>
					{offeredPeriods(options).map(([value, label, key]) => (
						<option key={value} value={value}>
							{key ? `${label} (${key.toUpperCase()})` : label}
						</option>
					))}
				</select>
			</label>
			<span className="muted">{period === "realtime" ? "Last 30 minutes, refreshed every 30 seconds" : "UTC days"}</span>
			{period === "custom" && (
				<>
					<DayField label="From" day={search.get("from") ?? ""} max={search.get("to") ?? undefined} onDay={(from) => set({ from })} />
					<DayField label="To" day={search.get("to") ?? ""} min={search.get("from") ?? undefined} onDay={(to) => set({ to })} />
					{/*
					 * Typed dates can pass min and max, and no field limits the period's length: the figures
					 * below are then the default period's, and this says so (not before any date is given).
					 */}
					{(search.get("from") || search.get("to")) && fault && (
						<span className="error" role="alert">
							{FAULTS[fault]}
						</span>
					)}
				</>
			)}
		</div>
	);
}
