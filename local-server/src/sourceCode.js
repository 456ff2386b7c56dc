// Which characters of a source file are code: not in a comment, a string, a
// template literal's text or a regular expression. A call or an import that
// only a string holds (a snippet shown to users, a docs page) starts nothing.
// js-tokens reads the tokens: the files are JavaScript, TypeScript, JSX and
// the script blocks of HTML, Vue, Svelte and Astro, which a tokenizer that
// never fails reads well enough (a slash that starts a regular expression is
// told from a division by the token before it), where no one parser reads them all.
import jsTokens from "js-tokens";

/** Files whose code is in `<script>` blocks (and Astro's front matter), the rest being markup. */
const MARKUP_FILE = /\.(?:html|vue|svelte|astro)$/i;
/** TypeScript without JSX: read as JSX, a type assertion (`<Config>value`) would start an element. */
const TYPESCRIPT_FILE = /\.[cm]?ts$/i;

/** Tokens that hold data: only their first character (a quote, a backtick, a slash, a brace) is code. */
const LITERALS = new Set(["StringLiteral", "NoSubstitutionTemplate", "TemplateHead", "TemplateMiddle", "TemplateTail", "RegularExpressionLiteral", "JSXString", "JSXText"]);
const COMMENTS = new Set(["SingleLineComment", "MultiLineComment", "HashbangComment"]);

/**
 * @typedef {object} SourceCode
 * @property {string} text the source with its comments blanked (spaces, newlines kept), so that
 *   every position stays where it was and a commented-out call is not read
 * @property {(index: number) => boolean} inCode whether the character at `index` is code (the
 *   opening quote of a string is; what it holds is not)
 */

/**
 * Reads a source file as code.
 * @param {string} source @param {string} [name] the file's name: markup files are code only in their scripts
 * @returns {SourceCode}
 */
export function readSource(source, name = "") {
	const code = new Uint8Array(source.length);
	/** @type {[number, number][]} */
	const comments = [];
	const regions = MARKUP_FILE.test(name) ? scriptRegions(source) : [[0, source.length]];
	const jsx = !TYPESCRIPT_FILE.test(name);
	for (const [start, end] of regions) {
		let at = start;
		for (const token of jsTokens(source.slice(start, end), { jsx })) {
			const from = at;
			at += token.value.length;
			if (COMMENTS.has(token.type)) comments.push([from, at]);
			else if (LITERALS.has(token.type)) code[from] = 1;
			else code.fill(1, from, at);
		}
	}
	let text = "";
	let from = 0;
	for (const [start, end] of comments) {
		text += source.slice(from, start) + source.slice(start, end).replace(/[^\n]/g, " ");
		from = end;
	}
	text += source.slice(from);
	return { text, inCode: (index) => code[index] === 1 };
}

/**
 * The text with its comments (line and block comments) blanked out, strings left as they are.
 * @param {string} source
 */
export function withoutComments(source) {
	return readSource(source).text;
}

/**
 * Where the code of a markup file is: each `<script>` element's content, and Astro's front matter.
 * @param {string} source @returns {[number, number][]}
 */
function scriptRegions(source) {
	/** @type {[number, number][]} */
	const regions = [];
	const frontMatter = /^---\r?\n[\s\S]*?\n---/.exec(source);
	if (frontMatter) regions.push([3, frontMatter[0].length - 3]);
	for (const open of source.matchAll(/<script\b[^>]*>/gi)) {
		const start = open.index + open[0].length;
		const close = source.slice(start).search(/<\/script\s*>/i);
		regions.push([start, close < 0 ? source.length : start + close]);
	}
	return regions;
}
