/**
 * One parsed source map (with @jridgewell/trace-mapping): where a minified position was written,
 * and the original lines around it from the map's `sourcesContent`.
 */
import { AnyMap, originalPositionFor, sourceContentFor, type TraceMap } from "@jridgewell/trace-mapping";
import { cutText } from "../text";

export interface OriginalPosition {
	/** The source as the map names it, resolved against its `sourceRoot`. */
	source: string;
	/** 1-based, as stack frames count them. */
	line: number;
	column: number;
	/** The original name of the identifier at the position, when the map records one. */
	name: string | null;
}

export interface Context {
	pre: string[];
	line: string;
	post: string[];
}

export class SourceMap {
	readonly #map: TraceMap;
	/** Each source's lines, split on first use. */
	readonly #lines = new Map<string, string[] | null>();

	/** Throws an Error saying what is wrong when `text` is not a source map trace-mapping can read. */
	constructor(text: string) {
		this.#map = new AnyMap(text);
	}

	/** The original position of 1-based `line` and `column`; null where the map says nothing. */
	originalPosition(line: number, column: number): OriginalPosition | null {
		const found = originalPositionFor(this.#map, { line, column: Math.max(0, column - 1) });
		if (found.source === null) return null;
		return { source: found.source, line: found.line, column: found.column + 1, name: found.name };
	}

	#linesOf(source: string): string[] | null {
		if (!this.#lines.has(source)) this.#lines.set(source, sourceContentFor(this.#map, source)?.split(/\r\n|\r|\n/) ?? null);
		return this.#lines.get(source) ?? null;
	}

	/** `lines` lines of original source before and after 1-based `line`, each cut to `maxChars`; null without `sourcesContent`. */
	context(source: string, line: number, lines: number, maxChars: number): Context | null {
		const all = this.#linesOf(source);
		if (!all || line < 1 || line > all.length) return null;
		const cut = (text: string) => cutText(text, maxChars);
		return {
			pre: all.slice(Math.max(0, line - 1 - lines), line - 1).map(cut),
			line: cut(all[line - 1]),
			post: all.slice(line, line + lines).map(cut),
		};
	}

	/** The identifier that starts at 1-based `line` and `column` of the original source, if one does. */
	identifierAt(source: string, line: number, column: number): string | null {
		const text = this.#linesOf(source)?.[line - 1]?.slice(column - 1);
		return text ? (/^[\p{ID_Start}$_][\p{ID_Continue}$\u200c\u200d]*/u.exec(text)?.[0] ?? null) : null;
	}
}

/**
 * A source as a person reads it: without a bundler's scheme and namespace (`webpack://app/`) and
 * without the `./` and `../` that lead from the map to it.
 */
export function displayPath(source: string): string {
	return source.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*\//i, "").replace(/^(?:\.{1,2}\/)+/, "") || source;
}

/** Code of a dependency: under node_modules. */
export const isDependencyPath = (source: string) => /(?:^|[/\\])node_modules[/\\]/.test(source);
