// Which characters of a source file are code: not in a comment, a string, a
// template literal's text or a regular expression. A call or an import that
// only a string holds (a snippet shown to users, a docs page) starts nothing.
// A lexer rather than a parser: the files are JavaScript, TypeScript, JSX and
// the script blocks of HTML, Vue, Svelte and Astro, which no one small parser
// reads, and a slash that starts a regular expression is told from a division
// by the token before it, as editors' highlighters tell it.

// Escaped: the characters themselves read as a comment to some JavaScript tools (Annex B).
const HTML_COMMENT_OPEN = "\u003c!--";
const HTML_COMMENT_CLOSE = "--\u003e";

/** Files whose code is in `<script>` blocks (and Astro's front matter), the rest being markup. */
const MARKUP_FILE = /\.(?:html|vue|svelte|astro)$/i;

const WORD_CHAR = /[\w$]/;
const WORD = /[\w$]+/y;
/** Words after which a "/" starts a regular expression, not a division. */
const BEFORE_EXPRESSION = new Set(["return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case", "do", "else", "yield", "await"]);

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
	for (const [start, end] of regions) lex(source, start, end, code, comments);
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
 * The text with its comments (line, block and HTML comments) blanked out, strings left as they are.
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

/**
 * Marks the code of `source` from `start` to `end` in `code`, and records its comments.
 * @param {string} s @param {number} start @param {number} end @param {Uint8Array} code @param {[number, number][]} comments
 */
function lex(s, start, end, code, comments) {
	/** Bracket depth of the code around each open `${` of a template literal. @type {number[]} */
	const templates = [];
	let depth = 0;
	let inTemplate = false;
	/** The last token of code: a word, a punctuator, or "value" (a literal), for "/" after it. */
	let previous = "";
	let i = start;
	while (i < end) {
		const c = s[i];
		if (inTemplate) {
			if (c === "\\") i += 2;
			else if (c === "`") {
				inTemplate = false;
				previous = "value";
				i++;
			} else if (c === "$" && s[i + 1] === "{") {
				templates.push(depth);
				depth = 0;
				inTemplate = false;
				previous = "{";
				i += 2;
			} else i++;
			continue;
		}
		const comment = s.startsWith("//", i) ? "\n" : s.startsWith("/*", i) ? "*/" : s.startsWith(HTML_COMMENT_OPEN, i) ? HTML_COMMENT_CLOSE : null;
		if (comment) {
			const close = s.indexOf(comment, i + 2);
			// A line comment keeps its newline; a block comment ends after its closing mark.
			const stop = close < 0 || close > end ? end : comment === "\n" ? close : close + comment.length;
			comments.push([i, stop]);
			i = stop;
			continue;
		}
		code[i] = 1;
		if (c === '"' || c === "'") {
			i = endOfString(s, i + 1, end, c);
			previous = "value";
		} else if (c === "`") {
			inTemplate = true;
			i++;
		} else if (c === "/" && startsExpression(previous)) {
			i = endOfRegExp(s, i + 1, end);
			previous = "value";
		} else if (WORD_CHAR.test(c)) {
			WORD.lastIndex = i;
			const word = WORD.exec(s)?.[0] ?? c;
			const stop = Math.min(end, i + word.length);
			code.fill(1, i, stop);
			i = stop;
			previous = word;
		} else {
			if (c === "(" || c === "[" || c === "{") depth++;
			else if (c === "}" && depth === 0 && templates.length > 0) {
				// The end of a `${…}`: back in the template literal's text.
				depth = /** @type {number} */ (templates.pop());
				inTemplate = true;
			} else if (c === ")" || c === "]" || c === "}") depth--;
			if (!/\s/.test(c)) previous = c;
			i++;
		}
	}
}

/**
 * Whether a "/" after `previous` starts a regular expression: after an operator, an opening
 * bracket or a keyword such as return; not after a name, a literal or a closing bracket.
 * @param {string} previous
 */
function startsExpression(previous) {
	if (previous === "" || BEFORE_EXPRESSION.has(previous)) return true;
	if (previous === "value" || previous === ")" || previous === "]" || previous === "}") return false;
	return !/^[\w$]/.test(previous);
}

/**
 * Just after the string that opened before `i` with `quote`; a line break ends an unclosed one.
 * @param {string} s @param {number} i @param {number} end @param {string} quote
 */
function endOfString(s, i, end, quote) {
	while (i < end) {
		const c = s[i];
		if (c === "\\") i += 2;
		else if (c === quote) return i + 1;
		else if (c === "\n") return i;
		else i++;
	}
	return end;
}

/**
 * Just after the regular expression that opened before `i` (its flags included); a "/" in a
 * character class does not end it, a line break does.
 * @param {string} s @param {number} i @param {number} end
 */
function endOfRegExp(s, i, end) {
	let inClass = false;
	while (i < end) {
		const c = s[i];
		if (c === "\\") {
			i += 2;
			continue;
		}
		if (c === "\n") return i;
		i++;
		if (c === "[") inClass = true;
		else if (c === "]") inClass = false;
		else if (c === "/" && !inClass) {
			while (i < end && /[a-z]/i.test(s[i])) i++;
			return i;
		}
	}
	return end;
}
