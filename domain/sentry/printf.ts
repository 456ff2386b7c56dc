/**
 * A log template's `%` placeholders filled in with its values, as the language that sent it would
 * print them: what Sentry's `logentry {message, params}` carries when an SDK sends no `formatted`
 * text (sentry-python's logging integration; `Sentry.parameterize` in JavaScript). Python's
 * printf-style conversions with their flags, width and precision (`%-6s`, `%05.1f`, `%x`, `%r`,
 * `%(name)s`), and JavaScript's `%o`, `%O` and `%j`; a placeholder without a value, or one that
 * is not a conversion, stays as written.
 */
import { isObject } from "../logs/jsonFields";

const PLACEHOLDER = /%(?:\(([^)]*)\))?([#0 +-]*)(\d+|\*)?(?:\.(\d+|\*))?[hlL]?([diouxXeEfFgGcrsaoOj%])/g;

/** Python's repr of a string: single quotes unless it holds one and no double quote. */
function pythonRepr(text: string): string {
	const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
	return quote + text.replaceAll("\\", "\\\\").replaceAll(quote, `\\${quote}`).replaceAll("\n", "\\n") + quote;
}

/** How a value prints in Python: `str()` (`repr` for strings inside lists and dicts and for `%r`). */
function pythonText(value: unknown, repr: boolean): string {
	if (value === null || value === undefined) return "None";
	if (typeof value === "boolean") return value ? "True" : "False";
	if (typeof value === "string") return repr ? pythonRepr(value) : value;
	if (Array.isArray(value)) return `[${value.map((item) => pythonText(item, true)).join(", ")}]`;
	if (isObject(value)) return `{${Object.entries(value).map(([k, v]) => `${pythonRepr(k)}: ${pythonText(v, true)}`).join(", ")}}`;
	return String(value);
}

/** How a value prints in JavaScript's console formatting: strings as they are, the rest as JSON. */
function javaScriptText(value: unknown): string {
	return typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
}

/** `1.5e+5` as Python writes it: at least two exponent digits. */
const pythonExponent = (text: string) => text.replace(/e([+-])(\d)$/, "e$10$2");

function number(value: unknown): number | null {
	const n = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : typeof value === "boolean" ? Number(value) : Number.NaN;
	return Number.isFinite(n) ? n : null;
}

/** One conversion of one value; null when the value cannot take it (the placeholder then stays). */
function converted(value: unknown, conversion: string, flags: string, precision: number | undefined, python: boolean): string | null {
	const n = number(value);
	const signed = (digits: string, negative: boolean) => (negative ? "-" : flags.includes("+") ? "+" : flags.includes(" ") ? " " : "") + digits;
	switch (conversion) {
		case "s":
			return python ? pythonText(value, false) : javaScriptText(value);
		case "r":
		case "a":
			return pythonText(value, true);
		case "o":
			if (!python) return javaScriptText(value);
			return n === null ? null : signed((flags.includes("#") ? "0o" : "") + Math.abs(Math.trunc(n)).toString(8), n < 0);
		case "O":
		case "j":
			return JSON.stringify(value) ?? String(value);
		case "d":
		case "i":
		case "u":
			return n === null ? null : signed(String(Math.abs(Math.trunc(n))), n < 0);
		case "x":
		case "X": {
			if (n === null) return null;
			const hex = (flags.includes("#") ? "0x" : "") + Math.abs(Math.trunc(n)).toString(16);
			return signed(conversion === "X" ? hex.toUpperCase() : hex, n < 0);
		}
		case "f":
		case "F":
			return n === null ? null : signed(Math.abs(n).toFixed(precision ?? 6), n < 0);
		case "e":
		case "E": {
			if (n === null) return null;
			const text = pythonExponent(Math.abs(n).toExponential(precision ?? 6));
			return signed(conversion === "E" ? text.toUpperCase() : text, n < 0);
		}
		case "g":
		case "G": {
			if (n === null) return null;
			// Significant digits, trailing zeros dropped (without the # flag).
			let text = Math.abs(n).toPrecision(Math.max(1, precision ?? 6));
			if (!flags.includes("#") && text.includes(".")) text = text.replace(/\.?0+(?=e|$)/, "");
			text = pythonExponent(text);
			return signed(conversion === "G" ? text.toUpperCase() : text, n < 0);
		}
		case "c":
			return typeof value === "string" && [...value].length === 1 ? value : n !== null && n >= 0 && n <= 0x10ffff ? String.fromCodePoint(Math.trunc(n)) : null;
		default:
			return null;
	}
}

function padded(text: string, flags: string, width: number | undefined, numeric: boolean): string {
	if (!width || text.length >= width) return text;
	if (flags.includes("-")) return text.padEnd(width);
	if (flags.includes("0") && numeric) {
		const sign = /^[+\- ]/.test(text) ? text[0] : "";
		return sign + text.slice(sign.length).padStart(width - sign.length, "0");
	}
	return text.padStart(width);
}

/**
 * `template` with its placeholders filled from `params`: a list takes them in order, an object by
 * `%(name)s`. `python` prints values as Python does (None, True, lists with spaces, quoted strings
 * in `%r`), else as JavaScript's console does.
 */
export function filledIn(template: string, params: unknown, python: boolean): string {
	const list = Array.isArray(params) ? params : null;
	const named = isObject(params) ? params : null;
	if (!list && !named) return template;
	let next = 0;
	const take = () => (list && next < list.length ? { value: list[next++] } : null);
	return template.replace(PLACEHOLDER, (token, name: string | undefined, flags: string, width: string | undefined, precision: string | undefined, conversion: string) => {
		if (conversion === "%") return token === "%%" ? "%" : token;
		// JavaScript's console formatting knows %s %d %i %f %o %O %j, with no flags, width or precision.
		if (!python && (flags || width || precision || !"sdifoOj".includes(conversion))) return token;
		// `*` takes the width or precision from the values, before the value itself.
		const fromValues = (part: string | undefined) => (part === "*" ? number(take()?.value) ?? undefined : part === undefined ? undefined : Number(part));
		const widthValue = fromValues(width);
		const precisionValue = fromValues(precision);
		const found = name !== undefined ? (named && Object.hasOwn(named, name) ? { value: named[name] } : null) : take();
		if (!found) return token;
		const text = converted(found.value, conversion, flags, precisionValue, python);
		return text === null ? token : padded(text, flags, widthValue, !"sraoOjc".includes(conversion) || (python && conversion === "o"));
	});
}
