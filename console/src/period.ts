/** The dashboards' period picker: today, 7 days, 30 days or custom dates, kept in the URL. */

export const PERIODS = [
	["today", "Today"],
	["7d", "Last 7 days"],
	["30d", "Last 30 days"],
	["custom", "Custom"],
] as const;
export type Period = (typeof PERIODS)[number][0];

const DAY = 86_400_000;

export interface Range {
	from: number;
	to: number;
}

/*
 * Periods are whole UTC days, as the statistics keep them (rollups per UTC day, charts by UTC day):
 * a period that began at a local midnight would cut a UTC day, and the visitors of its first hours
 * who came earlier that UTC day would go uncounted.
 */
const utcMidnight = (ms: number) => Math.floor(ms / DAY) * DAY;

/** `YYYY-MM-DD` of the UTC day, for date inputs. */
export const dateInput = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** A custom period's UTC days, `to` the end of its last day; null unless both are dates and `from` comes first. */
function customDays(from: string | null | undefined, to: string | null | undefined): Range | null {
	if (!from || !to) return null;
	const start = Date.parse(`${from}T00:00:00Z`);
	const end = Date.parse(`${to}T00:00:00Z`) + DAY;
	return Number.isNaN(start) || Number.isNaN(end) || end <= start ? null : { from: start, to: end };
}

export const isCustomRange = (from: string | null, to: string | null) => customDays(from, to) !== null;

/**
 * The UTC days a period covers, today's whole (its hours to come are empty): the same range all
 * day, so a page's queries stay the same, and the range just before it, which the statistics
 * compare it with, is whole days too.
 */
export function periodRange(period: Period, custom: { from?: string | null; to?: string | null }, now = Date.now()): Range {
	const to = utcMidnight(now) + DAY;
	if (period === "custom") return customDays(custom.from, custom.to) ?? { from: to - 7 * DAY, to };
	return { from: to - (period === "today" ? 1 : period === "30d" ? 30 : 7) * DAY, to };
}

export const isoRange = (range: Range) => ({ from: new Date(range.from).toISOString(), to: new Date(range.to).toISOString() });
