/** The dashboards' period picker: today, 7 days, 30 days or custom dates, kept in the URL. */

export const PERIODS = [
	["today", "Today"],
	["7d", "Last 7 days"],
	["30d", "Last 30 days"],
	["custom", "Custom"],
] as const;
export type Period = (typeof PERIODS)[number][0];

const DAY = 86_400_000;
const MINUTE = 60_000;

export interface Range {
	from: number;
	to: number;
}

const localMidnight = (ms: number) => {
	const d = new Date(ms);
	d.setHours(0, 0, 0, 0);
	return d.getTime();
};

/** `YYYY-MM-DD` in local time, for date inputs. */
export const dateInput = (ms: number) => {
	const d = new Date(ms);
	return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
};

/** A custom period's days as local midnights, `to` the end of its last day; null unless both are dates and `from` comes first. */
function customDays(from: string | null | undefined, to: string | null | undefined): Range | null {
	if (!from || !to) return null;
	const start = new Date(`${from}T00:00`).getTime();
	const end = new Date(`${to}T00:00`).getTime() + DAY;
	return Number.isNaN(start) || Number.isNaN(end) || end <= start ? null : { from: start, to: end };
}

export const isCustomRange = (from: string | null, to: string | null) => customDays(from, to) !== null;

/**
 * The range a period covers, ending now (to the next whole minute, so a page's queries stay the
 * same for a minute). The statistics compare it with the range of the same length just before.
 */
export function periodRange(period: Period, custom: { from?: string | null; to?: string | null }, now = Date.now()): Range {
	const to = Math.ceil(now / MINUTE) * MINUTE;
	if (period === "custom") return customDays(custom.from, custom.to) ?? { from: to - 7 * DAY, to };
	if (period === "today") return { from: localMidnight(now), to };
	return { from: to - (period === "30d" ? 30 : 7) * DAY, to };
}

export const isoRange = (range: Range) => ({ from: new Date(range.from).toISOString(), to: new Date(range.to).toISOString() });
