import { useSearchParams } from "react-router";
import { dateInput, isCustomRange, type Period, PERIODS, periodRange } from "../period";
import { useSearch } from "../searchParams";

/** The period of a dashboard, read from and written to the URL (`?period=`, `?from=`, `?to=`). */
export function usePeriod() {
	const [search] = useSearchParams();
	const asked = search.get("period");
	const period: Period = PERIODS.some(([value]) => value === asked) ? (asked as Period) : "7d";
	return { period, current: periodRange(period, { from: search.get("from"), to: search.get("to") }) };
}

/** The period's part of a query string, for a link to another dashboard of the site: its filters are this page's own. */
export function periodQuery(search: URLSearchParams): string {
	return new URLSearchParams(["period", "from", "to"].flatMap((name) => (search.has(name) ? [[name, search.get(name) ?? ""]] : []))).toString();
}

export function PeriodPicker() {
	const [search, set] = useSearch();
	const { period, current } = usePeriod();
	return (
		<div className="row">
			<label className="inline">
				Period
				<select
					value={period}
					onChange={(e) =>
						set(
							e.target.value === "custom"
								? { period: "custom", from: dateInput(current.from), to: dateInput(current.to - 1) }
								: { period: e.target.value === "7d" ? "" : e.target.value, from: "", to: "" },
						)
					}
				>
					{PERIODS.map(([value, label]) => (
						<option key={value} value={value}>
							{label}
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
