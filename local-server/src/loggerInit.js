// Where a package starts the logger: calls of `init` from @svcapp/logger (or
// the browser script's `svcLogger.init`) in its source, with what they pass
// as `key` and `endpoint`: a literal, an environment variable
// (`process.env.X`, `import.meta.env.X`, looked up in the .env files), or an
// expression this reading does not follow. A reading of the text, not a
// parser: it finds the usual ways of importing and calling the logger, in the
// file's code only (sourceCode.js: not in its comments and strings).
import { parseEnv } from "node:util";
import { isObject } from "./json.js";
import { LOGGER_PACKAGE } from "./packageManagers.js";
import { readSource, withoutComments } from "./sourceCode.js";

/**
 * @typedef {{kind: "literal", value: string} | {kind: "env", name: string, fallback?: string} | {kind: "binding", name: string} | {kind: "expression"}} OptionValue
 * @typedef {{key: OptionValue | null, endpoint: OptionValue | null, script: boolean}} InitCall `script`: the browser script's `svcLogger.init`
 */

const IDENT = "[A-Za-z_$][\\w$]*";
const FROM_LOGGER = `\\s*["']${LOGGER_PACKAGE.replace("/", "\\/")}["']`;
const LOADED = `(?:require|(?:await\\s+)?import)\\s*\\(${FROM_LOGGER}\\s*\\)`;
/** A string that is the logger's name (or a path in it), as an import or export names it. */
const SPECIFIER = new RegExp(`(["'\`])${LOGGER_PACKAGE.replace("/", "\\/")}(?:\\/[^"'\`\\s]*)?\\1`, "g");
/** The most of a call's arguments that is read. */
const ARGS_MAX = 4000;

/** Source files that may start the logger. */
const SOURCE_FILE = /\.(?:[cm]?[jt]sx?|html|vue|svelte|astro)$/i;
/** Environment files, but not the examples committed beside them; and a Worker's local secrets, in the same format. */
const ENV_FILE = /^(?:\.env(?:\.(?!example$|sample$|template$)[\w.-]+)?|\.dev\.vars(?:\.[\w-]+)?)$/i;
/** A Cloudflare Worker's configuration (TOML, or JSON with comments), whose vars are the Worker's plain-text bindings. */
const WRANGLER_CONFIG = /^wrangler\.(?:toml|jsonc?)$/;

/** @param {string} name */
export const isWranglerConfig = (name) => WRANGLER_CONFIG.test(name);

/** @param {string} name */
export const isSourceFile = (name) => SOURCE_FILE.test(name);
/** @param {string} name */
export const isEnvFile = (name) => ENV_FILE.test(name);

/**
 * The names `init` has in a file: "x.init" for a namespace or module object, or a bare name.
 * Imports that are not code (in a string) name nothing.
 * @param {string} text @param {(index: number) => boolean} inCode
 */
function initNames(text, inCode) {
	/** @type {Set<string>} */
	const names = new Set();
	/** @param {string} list the inside of `{ ... }` */
	const fromSpecifiers = (list) => {
		for (const spec of list.split(",")) {
			const m = new RegExp(`^\\s*init\\s*(?:(?:as|:)\\s*(${IDENT}))?\\s*$`).exec(spec);
			if (m) names.add(m[1] ?? "init");
		}
	};
	/** @param {string} pattern */
	const importsOf = (pattern) => [...text.matchAll(new RegExp(pattern, "g"))].filter((m) => inCode(m.index));
	for (const m of importsOf(`import\\s+(?:\\*\\s*as\\s+)?(${IDENT})\\s*(?:,\\s*\\{([^}]*)\\}\\s*)?from${FROM_LOGGER}`)) {
		names.add(`${m[1]}.init`);
		if (m[2]) fromSpecifiers(m[2]);
	}
	for (const m of importsOf(`import\\s*\\{([^}]*)\\}\\s*from${FROM_LOGGER}`)) fromSpecifiers(m[1]);
	for (const m of importsOf(`(?:const|let|var)\\s+(${IDENT})\\s*=\\s*${LOADED}`)) names.add(`${m[1]}.init`);
	for (const m of importsOf(`(?:const|let|var)\\s*\\{([^}]*)\\}\\s*=\\s*${LOADED}`)) fromSpecifiers(m[1]);
	if (importsOf("\\bsvcLogger\\b").length > 0) names.add("svcLogger.init");
	return names;
}

