import { negatedFilter, STATS_FILTER_NAMES, type StatsFilterName, type StatsFilterParam } from "../api";
import { keepFocusThroughRemoval } from "../focus";
import { countryName } from "./SiteBreakdowns";

/** How each filter is named on the page. */
const FILTER_LABELS: Record<StatsFilterName, string> = {
	page: "Page",
	entry_page: "Entry page",
	exit_page: "Exit page",
	country: "Country",
	device: "Device",
	browser: "Browser",
	os: "OS",
	source: "Source",
	referrer: "Referrer",
	utm_source: "UTM source",
	utm_medium: "UTM medium",
	utm_campaign: "UTM campaign",
	utm_content: "UTM content",
	utm_term: "UTM term",
	ref: "Ref",
	event: "Custom event",
	property: "Property",
};

/** A filter as the page words it: `Country` and `Germany`; a property filter (`plan:pro`) as `Property plan` and `pro`. */
function filterWords(name: StatsFilterName, value: string): { label: string; value: string } {
	if (name === "country") return { label: FILTER_LABELS.country, value: countryName(value) };
	const colon = value.indexOf(":");
	if (name === "property" && colon >= 0) {
		return { label: `${FILTER_LABELS.property} ${value.slice(0, colon)}`, value: value.slice(colon + 1) };
	}
	return { label: FILTER_LABELS[name], value };
}

/** A filter in the address: its name, and whether it is "is not" (`country_not`). */
interface ActiveFilter {
	name: StatsFilterName;
	negated: boolean;
	param: StatsFilterParam;
}

/** The filters the address gives, "is" before "is not" of each. */
const activeFilters = (search: URLSearchParams): ActiveFilter[] =>
	STATS_FILTER_NAMES.flatMap((name) =>
		[false, true].map((negated) => ({ name, negated, param: negated ? negatedFilter(name) : name })).filter(({ param }) => search.has(param)),
	);

/**
 * The filters applied, one chip each: its name, whether it is or is not (a choice, as Plausible's
 * filter has its operator), its value, and × to remove it. A filter is picked as "is" from a
 * row; its chip turns it into "is not".
 */
export function FilterChips({
	search,
	change,
}: {
	search: URLSearchParams;
	change: (changes: Record<string, string | null>) => void;
}) {
	const active = activeFilters(search);
	if (active.length === 0) return null;
	return (
		<div className="row filters-active">
			<span className="muted">Filtered to</span>
			{/* A list, so that a chip removed hands focus to the one in its place (keepFocusThroughRemoval). */}
			<ul className="plain row">
				{active.map(({ name, negated, param }) => {
					const value = search.get(param) ?? "";
					const words = filterWords(name, value);
					const operator = negated ? "is not" : "is";
					// One of a filter's two forms at a time: the chip keeps its place (and focus) through a change of operator.
					const both = search.has(name) && search.has(negatedFilter(name));
					return (
						<li key={both ? param : name} className="filter-chip">
							<span>{words.label}</span>
							<select
								className="operator"
								aria-label={`${words.label}: is or is not ${words.value}`}
								value={operator}
								onChange={(event) => {
									const toNegated = event.target.value === "is not";
									change({ [param]: null, [toNegated ? negatedFilter(name) : name]: value });
								}}
							>
								<option value="is">is</option>
								<option value="is not">is not</option>
							</select>
							<span className="filter-value" title={words.value}>
								{words.value}
							</span>
							{/* The accessible name says the filter whole, as the chip reads. */}
							<button
								type="button"
								className="chip-remove"
								data-filter={param}
								onClick={(event) => {
									keepFocusThroughRemoval(event.currentTarget);
									change({ [param]: null });
								}}
								aria-label={`${words.label} ${operator} ${words.value}, remove filter`}
							>
								<span aria-hidden="true">×</span>
							</button>
						</li>
					);
				})}
			</ul>
		</div>
	);
}
