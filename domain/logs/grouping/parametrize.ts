/**
 * Message parametrization: numbers, ids, hashes, emails, IPs, URLs, dates and quoted values
 * replaced by placeholders, so messages that differ only in such values group together.
 */


const MONTH = "(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*";
const WEEKDAY = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*";

/** In order: later patterns never see what earlier ones replaced. */
const PARAMETERS: Array<[RegExp, string]> = [
	// Quoted values: '…', "…", `…`, “…”, ‘…’ (an apostrophe inside a word does not open a quote).
	[/(?<![\w'])'[^'\n]{0,300}'(?!\w)/g, "<quoted>"],
	[/(?<!\w)"[^"\n]{0,300}"(?!\w)/g, "<quoted>"],
	[/`[^`\n]{0,300}`/g, "<quoted>"],
	[/“[^”\n]{0,300}”|‘[^’\n]{0,300}’/g, "<quoted>"],
	// Starts only where a scheme can start, so a long run of scheme characters is scanned once.
	[/(?<![a-z0-9+.-])[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`)\]]+/gi, "<url>"],
	[/(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, "<email>"],
	[/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, "<uuid>"],
	[/\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?(?!\w)/g, "<date>"],
	[
		new RegExp(
			`\\b(?:${WEEKDAY},?\\s+)?(?:\\d{1,2}\\s+${MONTH}|${MONTH}\\s+\\d{1,2}),?\\s+\\d{4}(?:\\s+\\d{1,2}:\\d{2}(?::\\d{2})?)?(?:\\s*(?:GMT|UTC)(?:[+-]\\d{2}:?\\d{2})?)?(?:\\s+\\([^)\\n]{0,60}\\))?`,
			"gi",
		),
		"<date>",
	],
	[/\b\d{1,2}\/\d{1,2}\/\d{2,4}\b/g, "<date>"],
	[/\b(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?\b/g, "<ip>"],
	[/(?<![\w:])(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}(?![\w:])/gi, "<ip>"],
	[/(?<![\w:])(?=[0-9a-f:]*\d)(?:[0-9a-f]{1,4}:){0,6}(?:[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){0,6}[0-9a-f]{0,4}(?![\w:])/gi, "<ip>"],
	[/\b\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?\b/g, "<time>"],
	[/\b[0-9a-f]{32,128}\b/gi, "<hash>"],
	[/\b0x[0-9a-f]+\b/gi, "<hex>"],
	[/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,31}\b/gi, "<hex>"],
	// Random ids and tokens: long, with letters and at least two digits (cus_9s6XKzkNRiz8i3).
	[/(?<![\w-])(?=[\w-]*\d[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]{16,}/g, "<id>"],
	// Numbers, also with units (31ms, 5MB); not inside identifiers (utf8, x86_64, v2).
	[/(?<![A-Za-z_\d.])\d+(?:[.,]\d+)*/g, "<num>"],
];

/** Replaces the parts of a message that change from one occurrence of a bug to the next. */
export function parametrize(text: string): string {
	let out = text;
	for (const [pattern, placeholder] of PARAMETERS) out = out.replace(pattern, placeholder);
	return out.replace(/\s+/g, " ").trim();
}