/**
 * Reads `text` from `start` to `end` as code, strings skipped: `visit` sees each character
 * outside them with the depth of brackets around it; the first position it answers true for,
 * else -1.
 * @param {string} text @param {number} start @param {number} end
 * @param {(i: number, c: string, depth: number) => boolean} visit
 */
function findInCode(text, start, end, visit) {
	let depth = 0;
	/** @type {string | null} */
	let quote = null;
	for (let i = start; i < end; i++) {
		const c = text[i];
		if (quote) {
			if (c === "\\") i++;
			else if (c === quote) quote = null;
		} else if (c === '"' || c === "'" || c === "`") quote = c;
		else if (visit(i, c, depth)) return i;
		else if (c === "(" || c === "{" || c === "[") depth++;
		else if (c === ")" || c === "}" || c === "]") depth--;
	}
	return -1;
}

/**
 * The text of a call's arguments from just after its "(", up to the matching
 * ")" (strings and nesting skipped), at most ARGS_MAX characters.
 * @param {string} text @param {number} start
 */
function callArguments(text, start) {
	const end = Math.min(text.length, start + ARGS_MAX);
	const close = findInCode(text, start, end, (_, c, depth) => depth === 0 && (c === ")" || c === "}" || c === "]"));
	return text.slice(start, close < 0 ? end : close);
}

/**
 * The string literal `text` starts with, its text as written; null for none, or for a template
 * literal with a `${…}` in it (an expression).
 * @param {string} text
 */
