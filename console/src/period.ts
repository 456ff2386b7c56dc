/**
 * The dashboards' periods, as Plausible offers them: a day, the realtime view (the last 30
 * minutes, which the statistics' realtime endpoint counts), a number of days up to today, a month
 * or a year to date, the last whole month, the last 12 months, all time, or custom dates; kept in
 * the URL and stepped one period back or forward. Each keys a shortcut (Plausible's letters).
 */
import { OWNER_LIMITS } from "../../domain/limits";

export const PERIODS = [
	["today", "Today", "d"],
	["yesterday", "Yesterday", "e"],
	["realtime", "Realtime", "r"],
	["7d", "Last 7 days", "w"],
	["30d", "Last 30 days", "t"],
	["month", "Month to date", "m"],
	["last_month", "Last month", null],
	["year", "Year to date", "y"],
	["12mo", "Last 12 months", "l"],
	["all", "All time", "a"],
	["custom", "Custom", "c"],
] as const;
export type Period = (typeof PERIODS)[number][0];

export const isPeriod = (value: string | null): value is Period => PERIODS.some(([period]) => period === value);

/**
 * What a page offers of the periods: the realtime view only where its statistics have one (the
 * dashboard, not the crawlers'); all time from the site's first day of statistics (its
 * `stats_from`), unknown while the site is read.
 */
export interface PeriodOptions {
	realtime?: boolean;
	statsFrom?: string;
}

/** The periods a page offers. */
export const offeredPeriods = ({ realtime = false }: PeriodOptions) => PERIODS.filter(([period]) => realtime || period !== "realtime");

/** Periods that no arrow steps and no comparison is drawn for, as in Plausible: the realtime view and all time. */
export const isOpenEnded = (period: Period) => period === "realtime" || period === "all";

const DAY = 86_400_000;

export interface Range {
	from: number;
	to: number;
}

/*
 * Periods are whole UTC days, as the statistics keep them (rollups per UTC day, charts by UTC day):
 * a period that began at a local midnight would cut a UTC day, and the visitors of its first hours
 * who came earlier that UTC day would go uncounted. Months and years are UTC ones for the same reason.
 */
const utcMidnight = (ms: number) => Math.floor(ms / DAY) * DAY;

/** The first UTC midnight of the month of `ms`, `shift` months on (Date.UTC carries a month past 11 or below 0 into the year). */
function monthStart(ms: number, shift = 0): number {
	const date = new Date(ms);
	return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + shift, 1);
}

const isMonthStart = (ms: number) => monthStart(ms) === ms;

/** `YYYY-MM-DD` of the UTC day, for date inputs. */
const dateInput = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The most days a custom period covers: the longest range the statistics answer. */
export const MAX_PERIOD_DAYS = OWNER_LIMITS.statsRangeDays;

/** The first and the last UTC midnight of custom dates' days (NaN for what is no date). */
const dayBounds = (from: string | null | undefined, to: string | null | undefined) => ({
	start: from ? Date.parse(`${from}T00:00:00Z`) : Number.NaN,
	end: to ? Date.parse(`${to}T00:00:00Z`) + DAY : Number.NaN,
});

/**
 * A custom period's UTC days, `to` the end of its last day; null unless both are dates, `from`
 * comes first and they cover at most MAX_PERIOD_DAYS (a longer range the statistics refuse).
 */
function customDays(from: string | null | undefined, to: string | null | undefined): Range | null {
	const { start, end } = dayBounds(from, to);
	return Number.isNaN(start) || Number.isNaN(end) || end <= start || end - start > MAX_PERIOD_DAYS * DAY ? null : { from: start, to: end };
}

/** Custom dates over a range's days: where the custom period starts, to be changed from there. */
export const customDates = (range: Range): PeriodChoice => ({ period: "custom", from: dateInput(range.from), to: dateInput(range.to - 1) });

/**
 * Why custom dates make no period, for the date fields to say: "long" when they cover more than
 * MAX_PERIOD_DAYS, "order" otherwise (`from` after `to`, or a date missing); null when they make one.
 */
export function customRangeFault(from: string | null, to: string | null): "long" | "order" | null {
	if (customDays(from, to)) return null;
	const { start, end } = dayBounds(from, to);
	return end - start > MAX_PERIOD_DAYS * DAY ? "long" : "order";
}

/**
 * The UTC days a period covers, today's whole (its hours to come are empty): the same range all
 * day, so a page's queries stay the same, and the range just before it, which the statistics
 * compare it with, is whole days too. A period under way (ending tomorrow) is compared with as
 * much of the one before as has passed of it (docs/api.md, `previous`).
 */
