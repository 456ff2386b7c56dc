import { useEffect } from "react";
import { customDates, offeredPeriods, type PeriodChoice, type PeriodOptions, periodOf, stepPeriod } from "../period";

/** Whether a key goes to what the owner is typing or choosing in (a search box, a date, a list). */
function typing(target: EventTarget | null): boolean {
	return target instanceof HTMLElement && (target.isContentEditable || ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName));
}

/**
 * The period the address holds at this moment, not at the last render: a change of period renders
 * in a transition, and a second ← pressed before it has rendered steps from the period the first
 * chose, not from the same one again.
 */
const periodNow = (options: PeriodOptions) => periodOf(new URLSearchParams(window.location.search), Date.now(), options);

/** Steps the period one back or forward; nothing forward from a period that reaches today, nothing from the realtime view or all time. */
export function stepNow(direction: -1 | 1, choose: (choice: PeriodChoice) => void, options: PeriodOptions) {
	const { period, current } = periodNow(options);
	const next = stepPeriod(period, current, direction);
	if (next) choose(next);
}

/**
 * Plausible's keys for the period: D today, E yesterday, R realtime (where the page has it), W
 * last 7 days, T last 30 days, M month to date, Y year to date, L last 12 months, A all time, C
 * custom dates, ← and → one period back and forward. None while typing, nor with a modifier
 * (Ctrl+L and the like are the browser's).
 */
export function usePeriodShortcuts(choose: (choice: PeriodChoice) => void, options: PeriodOptions) {
	const { realtime, statsFrom } = options;
	useEffect(() => {
		const onKey = (event: KeyboardEvent) => {
			if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || event.shiftKey || typing(event.target)) return;
			const step = ({ ArrowLeft: -1, ArrowRight: 1 } as const)[event.key as "ArrowLeft" | "ArrowRight"];
			const named = offeredPeriods({ realtime }).find(([, , key]) => key === event.key.toLowerCase());
			if (!step && !named) return;
			event.preventDefault();
			if (step) stepNow(step, choose, { realtime, statsFrom });
			else if (named) choose(named[0] === "custom" ? customDates(periodNow({ realtime, statsFrom }).current) : { period: named[0] });
		};
		window.addEventListener("keydown", onKey);
		return () => window.removeEventListener("keydown", onKey);
	}, [choose, realtime, statsFrom]);
}
