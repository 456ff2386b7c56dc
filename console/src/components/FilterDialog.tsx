import { type FormEvent, useId, useRef, useState } from "react";
import {
	filterOperators,
	filterParam,
	STATS_FILTER_NAMES,
	type SiteStatsView,
	type StatsFilterName,
	type StatsFilterOperator,
	type StatsQuery,
} from "../api";
import { OWNER_LIMITS } from "../../../domain/limits";
import { focusOnceShown } from "../focus";
import { useSiteStats } from "../queries";
import { FILTER_LABELS, OPERATOR_WORDS } from "../statsFilters";
import { countryName } from "./SiteBreakdowns";

/** Values suggested for a filter: its breakdown's rows, as many as a list holds. */
const SUGGESTED = "100";

/** A suggestion: the value the filter takes, and how the page words it when that differs (a country's name). */
interface Suggestion {
	value: string;
	label?: string;
}

const plain = (values: string[]): Suggestion[] => values.map((value) => ({ value }));

/** Each filter's values, from the breakdown that lists them. */
const SUGGESTIONS: Record<StatsFilterName, (stats: SiteStatsView) => Suggestion[]> = {
	page: (s) => plain(s.top_pages.map((r) => r.path)),
	entry_page: (s) => plain(s.entry_pages.map((r) => r.path)),
	exit_page: (s) => plain(s.exit_pages.map((r) => r.path)),
	country: (s) => s.countries.map((r) => ({ value: r.country, label: countryName(r.country) })),
	device: (s) => plain(s.devices.map((r) => r.device)),
	browser: (s) => plain(s.browsers.map((r) => r.browser)),
	os: (s) => plain(s.os.map((r) => r.os)),
	source: (s) => plain(s.sources.map((r) => r.source)),
	referrer: (s) => plain(s.top_referrers.map((r) => r.referrer)),
	utm_source: (s) => plain(s.campaigns.utm_source.map((r) => r.utm_source)),
	utm_medium: (s) => plain(s.campaigns.utm_medium.map((r) => r.utm_medium)),
	utm_campaign: (s) => plain(s.campaigns.utm_campaign.map((r) => r.utm_campaign)),
	utm_content: (s) => plain(s.campaigns.utm_content.map((r) => r.utm_content)),
	utm_term: (s) => plain(s.campaigns.utm_term.map((r) => r.utm_term)),
	ref: (s) => plain(s.campaigns.ref.map((r) => r.ref)),
	event: (s) => plain(s.custom_events.map((r) => r.name)),
	property: (s) => plain([...new Set(s.event_properties.map((r) => `${r.property}:${r.value}`))]),
};

/**
 * The Filter button and its dialog, as Plausible's Filter menu: the filter, its operator (only
 * those it has) and a value typed, suggested from that filter's breakdown for the period under
 * the dashboard's other filters; Apply adds the chip, or changes that filter and operator's. The
 * platform's modal <dialog> keeps focus within it, closes on Escape and gives focus back.
 */
export function FilterDialog({
	site,
	query,
	change,
}: {
	site: string;
	/** The dashboard's statistics query: its period and filters. */
	query: StatsQuery;
	change: (changes: Record<string, string | null>) => void;
}) {
	const dialog = useRef<HTMLDialogElement>(null);
	const [open, setOpen] = useState(false);
	const [name, setName] = useState<StatsFilterName>("page");
	const [operator, setOperator] = useState<StatsFilterOperator>("is");
	const [value, setValue] = useState("");
	const [problem, setProblem] = useState("");
	const id = useId();
	// The breakdown under the other filters, as Plausible suggests: the values that would show something.
	const others = Object.fromEntries(Object.entries(query).filter(([param]) => !filterOperators(name).some((op) => filterParam(name, op) === param)));
	const stats = useSiteStats(site, { ...others, limit: SUGGESTED }, open);
	const suggestions = stats.data ? SUGGESTIONS[name](stats.data) : [];
	const property = name === "property";

	const show = () => {
		setValue("");
		setProblem("");
		setOpen(true);
		dialog.current?.showModal();
	};
	const close = () => dialog.current?.close();
	const apply = (event: FormEvent) => {
		event.preventDefault();
		if (property && !value.includes(":")) {
			setProblem("A property filter is its name, a colon and its value, as plan:pro.");
			return;
		}
		const param = filterParam(name, operator);
		change({ [param]: value });
		close();
		// Its chip, once shown, takes focus, as a filter picked from a row.
		focusOnceShown(`[data-filter="${param}"]`);
	};

	return (
		<>
			<button type="button" onClick={show} aria-haspopup="dialog">
				Filter
			</button>
			<dialog ref={dialog} className="filter-dialog" aria-labelledby={`${id}-title`} onClose={() => setOpen(false)}>
				<h2 id={`${id}-title`}>Add a filter</h2>
				<form onSubmit={apply} className="field-column">
					<label>
						Filter
						<select
							value={name}
							onChange={(event) => {
								const chosen = event.target.value as StatsFilterName;
								setName(chosen);
								setProblem("");
								if (!filterOperators(chosen).includes(operator)) setOperator("is");
							}}
						>
							{STATS_FILTER_NAMES.map((filter) => (
								<option key={filter} value={filter}>
									{FILTER_LABELS[filter]}
								</option>
							))}
						</select>
					</label>
					<label>
						Operator
						<select value={operator} onChange={(event) => setOperator(event.target.value as StatsFilterOperator)}>
							{filterOperators(name).map((choice) => (
								<option key={choice} value={choice}>
									{OPERATOR_WORDS[choice]}
								</option>
							))}
						</select>
					</label>
					<label>
						Value
						<input
							value={value}
							onChange={(event) => {
								setValue(event.target.value);
								setProblem("");
							}}
							list={`${id}-values`}
							required
							maxLength={OWNER_LIMITS.filterValue}
							autoComplete="off"
							aria-describedby={`${id}-hint`}
							aria-invalid={problem !== "" || undefined}
							// A text to search for may be any part of a value: the suggestions are whole ones.
							placeholder={property ? "plan:pro" : undefined}
						/>
					</label>
					<datalist id={`${id}-values`}>
						{suggestions.map((suggestion) => (
							<option key={suggestion.value} value={suggestion.value} label={suggestion.label} />
						))}
					</datalist>
					<p id={`${id}-hint`} className={problem ? "error" : "muted"} role={problem ? "alert" : undefined}>
						{problem ||
							(property
								? "A property's name, a colon and its value (or, for contains, a part of its value)."
								: stats.isFetching && suggestions.length === 0
									? "Reading this period's values…"
									: "Suggested from this period's values.")}
					</p>
					<div className="row end">
						<button type="button" onClick={close}>
							Cancel
						</button>
						<button type="submit" className="primary">
							Apply
						</button>
					</div>
				</form>
			</dialog>
		</>
	);
}

