/**
 * Sentry's "archive until escalating": an issue ignored so reopens at the event that takes its
 * events of one hour past a limit drawn from its own last week, so an owner need not guess a count.
 * The limit is Sentry's (docs/api.md#update-issue-status): for an issue a week old or more, the
 * larger of a spike limit (the week's hourly average, plus 5 to 8 times it as the hours vary) and a
 * bursty limit (its busiest hour, times 2 to 5 as the hours vary less); for a younger one, ten
 * times its busiest hour. At least ESCALATION_MIN_LIMIT, as Sentry's forecast of an issue with one event.
 * Drawn when the issue is ignored, and again from its latest week every week it stays ignored.
 */

/** The hours the limit is drawn from: the week up to and including the current hour. */
export const ESCALATION_HOURS = 7 * 24;
export const ESCALATION_MIN_LIMIT = 10;
/** A limit is drawn again from the latest week once it is this old, as Sentry redraws its forecasts weekly. */
export const ESCALATION_REDRAW_MS = ESCALATION_HOURS * 3_600_000;

/** Whether an issue first seen at `firstSeen` (ms) has a week of history at `now`: escalatingLimit's `weekOld`. */
export const isWeekOld = (firstSeen: number, now: number) => firstSeen <= now - ESCALATION_REDRAW_MS;

/** The escalating limit at `now` of an issue first seen at `firstSeen`, from `hourly` as escalatingLimit takes it. */
export const escalatingLimitAt = (firstSeen: number, hourly: readonly number[], now: number) => escalatingLimit(hourly, isWeekOld(firstSeen, now));

/**
 * The most events one hour may hold before the issue escalates, from its events per hour of the
 * ESCALATION_HOURS up to now (oldest first; hours without events are zeros), `weekOld` when it was
 * first seen that long ago or more.
 */
export function escalatingLimit(hourly: readonly number[], weekOld: boolean): number {
	const busiest = Math.max(0, ...hourly);
	if (!weekOld) return Math.max(ESCALATION_MIN_LIMIT, busiest * 10);
	const average = hourly.reduce((sum, n) => sum + n, 0) / hourly.length;
	if (average === 0) return ESCALATION_MIN_LIMIT;
	const deviation = Math.sqrt(hourly.reduce((sum, n) => sum + (n - average) ** 2, 0) / hourly.length);
	const spike = average + clamp((average + 5 * deviation) / average, 5, 8) * average;
	const bursty = busiest * clamp(5 * Math.exp(-0.65 * (deviation / average)), 2, 5);
	return Math.max(ESCALATION_MIN_LIMIT, Math.floor(Math.max(spike, bursty)));
}

const clamp = (n: number, min: number, max: number) => Math.min(Math.max(n, min), max);

/** Where an issue ignored until escalating stands: its limit, and its events of the latest hour it has seen. */
export interface Escalation {
	limit: number;
	/** Hours since 1970 (ms / 3,600,000, whole), by when its events happened. */
	hour: number;
	events: number;
}
