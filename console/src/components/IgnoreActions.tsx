import { ESCALATING_FOR_MS, type IgnoreCondition, type IssueView } from "../api";
import { count, utcDateTime } from "../format";
import { Menu } from "./Menu";

/** How long an issue can be ignored from the menu, as Sentry offers it. */
const IGNORE_CHOICES: ReadonlyArray<[string, IgnoreCondition]> = [
	["Until it escalates", { escalating: true }],
	["For 30 minutes", { minutes: 30 }],
	["For 2 hours", { minutes: 120 }],
	["For 24 hours", { minutes: 1_440 }],
	["For 7 days", { minutes: 10_080 }],
	["Until it occurs 10 more times", { events: 10 }],
	["Until it occurs 100 more times", { events: 100 }],
	["Until it occurs 1,000 more times", { events: 1_000 }],
	["Until it affects 10 more users", { users: 10 }],
	["Until it affects 100 more users", { users: 100 }],
];

/**
 * "Ignore" (until reopened by hand; left out where that is what holds already), and a menu of how
 * long to ignore for.
 */
export function IgnoreActions({ onIgnore, disabled, ignoredForGood = false }: { onIgnore: (ignoring: IgnoreCondition) => void; disabled: boolean; ignoredForGood?: boolean }) {
	return (
		<>
			{!ignoredForGood && (
				<button type="button" onClick={() => onIgnore({})} disabled={disabled}>
					Ignore
				</button>
			)}
			<Menu label="Ignore for…" disabled={disabled} choices={IGNORE_CHOICES.map(([label, ignoring]) => [label, () => onIgnore(ignoring)])} />
		</>
	);
}

/** An open issue an escalation reopened within the week (Sentry's "Escalating", which then turns "Ongoing"). */
export function isEscalating(issue: Pick<IssueView, "status" | "escalated_at">, now = Date.now()): boolean {
	return issue.status === "open" && issue.escalated_at !== undefined && now - Date.parse(issue.escalated_at) <= ESCALATING_FOR_MS;
}

/** What ends an ignored issue's ignoring, when something does: "until Jun 1, 2026, 4:00:00 PM UTC". */
export function ignoredUntil(issue: Pick<IssueView, "ignored_until" | "ignored_until_count" | "ignored_until_users" | "ignored_until_escalating">): string | null {
	if (issue.ignored_until) return `until ${utcDateTime(issue.ignored_until)}`;
	if (issue.ignored_until_count !== undefined) return `until seen ${count(issue.ignored_until_count)} times`;
	if (issue.ignored_until_users !== undefined) return `until it affects ${count(issue.ignored_until_users)} users`;
	if (issue.ignored_until_escalating) return `until it escalates: over ${count(issue.ignored_until_escalating.events_per_hour)} events in an hour`;
	return null;
}