function periodRange(period: Period, custom: { from?: string | null; to?: string | null }, now = Date.now(), statsFrom?: string): Range {
	const to = utcMidnight(now) + DAY;
	switch (period) {
		// The realtime view's minutes are the statistics' to choose; its days are today's, where
		// custom dates chosen from it start.
		case "realtime":
		case "today":
			return { from: to - DAY, to };
		case "yesterday":
			return { from: to - 2 * DAY, to: to - DAY };
		case "7d":
			return { from: to - 7 * DAY, to };
		case "30d":
			return { from: to - 30 * DAY, to };
		case "month":
			return { from: monthStart(now), to };
		case "last_month":
			return { from: monthStart(now, -1), to: monthStart(now) };
		case "year":
			return { from: monthStart(now, -new Date(now).getUTCMonth()), to };
		// The month under way and the 11 whole months before it, as Plausible counts them: at most 366 days.
		case "12mo":
			return { from: monthStart(now, -11), to };
		// From the site's first day (the day it was added, or the first the retention keeps) to
		// today, at most the MAX_PERIOD_DAYS a range covers: the longest while the first day is unknown.
		case "all": {
			const first = statsFrom ? Date.parse(`${statsFrom}T00:00:00Z`) : Number.NaN;
			return { from: Math.max(Number.isNaN(first) ? 0 : Math.min(first, to - DAY), to - MAX_PERIOD_DAYS * DAY), to };
		}
		case "custom":
			return customDays(custom.from, custom.to) ?? periodRange("7d", {}, now);
	}
}

/**
 * The period a page's query parameters ask for (`?period=`, `?from=`, `?to=`), the last 7 days by
 * default, and its range. A page without a realtime view reads `realtime` as today.
 */
export function periodOf(search: URLSearchParams, now = Date.now(), options: PeriodOptions = {}): { period: Period; current: Range } {
	const asked = search.get("period");
	const period: Period = isPeriod(asked) ? (asked === "realtime" && !options.realtime ? "today" : asked) : "7d";
	return { period, current: periodRange(period, { from: search.get("from"), to: search.get("to") }, now, options.statsFrom) };
}

/**
 * How many calendar months a period steps by, or null when it steps by its length in days: a month
 * or a year to date steps to the whole month or year before, and custom dates that make whole
 * months (October, or January to June) to the months before them.
 */
function stepMonths(period: Period, range: Range): number | null {
	if (period === "month" || period === "last_month") return 1;
	if (period === "year" || period === "12mo") return 12;
	if (period !== "custom" || !isMonthStart(range.from) || !isMonthStart(range.to)) return null;
	const [from, to] = [new Date(range.from), new Date(range.to)];
	return (to.getUTCFullYear() - from.getUTCFullYear()) * 12 + to.getUTCMonth() - from.getUTCMonth();
}

/** What a period is in the URL: its name, and a custom one's first and last day. */
export interface PeriodChoice {
	period: Period;
	from?: string;
	to?: string;
}

/**
 * The period of the same kind one before (`-1`) or after (`1`) this one, null after when this one
 * already reaches today, and either way from the realtime view or all time. One that would reach past today ends today, so a month steps forward
 * into the month to date. Named when a period of the same kind covers just that range (the 7 days
 * before the last 7 days come back to them), else custom dates.
 */
export function stepPeriod(period: Period, range: Range, direction: -1 | 1, now = Date.now()): PeriodChoice | null {
	const tomorrow = utcMidnight(now) + DAY;
	// The last 30 minutes have no like before them, and all time nothing before it or after it.
	if (isOpenEnded(period) || (direction === 1 && range.to >= tomorrow)) return null;
	const months = stepMonths(period, range);
	const length = range.to - range.from;
	const from = months === null ? range.from + direction * length : monthStart(range.from, direction * months);
	const next = { from, to: Math.min(tomorrow, months === null ? from + length : monthStart(from, months)) };
	const named = PERIODS.find(([other]) => {
		if (other === "custom" || isOpenEnded(other) || (stepMonths(other, next) === null) !== (months === null)) return false;
		const covers = periodRange(other, {}, now);
		return covers.from === next.from && covers.to === next.to;
	});
	return named ? { period: named[0] } : { period: "custom", from: dateInput(next.from), to: dateInput(next.to - 1) };
}

export const isoRange = (range: Range) => ({ from: new Date(range.from).toISOString(), to: new Date(range.to).toISOString() });
