/**
 * A minified script, read for one thing: where the function a frame ran in is declared. A stack
 * names the function as minified (`o`, `Object.e`, `new o`); its declaration (`function o(`,
 * `o=()=>`, `o:function(`, `o=class{`) is the nearest one before the frame's position, and the
 * source map says what that declaration's name was in the original code.
 */
import { normalizeFunctionName } from "../logs/grouping/frames";

/** How far before a frame its function's declaration is looked for. */
const SEARCH_CHARS = 128 * 1024;

const escapeRegExp = (text: string) => text.replace(/[$()*+.?[\\\]^{|}]/g, "\\$&");

/** The forms a named function takes in minified code, with the name captured. */
function declarationPattern(name: string): RegExp {
	const id = escapeRegExp(name);
	// Not preceded by an identifier character or `.` (a property access is no declaration of its own).
	const start = "(?<![\\w$.])";
	return new RegExp(
		[
			`function\\s*\\*?\\s*(${id})\\s*\\(`,
			`class\\s+(${id})\\b`,
			`${start}(${id})\\s*[:=]\\s*(?:async\\s*)?(?:function\\b[^(]*\\(|\\([^()]*\\)\\s*=>|[\\w$]+\\s*=>)`,
			// A class bound to a name (`var o=class{`, as esbuild writes one): its frames say `new o`.
			`${start}(${id})\\s*=\\s*class\\b`,
			`${start}(?:async\\s+|static\\s+|get\\s+|set\\s+|\\*\\s*)*(${id})\\s*\\([^()]*\\)\\s*\\{`,
		].join("|"),
		"gd",
	);
}

export class MinifiedScript {
	readonly #text: string;
	#lineStarts: number[] | undefined;

	constructor(text: string) {
		this.#text = text;
	}

	#starts(): number[] {
		if (!this.#lineStarts) {
			const starts = [0];
			for (let i = this.#text.indexOf("\n"); i !== -1; i = this.#text.indexOf("\n", i + 1)) starts.push(i + 1);
			this.#lineStarts = starts;
		}
		return this.#lineStarts;
	}

	/**
	 * Where the function named `functionName` (as a stack shows it) is declared, nearest before
	 * 1-based `line` and `column`: the 1-based position of its name. Null for an anonymous function
	 * or when no declaration is found.
	 */
	declarationOf(functionName: string | undefined, line: number, column: number): { line: number; column: number } | null {
		const name = normalizeFunctionName(functionName);
		const starts = this.#starts();
		if (!name || line < 1 || line > starts.length) return null;
		const offset = Math.min(this.#text.length, starts[line - 1] + column - 1);
		const from = Math.max(0, offset - SEARCH_CHARS);
		let found = -1;
		for (const match of this.#text.slice(from, offset).matchAll(declarationPattern(name))) {
			// The one alternative that matched captured the name; its indices say where it is.
			const name = match.indices?.slice(1).find((span) => span !== undefined);
			if (name) found = from + name[0];
		}
		if (found < 0) return null;
		// The line holding `found`: the last start at or before it.
		let low = 0;
		let high = starts.length - 1;
		while (low < high) {
			const mid = (low + high + 1) >> 1;
			if (starts[mid] <= found) low = mid;
			else high = mid - 1;
		}
		return { line: low + 1, column: found - starts[low] + 1 };
	}
}
