import { type ReactNode, useEffect, useState } from "react";

/**
 * Items of a list ticked for an action on all of them at once. The selection belongs to the list
 * it was made in: it empties when `listKey` changes (another project or other filters), and only
 * ticked items still shown count.
 */
export function useSelection(shown: string[], listKey: string) {
	const [ticked, setTicked] = useState<ReadonlySet<string>>(new Set());
	// biome-ignore lint/correctness/useExhaustiveDependencies: emptied whenever the list it was made in changes
	useEffect(() => setTicked(new Set()), [listKey]);
	const toggle = (ids: string[], on: boolean) =>
		setTicked((previous) => {
			const next = new Set(previous);
			for (const id of ids) on ? next.add(id) : next.delete(id);
			return next;
		});
	return {
		ids: shown.filter((id) => ticked.has(id)),
		allShown: shown.length > 0 && shown.every((id) => ticked.has(id)),
		has: (id: string) => ticked.has(id),
		toggle,
		toggleAll: (on: boolean) => toggle(shown, on),
	};
}

export type Selection = ReturnType<typeof useSelection>;

/** The bar above a list: "Select all shown", how many are ticked, and the actions on them. */
export function SelectionBar({ selection, label, children }: { selection: Selection; label: string; children: ReactNode }) {
	return (
		<fieldset className="row bulk" aria-label={label}>
			<label className="switch">
				<input type="checkbox" checked={selection.allShown} onChange={(e) => selection.toggleAll(e.target.checked)} />
				Select all shown
			</label>
			<span aria-live="polite">{selection.ids.length} selected</span>
			{children}
		</fieldset>
	);
}
