import { useRef, useState } from "react";
import type { StatusDetails } from "../api";
import { useIssueFilterValues } from "../queries";
import { Menu } from "./Menu";

/**
 * "Resolve" (in the current release: its later events reopen the issue) and Sentry's menu of
 * releases to resolve in: the next one, for a fix not shipped yet, keeps the current release's
 * events from reopening it too; another, any the project has sent, for a fix already out.
 */
export function ResolveActions({ project, onResolve, disabled, primary = false }: { project: string; onResolve: (details: StatusDetails) => void; disabled: boolean; primary?: boolean }) {
	const dialog = useRef<HTMLDialogElement>(null);
	// The project's releases are read when the dialog opens, not with every page that offers it.
	const [choosing, setChoosing] = useState(false);
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
					[
						"Another release…",
						() => {
							setChoosing(true);
							dialog.current?.showModal();
						},
					],
				]}
			/>
			<dialog ref={dialog} className="confirm" aria-label="Resolve in another release" onClose={() => setChoosing(false)}>
				{choosing && (
					<ReleaseChoice
						project={project}
						onChoose={(release) => {
							dialog.current?.close();
							onResolve({ inRelease: release });
						}}
					/>
				)}
			</dialog>
		</>
	);
}

/** The project's releases, the most recently seen first, to pick the one the fix is in. */
function ReleaseChoice({ project, onChoose }: { project: string; onChoose: (release: string) => void }) {
	const names = useIssueFilterValues(project);
	const releases = names.data?.releases ?? [];
	return (
		<form
			method="dialog"
			onSubmit={(event) => {
				const submitter = (event.nativeEvent as SubmitEvent).submitter;
				if (submitter?.getAttribute("value") !== "resolve") return;
				const release = new FormData(event.currentTarget).get("release");
				if (typeof release === "string" && release !== "") onChoose(release);
			}}
		>
			<p>Events of older releases will not reopen the issue; events of this release and newer ones will.</p>
			{names.isPending ? (
				<p className="muted">Loading the project's releases…</p>
			) : names.isError ? (
				<p className="error">The project's releases could not be read: {names.error.message}</p>
			) : releases.length === 0 ? (
				<p className="muted">No event of this project has named a release yet.</p>
			) : (
				<label>
					The fix is in release{" "}
					<select name="release" defaultValue={releases[0]}>
						{releases.map((release) => (
							<option key={release}>{release}</option>
						))}
					</select>
				</label>
			)}
			<div className="row end">
				<button type="submit" value="cancel">
					Cancel
				</button>
				<button type="submit" value="resolve" className="primary" disabled={releases.length === 0}>
					Resolve
				</button>
			</div>
		</form>
	);
}

/** How an issue was resolved: "Resolved in release 1.4.2", "Resolved in the release after 1.4.2". */
export function resolvedIn(issue: { resolved_in_release: string | null; resolved_in_next_release?: true }): string {
	if (!issue.resolved_in_release) return "Resolved (no release recorded)";
	return issue.resolved_in_next_release ? `Resolved in the release after ${issue.resolved_in_release}` : `Resolved in release ${issue.resolved_in_release}`;
}
