import type { ReactNode } from "react";

/**
 * A table that may be wider than a phone's screen scrolls inside its own box, which keyboard
 * users can focus and scroll too, instead of widening the page.
 */
export function TableWrap({ label, children }: { label: string; children: ReactNode }) {
	return (
		// biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard to be scrolled
		<section className="table-wrap" aria-label={label} tabIndex={0}>
			{children}
		</section>
	);
}
