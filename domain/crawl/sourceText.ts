/**
 * What an entry of ai.robots.txt's robots.json says of its crawler (data/ai-robots.json), and
 * where it is too vague to say it: then a line of data/overrides.json must (data/README.md).
 * Read by the crawler table (crawlers.ts), its tests and `npm run crawlers:update`
 * (scripts/update-crawlers.mjs), which runs this file on Node as it is: type imports only.
 */
import type { CrawlerCategory, CrawlerPurpose } from "../api/sites";

export interface SourceEntry {
	operator: string;
	function: string;
}

export interface Override {
	operator?: string;
	purpose?: CrawlerCategory;
	/** A common word ("Code", "Spider"): matched only as a client's own product (crawlers.ts). */
	standalone?: boolean;
}

/** The crawler a vendored name stands for: versions and case do not make another crawler. */
export const baseName = (name: string) => name.replace(/(?:\/| )\d+(?:\.\d+)*$/, "");

/** The override of a vendored name: its own line, else its base name's ("Claude-Web/1.0" → "Claude-Web"). */
export const overrideFor = (overrides: Record<string, Override>, name: string): Override | undefined => overrides[name] ?? overrides[baseName(name)];

/**
 * The operator the source names: a Markdown link's text, else the name its words start with
 * ("Querit that indexes…", "Twin, a platform that…", "netEstate"); null when they name none
 * ("Unclear at this time.", a bare URL, a sentence).
 */
function operatorOf(source: string): string | null {
	const link = /^\[([^\]]+)\]\(/.exec(source);
	if (link) return link[1];
	if (/^(unclear|unknown)\b/i.test(source) || /^https?:/i.test(source)) return null;
	const lead = source.split(/, | that | which | who | \(| - /, 1)[0].replace(/\.$/, "").trim();
	return lead !== "" && lead.length <= 40 && !/^(a|an|the|this|it|we)\b/i.test(lead) ? lead : null;
}

/** Words of the source's `function` that say a purpose, whole words only ("research" is no search). */
const PURPOSE_WORDS: ReadonlyArray<[CrawlerPurpose, RegExp]> = [
	["agent", /\bagents?\b|\btakes? actions?\b/i],
	["user_fetch", /\bassistants?\b|\buser[- ]initiated\b|\buser (?:queries|prompts|requests)\b|\banswers? for\b/i],
	["archiver", /\bopen crawl dataset\b|\barchiv/i],
	["search", /\bsearch\b/i],
	["training", /\btrain|\bLLMs?\b|\bmachine learning\b|\bdata ?sets?\b|\bscrap(?:e|es|ed|er|ers|ing)\b|\bmodels?\b/i],
];

/**
 * The purpose the source's free-text `function` says, or null when it is vague: it says it does
 * not know ("Unclear at this time.", "Undocumented AI Agents"), names no purpose ("AI Data
 * Providers": a search API or training data?) or names several ("AI search, assistants and agents").
 */
function purposeOf(text: string): CrawlerPurpose | null {
	if (/unclear|undocumented|unknown/i.test(text)) return null;
	const said = PURPOSE_WORDS.filter(([, words]) => words.test(text));
	return said.length === 1 ? said[0][0] : null;
}

/** What an entry's own text says: its operator and purpose, each null where the text is vague. */
export const readSource = (entry: SourceEntry) => ({ operator: operatorOf(entry.operator), purpose: purposeOf(entry.function) });

/**
 * The entries whose text is vague about what no override names, with what is missing: each needs
 * a line in overrides.json (the crawler table's tests fail, and the update script lists them).
 */
export function missingOverrides(source: Record<string, SourceEntry>, overrides: Record<string, Override>) {
	const missing: Array<{ name: string; needs: Array<"operator" | "purpose"> }> = [];
	for (const [name, entry] of Object.entries(source)) {
		const override = overrideFor(overrides, name) ?? {};
		const read = readSource(entry);
		const needs = (["operator", "purpose"] as const).filter((field) => read[field] === null && override[field] === undefined);
		if (needs.length > 0) missing.push({ name, needs: [...needs] });
	}
	return missing;
}
