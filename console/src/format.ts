/** How the console writes times and numbers. */

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
	["day", 86_400_000],
	["hour", 3_600_000],
	["minute", 60_000],
];

/** "3 minutes ago", "yesterday", "now". */
export function ago(iso: string, now = Date.now()): string {
	const diff = Date.parse(iso) - now;
	for (const [unit, ms] of UNITS) if (Math.abs(diff) >= ms) return relative.format(Math.round(diff / ms), unit);
	return "just now";
}

/**
 * Every absolute time the console shows is in UTC and says so: the charts count UTC hours and days
 * (the 30-day chart can only be drawn in UTC), so a time beside them, or on any other page, names
 * the same day they do, whatever the browser's time zone, and reads as the server's and the SDK's
 * own logs. Relative times ("3 minutes ago") need no zone.
 */
const utcDateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeZone: "UTC" });
const utcDateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium", timeZone: "UTC" });
const utcTimeFormat = new Intl.DateTimeFormat(undefined, { timeStyle: "medium", timeZone: "UTC" });
/** "Jun 1, 2026, 4:00:00 PM UTC". */
export const utcDateTime = (ms: number | string) => `${utcDateTimeFormat.format(new Date(ms))} UTC`;
/** "Jun 1, 2026 UTC". */
export const utcDate = (ms: number | string) => `${utcDateFormat.format(new Date(ms))} UTC`;
/** "4:00:00 PM", for a column headed as UTC. */
export const utcTime = (ms: number) => utcTimeFormat.format(new Date(ms));

const compact = new Intl.NumberFormat(undefined, { notation: "compact", maximumFractionDigits: 1 });
export const count = (n: number) => (n < 10_000 ? n.toLocaleString() : compact.format(n));

/** Seconds as "1m 05s" or "42s". */
export function duration(seconds: number): string {
	const s = Math.round(seconds);
	return s >= 60 ? `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s` : `${s}s`;
}

export const percent = (share: number) => `${Math.round(share * 1000) / 10}%`;

/** At most one decimal: "1.5", "2". */
export const oneDecimal = (n: number) => n.toLocaleString(undefined, { maximumFractionDigits: 1 });

/** "1 event", "2 events": a count and its noun (regular plurals only). */
export const plural = (n: number, noun: string) => `${count(n)} ${noun}${n === 1 ? "" : "s"}`;
