/**
 * The dashboard's filters as the page words them and the address holds them
 * (docs/api.md#statistics): each a name, an operator and a value, in the address as one parameter
 * (`page_contains=blog`).
 */
import { filterOperators, filterParam, STATS_FILTER_NAMES, type StatsFilterName, type StatsFilterOperator, type StatsFilterParam } from "./api";
import { countryName } from "./components/SiteBreakdowns";

/** How each filter is named on the page. */
export const FILTER_LABELS: Record<StatsFilterName, string> = {
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

/** Each operator as Plausible's dashboard words it. */
export const OPERATOR_WORDS: Record<StatsFilterOperator, string> = {
	is: "is",
	is_not: "is not",
	contains: "contains",
	contains_not: "does not contain",
};

/** A filter's operators in words, as a choice: "is or is not", "is, is not, contains or does not contain". */
export function operatorChoice(name: StatsFilterName): string {
	const words = filterOperators(name).map((operator) => OPERATOR_WORDS[operator]);
	return `${words.slice(0, -1).join(", ")} or ${words[words.length - 1]}`;
}

/** A filter as the page words it: `Country` and `Germany`; a property filter (`plan:pro`) as `Property plan` and `pro`. */
export function filterWords(name: StatsFilterName, value: string): { label: string; value: string } {
	if (name === "country") return { label: FILTER_LABELS.country, value: countryName(value) };
	const colon = value.indexOf(":");
	if (name === "property" && colon >= 0) {
		return { label: `${FILTER_LABELS.property} ${value.slice(0, colon)}`, value: value.slice(colon + 1) };
	}
	return { label: FILTER_LABELS[name], value };
}

/** A filter in the address: its name, its operator and its parameter. */
export interface ActiveFilter {
	name: StatsFilterName;
	operator: StatsFilterOperator;
	param: StatsFilterParam;
}

/** The filters the address gives, each filter's in the order of its operators. */
export const activeFilters = (search: URLSearchParams): ActiveFilter[] =>
	STATS_FILTER_NAMES.flatMap((name) =>
		filterOperators(name)
			.map((operator) => ({ name, operator, param: filterParam(name, operator) }))
			.filter(({ param }) => search.has(param)),
	);
