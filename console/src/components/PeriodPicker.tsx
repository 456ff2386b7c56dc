import { useCallback } from "react";
import { useSearchParams } from "react-router";
import { customDates, isCustomRange, isPeriod, type PeriodChoice, PERIODS, periodOf, stepPeriod } from "../period";
import { useSearch } from "../searchParams";
import { stepNow, usePeriodShortcuts } from "./usePeriodShortcuts";

/** The period of a dashboard, read from and written to the URL (`?period=`, `?from=`, `?to=`). */
export function usePeriod() {
	const [search] = useSearchParams();
	return periodOf(search);
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

export function PeriodPicker() {
	const [search, set] = useSearch();
	const { period, current } = usePeriod();
	const choose = useChoosePeriod();
	const earlier = stepPeriod(period, current, -1);
	const later = stepPeriod(period, current, 1);
	usePeriodShortcuts(choose);
	return (
		<div className="row">
			<div className="row">
				<button type="button" aria-label={`Previous period: ${days(earlier)}`} title={`${days(earlier)} (←)`} aria-keyshortcuts="ArrowLeft" onClick={() => stepNow(-1, choose)}>
					‹
				</button>
				<button
					type="button"
					aria-label={later ? `Next period: ${days(later)}` : "Next period"}
					title={later ? `${days(later)} (→)` : "This period reaches today"}
					aria-keyshortcuts="ArrowRight"
					disabled={!later}
					onClick={() => stepNow(1, choose)}
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
					{PERIODS.map(([value, label, key]) => (
						<option key={value} value={value}>
							{key ? `${label} (${key.toUpperCase()})` : label}
						</option>
					))}
				</select>
			</label>
			<span className="muted">UTC days</span>
			{period === "custom" && (
				<>
					<label className="inline">
						From
						<input type="date" value={search.get("from") ?? ""} max={search.get("to") ?? undefined} onChange={(e) => set({ from: e.target.value })} />
					</label>
					<label className="inline">
						To
						<input type="date" value={search.get("to") ?? ""} min={search.get("from") ?? undefined} onChange={(e) => set({ to: e.target.value })} />
					</label>
					{/* Typed dates can pass min and max: the figures below are then the default period's, and this says so (not before any date is given). */}
					{(search.get("from") || search.get("to")) && !isCustomRange(search.get("from"), search.get("to")) && (
						<span className="error" role="alert">
							From must be a date on or before To: showing the last 7 days
						</span>
					)}
				</>
			)}
		</div>
	);
}
