// Sentry's escalating limit, computed by hand for weeks of known shape.
import { describe, expect, it } from "vitest";
import { ESCALATION_HOURS, ESCALATION_MIN_LIMIT, escalatingLimit, isWeekOld } from "../domain/logs/escalation";

/** A week of hours, each `base`, with `at` hours set to other counts. */
const week = (base: number, at: Record<number, number> = {}) => Array.from({ length: ESCALATION_HOURS }, (_, i) => at[i] ?? base);

describe("the escalating limit", () => {
	it("of an issue younger than a week is ten times its busiest hour, at least 10", () => {
		expect(escalatingLimit(week(0, { 100: 3, 150: 1 }), false)).toBe(30);
		expect(escalatingLimit(week(0, { 167: 7 }), false)).toBe(70);
		expect(escalatingLimit(week(0, { 5: 1 }), false)).toBe(ESCALATION_MIN_LIMIT);
		expect(escalatingLimit(week(0), false)).toBe(ESCALATION_MIN_LIMIT);
		expect(escalatingLimit([], false)).toBe(ESCALATION_MIN_LIMIT);
	});

	it("of a week-old issue with steady events is the spike limit: the average plus 5 times it", () => {
		// Average 10, no deviation: spike 10 + 5 × 10 = 60 against bursty 10 × 5 = 50.
		expect(escalatingLimit(week(10), true)).toBe(60);
	});

	it("of a week-old issue whose hours vary is the spike limit with up to 8 times the average", () => {
		// Half the hours 0, half 20: average 10, deviation 10, (10 + 5 × 10) / 10 = 6: spike 10 + 6 × 10 = 70;
		// bursty 20 × 5e^-0.65 = 52.2.
		const halves = Array.from({ length: ESCALATION_HOURS }, (_, i) => (i % 2 === 0 ? 0 : 20));
		expect(escalatingLimit(halves, true)).toBe(70);
		// One event a day: the multiplier stops at 8, spike (1 + 8) × 7 / 168 = 0.375; bursty 1 × 2 = 2: the least limit.
		expect(escalatingLimit(week(0, { 0: 1, 24: 1, 48: 1, 72: 1, 96: 1, 120: 1, 144: 1 }), true)).toBe(ESCALATION_MIN_LIMIT);
	});

	it("of a week-old issue that comes in bursts is the bursty limit: its busiest hour times 2 to 5", () => {
		// One hour of 30: spike (1 + 8) × 30 / 168 = 1.6; bursty 30 × 2 = 60 (5e^(-0.65 × 12.9) is under 2).
		expect(escalatingLimit(week(0, { 72: 30 }), true)).toBe(60);
		// Steady 100 an hour but one hour of 400: average 101.79, deviation 23.08, cv 0.2267: spike 101.79 × 6 = 610.7;
		// bursty 400 × 5e^(-0.65 × 0.2267) = 400 × 4.315 = 1,725.96.
		expect(escalatingLimit(week(100, { 10: 400 }), true)).toBe(1_725);
	});

	it("takes an issue as a week old from exactly 7 days after it was first seen", () => {
		const now = Date.UTC(2026, 10, 29, 12);
		expect(isWeekOld(now - 7 * 24 * 3_600_000, now)).toBe(true);
		expect(isWeekOld(now - 7 * 24 * 3_600_000 + 1, now)).toBe(false);
	});

	it("of a week-old issue without events this week is the least limit", () => {
		expect(escalatingLimit(week(0), true)).toBe(ESCALATION_MIN_LIMIT);
	});
});
