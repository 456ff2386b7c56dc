import { type ReactNode, useRef } from "react";

/**
 * A menu button: `label` opens a list of choices, each a [label, what it does] pair. It closes as
 * menus do: on a choice, when focus leaves it, or on Escape (focus back on its button).
 */
export function Menu({ label, choices, disabled }: { label: ReactNode; choices: ReadonlyArray<[label: string, choose: () => void]>; disabled: boolean }) {
	const menu = useRef<HTMLDetailsElement>(null);
	return (
		<details
			className="menu"
			ref={menu}
			onBlur={(e) => {
				if (!e.currentTarget.contains(e.relatedTarget)) e.currentTarget.open = false;
			}}
			onKeyDown={(e) => {
				if (e.key !== "Escape" || !e.currentTarget.open) return;
				e.currentTarget.open = false;
				e.currentTarget.querySelector("summary")?.focus();
			}}
		>
			<summary aria-disabled={disabled}>{label}</summary>
			<div className="menu-items">
				{choices.map(([text, choose]) => (
					<button
						key={text}
						type="button"
						disabled={disabled}
						onClick={() => {
							if (menu.current) menu.current.open = false;
							choose();
						}}
					>
						{text}
					</button>
				))}
			</div>
		</details>
	);
}
