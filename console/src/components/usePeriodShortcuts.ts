import { useEffect } from "react";
import { customDates, type PeriodChoice, PERIODS, type Range } from "../period";

/** Whether a key goes to what the owner is typing or choosing in (a search box, a date, a list). */
function typing(target: EventTarget | null): boolean {
	return target instanceof HTMLElement && (target.isContentEditable || ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName));
}

/**
 * Plausible's keys for the period: D today, E yesterday, W last 7 days, T last 30 days, M month to
 * date, Y year to date, L last 12 months, C custom dates, ← and → one period back and forward.
 * None while typing, nor with a modifier (Ctrl+L and the like are the browser's).
 */
export function usePeriodShortcuts({ current, earlier, later, choose }: { current: Range; earlier: PeriodChoice | null; later: PeriodChoice | null; choose: (choice: PeriodChoice) => void }) {
	useEffect(() => {
		const onKey = (event: KeyboardEvent) => {
			if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || event.shiftKey || typing(event.target)) return;
			const named = PERIODS.find(([, , key]) => key === event.key.toLowerCase());
			const choice = event.key === "ArrowLeft" ? earlier : event.key === "ArrowRight" ? later : named?.[0] === "custom" ? customDates(current) : named && { period: named[0] };
			if (!choice) return;
			event.preventDefault();
			choose(choice);
		};
		window.addEventListener("keydown", onKey);
		return () => window.removeEventListener("keydown", onKey);
	}, [current, earlier, later, choose]);
}
