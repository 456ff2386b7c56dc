import { Link } from "react-router";
import { offeredValue } from "../searchParams";

/** One of a list's selects: the values it offers, and how the page words one it does not. */
export interface OfferedChoice {
	values: readonly string[];
	/** What a value of it is, as "a status". */
	what: string;
	/** What the list shows instead of a value it does not offer: its select's default, as "any status". */
	instead: string;
}

/**
 * Says which of the address's values (typed, or from an old link) the list's selects do not
 * offer, each with a link to the address without it. The list is then that select's default's,
 * and the page says so, rather than showing the service's refusal of the value or dropping it
 * from the address unsaid.
 */
export function UnofferedChoices({ search, offered }: { search: URLSearchParams; offered: Record<string, OfferedChoice> }) {
	const names = Object.keys(offered).filter((name) => search.get(name) && !offeredValue(search, name, offered[name].values));
	return names.map((name) => {
		const without = new URLSearchParams(search);
		without.delete(name);
		return (
			<p key={name} className="card notice" role="status">
				This page's address asks for {offered[name].what} that does not exist ({search.get(name)}): showing {offered[name].instead}.{" "}
				<Link to={`?${without}`}>Remove it from the address</Link>
			</p>
		);
	});
}
