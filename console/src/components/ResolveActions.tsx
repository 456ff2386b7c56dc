import type { StatusDetails } from "../api";
import { Menu } from "./Menu";

/**
 * "Resolve" (in the current release: its later events reopen the issue) and Sentry's menu of
 * releases to resolve in: the next one, for a fix not shipped yet, keeps the current release's
 * events from reopening it too.
 */
export function ResolveActions({ onResolve, disabled, primary = false }: { onResolve: (details: StatusDetails) => void; disabled: boolean; primary?: boolean }) {
	return (
		<>
			<button type="button" className={primary ? "primary" : undefined} onClick={() => onResolve({})} disabled={disabled}>
				Resolve
			</button>
			<Menu
				label="Resolve in…"
				disabled={disabled}
				choices={[
					["The next release", () => onResolve({ inNextRelease: true })],
					["The current release", () => onResolve({})],
				]}
			/>
		</>
	);
}

/** How an issue was resolved: "Resolved in release 1.4.2", "Resolved in the release after 1.4.2". */
export function resolvedIn(issue: { resolved_in_release: string | null; resolved_in_next_release?: true }): string {
	if (!issue.resolved_in_release) return "Resolved (no release recorded)";
	return issue.resolved_in_next_release ? `Resolved in the release after ${issue.resolved_in_release}` : `Resolved in release ${issue.resolved_in_release}`;
}
