import type { Site } from "../../domain/sites/siteStore";

/**
 * CSV as RFC 4180 writes it: a header row, CRLF line ends, a field quoted when it holds a comma,
 * a quote, a line break or surrounding spaces, quotes doubled inside. A text that a spreadsheet
 * would run as a formula (starting with =, +, -, @, tab or CR: a referrer or an event name is
 * whatever a visitor sent) is prefixed with an apostrophe, so it opens as text.
 */

function field(value: unknown): string {
	if (value === null || value === undefined) return "";
	let text = String(value);
	if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
	return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvOf(columns: readonly string[], rows: ReadonlyArray<Record<string, unknown>>): string {
	const lines = [columns.map(field).join(",")];
	for (const row of rows) lines.push(columns.map((column) => field(row[column])).join(","));
	return `${lines.join("\r\n")}\r\n`;
}

/**
 * A CSV's file name as an owner would save it: the site's domain (its name when it has none), the
 * breakdown, and the days the range covers, first and last (the range's end is exclusive, so a
 * month's export ends on its last day, not the next month's first): `example.com-sources-2025-03-01-2025-03-31.csv`.
 */
export function csvFileName(site: Pick<Site, "domain" | "name" | "trackingId">, breakdown: string, range: { from: number; to: number }): string {
	const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
	// Only what every file system and the header's quoted string take as it is.
	const title = (site.domain ?? site.name).replace(/[^\w.-]+/g, "-").replace(/^[-.]+|[-.]+$/g, "") || site.trackingId;
	const days = [day(range.from), day(Math.max(range.from, range.to - 1))];
	return `${title}-${breakdown}-${days[0] === days[1] ? days[0] : days.join("-")}.csv`;
}
