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

/**
 * The range a period covers, ending now (to the next whole minute, so a page's queries stay the
 * same for a minute). The statistics compare it with the range of the same length just before.
 */
export function periodRange(period: Period, custom: { from?: string | null; to?: string | null }, now = Date.now()): Range {
	const to = Math.ceil(now / MINUTE) * MINUTE;
	if (period === "custom" && custom.from && custom.to) {
		const from = new Date(`${custom.from}T00:00`).getTime();
		const end = new Date(`${custom.to}T00:00`).getTime() + DAY;
		return Number.isNaN(from) || Number.isNaN(end) || end <= from ? { from: to - 7 * DAY, to } : { from, to: end };
	}
	if (period === "today") return { from: localMidnight(now), to };
	return { from: to - (period === "30d" ? 30 : 7) * DAY, to };
}

export const isoRange = (range: Range) => ({ from: new Date(range.from).toISOString(), to: new Date(range.to).toISOString() });
