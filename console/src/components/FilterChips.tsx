import { filterOperators, filterParam, type StatsFilterOperator } from "../api";
import { keepFocusThroughRemoval } from "../focus";
import { activeFilters, filterWords, OPERATOR_WORDS, operatorChoice } from "../statsFilters";

/**
 * The filters applied, one chip each: its name, its operator (a choice, as Plausible's filter has
 * it: is, is not and, where the filter has them, contains and does not contain), its value, and ×
 * to remove it. A filter is picked as "is" from a row, or with any operator in the Filter dialog;
 * its chip changes the operator.
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
				{active.map(({ name, operator, param }) => {
					const value = search.get(param) ?? "";
					const words = filterWords(name, value);
					// One of a filter's operators at a time: the chip keeps its place (and focus) through a change of operator.
					const alone = active.filter((other) => other.name === name).length === 1;
					return (
						<li key={alone ? name : param} className="filter-chip">
							<span>{words.label}</span>
							<select
								className="operator"
								aria-label={`${words.label}: ${operatorChoice(name)} ${words.value}`}
								value={operator}
								onChange={(event) => {
									const to = filterParam(name, event.target.value as StatsFilterOperator);
									change({ [param]: null, [to]: value });
								}}
							>
								{filterOperators(name).map((choice) => (
									<option key={choice} value={choice}>
										{OPERATOR_WORDS[choice]}
									</option>
								))}
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
								aria-label={`${words.label} ${OPERATOR_WORDS[operator]} ${words.value}, remove filter`}
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