function leadingLiteral(text) {
	const literal = /^(["'`])((?:\\.|(?!\1)[^\\])*)\1/.exec(text);
	return literal && !(literal[1] === "`" && literal[2].includes("${")) ? literal[2] : null;
}

/**
 * Whether an options object spreads another one into itself (`{ ...config, release }`); a
 * spread inside one of its values (`{ tags: { ...t } }`) does not count. Strings are skipped.
 * @param {string} args the call's arguments, starting with its "{"
 */
function spreadsAnObject(args) {
	return findInCode(args, 0, args.length, (i, _, depth) => depth === 1 && args.startsWith("...", i)) >= 0;
}

/**
 * What an options object passes for one option.
 * @param {string} args the call's arguments @param {"key" | "endpoint"} option
 * @returns {OptionValue | null} null when the option is not there
 */
function optionValue(args, option) {
	if (!args.trim().startsWith("{")) return args.trim() ? { kind: "expression" } : null;
	const at = new RegExp(`(?:^|[{,\\s])["']?${option}["']?\\s*(:|,|\\}|\\()`).exec(args);
	// `init({ ...config })`: the spread object may hold the option, and this reading does not follow it.
	if (!at) return spreadsAnObject(args) ? { kind: "expression" } : null;
	if (at[1] !== ":") return { kind: "expression" }; // shorthand `key,` or a method
	const value = args.slice(at.index + at[0].length).trimStart();
	const literal = leadingLiteral(value);
	if (literal !== null) return { kind: "literal", value: literal };
	const env = new RegExp(`^(?:process\\.env|import\\.meta\\.env)(?:\\.(${IDENT})|\\[\\s*["'](${IDENT})["']\\s*\\])`).exec(value);
	if (env) {
		const name = env[1] ?? env[2];
		// `process.env.SVC_URL ?? "https://…"`: the literal stands in when the variable is not set.
		const or = /^\s*(?:\?\?|\|\|)\s*/.exec(value.slice(env[0].length));
		const fallback = or ? leadingLiteral(value.slice(env[0].length + or[0].length)) : null;
		return fallback === null ? { kind: "env", name } : { kind: "env", name, fallback };
	}
	// A Worker's binding: `env.SVC_KEY` in its fetch handler, `c.env.SVC_KEY` in Hono.
	const binding = new RegExp(`^(?:${IDENT}\\s*\\.\\s*)?env\\.(${IDENT})(?![\\w$.(])`).exec(value);
	if (binding) return { kind: "binding", name: binding[1] };
	return { kind: "expression" };
}

/**
 * The logger's init calls in one source file; null when the file does not
 * use the logger at all, an empty list when it imports it without calling init.
 * Calls and imports in comments and strings (a snippet shown to users) do not count.
 * @param {string} source @param {string} [fileName] markup files (HTML, Vue...) are read in their scripts
 * @returns {InitCall[] | null}
 */
export function findInitCalls(source, fileName) {
	if (!source.includes(LOGGER_PACKAGE) && !source.includes("svcLogger")) return null;
	const { text, inCode } = readSource(source, fileName);
	const names = initNames(text, inCode);
	/** @type {InitCall[]} */
	const calls = [];
	for (const name of names) {
		const callee = name.split(".").join("\\s*\\.\\s*");
		// A bare `init(` must not be some other object's `x.init(`.
		const before = name.includes(".") ? "(?<![\\w$])" : "(?<![\\w$.])";
		for (const m of text.matchAll(new RegExp(`${before}${callee}\\s*\\(`, "g"))) {
			if (!inCode(m.index)) continue;
			const args = callArguments(text, m.index + m[0].length);
			calls.push({ key: optionValue(args, "key"), endpoint: optionValue(args, "endpoint"), script: name === "svcLogger.init" });
		}
	}
	// `import "@svcapp/logger"` or `export * from "@svcapp/logger"`: the package named by a string of the code itself.
	const named = [...text.matchAll(SPECIFIER)].some((m) => inCode(m.index));
	return names.size > 0 || named ? calls : null;
}

/**
 * The variables an environment file sets.
 * @param {string} text
 * @returns {Record<string, string>}
 */
export function readEnvFile(text) {
	/** @type {Record<string, string>} */
	const vars = {};
	for (const [name, value] of Object.entries(parseEnv(text))) if (value !== undefined) vars[name] = value;
	return vars;
}

/**
 * The plain-text variables of a Worker's configuration: its `vars` and each
 * environment's (`[env.<name>.vars]` in TOML, `env.<name>.vars` in JSON).
 * @param {string} name the file's name @param {string} text
 * @returns {Record<string, string>}
 */
export function readWranglerVars(name, text) {
	/** @type {Record<string, string>} */
	const vars = {};
	if (!name.endsWith(".toml")) {
		/** @type {unknown} */
		let config;
		try {
			// JSON with comments and trailing commas, as wrangler reads it.
			config = JSON.parse(withoutComments(text).replace(/,(\s*[}\]])/g, "$1"));
		} catch {
			return vars;
		}
		if (!isObject(config)) return vars;
		const envs = isObject(config.env) ? Object.values(config.env) : [];
		for (const table of [config.vars, ...envs.map((e) => (isObject(e) ? e.vars : undefined))]) {
			if (!isObject(table)) continue;
			for (const [key, value] of Object.entries(table)) if (typeof value === "string" && !(key in vars)) vars[key] = value;
		}
		return vars;
	}
	let inVars = false;
	for (const line of text.split(/\r?\n/)) {
		const table = /^\s*\[\s*([^\]]+?)\s*\]\s*(?:#.*)?$/.exec(line);
		if (table) inVars = /^(?:env\.[\w-]+\.)?vars$/.test(table[1]);
		else if (inVars) {
			const entry = /^\s*([A-Za-z_][\w]*)\s*=\s*(?:"((?:\\.|[^"\\])*)"|'([^']*)')/.exec(line);
			if (entry && !(entry[1] in vars)) vars[entry[1]] = entry[2] ?? entry[3];
		}
	}
	return vars;
}
