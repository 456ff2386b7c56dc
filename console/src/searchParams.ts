import { useCallback, useEffect, useState } from "react";
import { type NavigateOptions, useSearchParams } from "react-router";

/** Query parameters to set; an empty string or null removes one. */
type SearchChanges = Record<string, string | null>;

/**
 * The page's query parameters, and a change to them that starts from the address as it is now.
 * React Router hands an updater the parameters of the last render and renders a navigation in a
 * transition, so a second change made before the first has rendered (Clear, then a filter at
 * once) would start from the old parameters and bring back what the first removed.
 */
export function useSearch() {
	const [search, setSearch] = useSearchParams();
	const change = useCallback(
		(changes: SearchChanges, options?: NavigateOptions) => {
			const next = new URLSearchParams(window.location.search);
			for (const [name, value] of Object.entries(changes)) value ? next.set(name, value) : next.delete(name);
			setSearch(next, options);
		},
		[setSearch],
	);
	return [search, change] as const;
}

/**
 * A choice kept in the address (`name`: a card's tab, what the chart draws), so a reload or a shared
 * link shows the same, and its change. A choice made shows at once; the address follows as a
 * navigation, which renders the whole page in a transition. A change of address from elsewhere
 * (Back, a link) wins. Null chosen removes the parameter.
 */
export function useAddressChoice(name: string) {
	const [search, change] = useSearch();
	const inAddress = search.get(name);
	const [chosen, setChosen] = useState(inAddress);
	useEffect(() => setChosen(inAddress), [inAddress]);
	const choose = (value: string | null) => {
		setChosen(value);
		change({ [name]: value }, { replace: true });
	};
	return [chosen, choose] as const;
}

/**
 * The address's value of `name` when it is one of `values`, what the page's select for it offers;
 * undefined for any other (typed, or from an old link), which the page treats as none.
 */
export const offeredValue = <T extends string>(search: URLSearchParams, name: string, values: readonly T[]): T | undefined =>
	values.find((value) => value === search.get(name));

/** A project's issue list, with its search and filters when given (a query string without its `?`). */
export function issueListLink(project: string, query: URLSearchParams | string = ""): string {
	const text = query.toString();
	return `/issues/${encodeURIComponent(project)}${text ? `?${text}` : ""}`;
}

/**
 * An issue's page: `event` opens one of its events (a stored id, or the id its SDK gave it),
 * `environment` shows the issue as it reads there, `q` its events that match a search.
 */
/** The console's page of one feedback item (its route /feedback/:project/:id), with the list's query to go back to when given. */
export const feedbackItemLink = (project: string, id: string, list?: URLSearchParams) =>
	`/feedback/${encodeURIComponent(project)}/${encodeURIComponent(id)}${list?.size ? `?${list}` : ""}`;

export function issueLink(project: string, groupHash: string, { event, environment, q }: { event?: string | null; environment?: string | null; q?: string | null } = {}): string {
	const query = new URLSearchParams();
	if (environment) query.set("environment", environment);
	if (q) query.set("q", q);
	if (event) query.set("event", event);
	return `/issues/${encodeURIComponent(project)}/${groupHash}${query.size ? `?${query}` : ""}`;
}
