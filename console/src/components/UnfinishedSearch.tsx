import type { SearchScope } from "../../../domain/api/issueSearchSuggestions";

/** A search key typed without its value, and an example of it with one. */
export interface Unfinished {
	key: string;
	example: string;
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
 * The first of the list's own keys typed with no value (`is:`, `level:""`), at the end of the search
 * or before another key's token, as typed, and an example of it with a value; null when there is
 * none. The search reads such a key as text, which no issue holds: it would answer no issues
 * rather than say the search is not finished. Followed by words (`user: not found`), it is text
 * as a title holds it.
 */
export function incompleteKey(search = "", scope: SearchScope = "issues"): Unfinished | null {
	for (const [, key] of search.matchAll(/(?:^|\s)!?([a-z][\w.-]*):(?:"")?(?=\s*$|\s+!?[a-z][\w.[\]-]*:)/gi)) {
		// `is:` of one event can only be unhandled: its status is its issue's.
		const example = scope === "events" && key.toLowerCase() === "is" ? "unhandled" : KEY_EXAMPLES[key.toLowerCase()];
		if (example !== undefined) return { key: `${key}:`, example: `${key}:${example}` };
	}
	return null;
}

/** What an unfinished search needs, said beside its box (`id`, for the box's aria-describedby). */
export function UnfinishedSearch({ unfinished, id }: { unfinished: Unfinished; id: string }) {
	return (
		<p className="error" role="alert" id={id}>
			The search is not finished: <code>{unfinished.key}</code> needs a value, e.g. <code>{unfinished.example}</code>.
		</p>
	);
}
