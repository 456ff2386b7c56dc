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

/** A name as a file name's part: only what every file system and a header's quoted string take as it is; `fallback` when nothing is left. */
export const fileNamePart = (name: string, fallback: string) => name.replace(/[^\w.-]+/g, "-").replace(/^[-.]+|[-.]+$/g, "") || fallback;
