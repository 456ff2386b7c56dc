import { IS_VALUES, searchRefusal } from "../../../domain/api/issueSearch";
import type { SearchScope } from "../../../domain/api/issueSearchSuggestions";

/**
 * A search key typed without its value, and an example of it with one; or, with `unknown`, an
 * `is:` value the search does not know (`is:bogus`), which it would search as text.
 */
export interface Unfinished {
	key: string;
	example: string;
	unknown?: string;
	/** Why the search cannot be run as typed (searchRefusal: Sentry's OR, a list for a key of one value), after "The search". */
	refused?: string;
}

/** A value of each of the list's own keys (lower-cased), to show with one typed without any. */
const KEY_EXAMPLES: Readonly<Record<string, string>> = {
	is: "unresolved",
	level: "error",
	environment: "production",
	release: "1.4.2",
	firstrelease: "1.4.2",
	user: "ana@example.com",
	"user.id": "42",
	"user.email": "ana@example.com",
	has: "user",
	lastseen: "-24h",
	firstseen: "-7d",
	age: "-7d",
	message: "checkout",
};

/**
 * Why the search cannot be run as typed (searchRefusal: Sentry's `OR`, which the API refuses),
 * else an `is:` value the search does not know (`is:bogus`, searched as text, which finds nothing), else
 * the first of the list's own keys typed with no value (`is:`, `level:""`), at the end of the search
 * or before another key's token, as typed, and an example of it with a value; null when there is
 * none. The search reads such a key as text, which no issue holds: it would answer no issues
 * rather than say the search is not finished. Followed by words (`user: not found`), it is text
 * as a title holds it.
 */
export function incompleteKey(search = "", scope: SearchScope = "issues"): Unfinished | null {
	const refused = searchRefusal(search);
	if (refused) return { key: "", example: "", refused };
	// An issue's own (is:resolved) in an event search is the API's to refuse, in its words.
	const isValues = scope === "events" ? ["unhandled"] : IS_VALUES;
	for (const [, key, value] of search.matchAll(/(?:^|\s)(is):([^\s"]+)(?=\s|$)/gi)) {
		if (IS_VALUES.includes(value.toLowerCase())) continue;
		const choices = isValues.length > 1 ? `${isValues.slice(0, -1).join(", ")} or ${isValues.at(-1)}` : isValues[0];
		return { key: `${key}:`, example: choices, unknown: `${key}:${value}` };
	}
	for (const [, key] of search.matchAll(/(?:^|\s)!?([a-z][\w.-]*):(?:"")?(?=\s*$|\s+!?[a-z][\w.[\]-]*:)/gi)) {
		// `is:` of one event can only be unhandled: its status is its issue's.
		const example = scope === "events" && key.toLowerCase() === "is" ? "unhandled" : KEY_EXAMPLES[key.toLowerCase()];
		if (example !== undefined) return { key: `${key}:`, example: `${key}:${example}` };
	}
	return null;
}

/** What an unfinished search needs (or what an unknown `is:` value could be), said beside its box (`id`, for the box's aria-describedby). */
export function UnfinishedSearch({ unfinished, id }: { unfinished: Unfinished; id: string }) {
	return (
		<p className="error" role="alert" id={id}>
			{unfinished.refused ? (
				<>The search {unfinished.refused}.</>
			) : unfinished.unknown ? (
				<>
					<code>{unfinished.unknown}</code> is not one the search knows: <code>{unfinished.key}</code> takes {unfinished.example}.
				</>
			) : (
				<>
					The search is not finished: <code>{unfinished.key}</code> needs a value, e.g. <code>{unfinished.example}</code>.
				</>
			)}
		</p>
	);
}
