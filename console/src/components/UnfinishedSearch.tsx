import { IS_VALUES, isSearchTime, PERIOD_KEYS, searchRefusal } from "../../../domain/api/issueSearch";
import type { SearchScope } from "../../../domain/api/issueSearchSuggestions";

/**
 * A search key typed without its value, and an example of it with one; or, with `unknown`, an
 * `is:` value, a period or a count the search does not know (`is:bogus`, `lastSeen:-3d`), which it would
 * search as text, and the values the key takes.
 */
export interface Unfinished {
	key: string;
	example: string;
	unknown?: string;
	/** Why the search cannot be run as typed (searchRefusal: Sentry's OR, a list for a key of one value), after "The search". */
	refused?: string;
}

/**
 * Sentry's search keys (lower-cased) that svc keeps nothing for, each with what to do instead:
 * searched as a tag of that name, which no event carries, they would answer no issues and not
 * say why. Sentry reserves them, so no app's own tag is searched by these names either.
 */
const SENTRY_ONLY_KEYS: Readonly<Record<string, string>> = {
	assigned: "svc has no assignees",
	assigned_or_suggested: "svc has no assignees",
	bookmarks: "svc has no bookmarks",
	"issue.id": "search an issue's hash as text",
	"issue.category": "every issue here is an error or a message",
	"issue.type": "every issue here is an error or a message",
	"issue.priority": "svc has no priorities: sort by Events or Users",
	"error.value": "search the message as text, or error.type: for its type",
	"error.mechanism": "search the mechanism: tag (mechanism:onerror)",
	"event.timestamp": "lastSeen: and firstSeen: take a time (-24h, >=2026-11-01)",
};
/** What lastSeen:, firstSeen: and age: take, as Sentry's search does (isSearchTime). */
const TIME_EXAMPLE = "a time before now (-30m, -3d, -2w; +3d for longer ago) or a date (>=2026-11-01, <2026-11-01T12:00:00Z, or 2026-11-01 for that day)";
const listed = (values: readonly string[]) => (values.length > 1 ? `${values.slice(0, -1).join(", ")} or ${values.at(-1)}` : values[0]);

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
	timesseen: ">100",
};

/**
 * Why the search cannot be run as typed (searchRefusal: Sentry's `OR`, which the API refuses;
 * a key of Sentry's that svc has nothing for, `assigned:me`), else an `is:` value or a period the
 * search does not know (`is:bogus`, `lastSeen:-3d`: searched as text, which finds nothing), else
 * the first of the list's own keys typed with no value (`is:`, `level:""`), at the end of the search
 * or before another key's token, as typed, and an example of it with a value; null when there is
 * none. The search reads such a key as text, which no issue holds: it would answer no issues
 * rather than say the search is not finished. Followed by words (`user: not found`), it is text
 * as a title holds it.
 */
export function incompleteKey(search = "", scope: SearchScope = "issues"): Unfinished | null {
	const refused = searchRefusal(search);
	if (refused) return { key: "", example: "", refused };
	for (const [, key] of search.matchAll(/(?:^|\s)!?([a-z][\w.-]*):(?=[^\s])/gi)) {
		const instead = SENTRY_ONLY_KEYS[key.toLowerCase()];
		if (instead) return { key: `${key}:`, example: "", refused: `names Sentry's ${key}:, which svc cannot search: ${instead}` };
	}
	// An issue's own (is:resolved) in an event search is the API's to refuse, in its words.
	const isValues = scope === "events" ? ["unhandled"] : IS_VALUES;
	for (const [, key, value] of search.matchAll(/(?:^|\s)(is):([^\s"]+)(?=\s|$)/gi)) {
		if (IS_VALUES.includes(value.toLowerCase())) continue;
		return { key: `${key}:`, example: listed(isValues), unknown: `${key}:${value}` };
	}
	// A time the search cannot read (lastSeen:-3x, a date of no month) is text, which no title
	// holds; in an event search every period is the API's to refuse.
	for (const [, key, value] of search.matchAll(/(?:^|\s)([a-z]+):([^\s"]+)(?=\s|$)/gi)) {
		if (scope === "events" || !PERIOD_KEYS.has(key.toLowerCase()) || isSearchTime(value)) continue;
		return { key: `${key}:`, example: TIME_EXAMPLE, unknown: `${key}:${value}` };
	}
	for (const [, key, value] of search.matchAll(/(?:^|\s)(timesSeen):([^\s"]+)(?=\s|$)/gi)) {
		if (scope === "issues" && !/^(>=|<=|>|<|=)?\d{1,12}[kmb]?$/i.test(value)) {
			return { key: `${key}:`, example: "a number of events, after >, >=, < or <= for more or fewer (>100)", unknown: `${key}:${value}` };
		}
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
