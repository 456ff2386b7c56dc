/**
 * Browsers word one JavaScript error differently ("Cannot read properties of undefined",
 * "undefined is not an object", "x is undefined"): these rules map each onto one wording, so the
 * error groups as one issue whatever browser threw it.
 */


interface Wording {
	/** Types the rule applies to; an event without a type always qualifies. */
	types: string[];
	patterns: RegExp[];
	canonical: (match: RegExpExecArray) => { type: string; value: string };
}

const TYPE_ERROR = ["TypeError", "Error"];

/** The same JavaScript error in Chrome (V8), Firefox (SpiderMonkey) and Safari (JavaScriptCore) words. */
const WORDINGS: Wording[] = [
	{
		types: TYPE_ERROR,
		patterns: [
			/^Cannot (?:read|set) propert(?:y|ies) (?:.* )?of (undefined|null)(?: \((?:reading|setting) .*\))?\.?$/, // Chrome
			/^can't access property .+?, .+ is (undefined|null)$/, // Firefox 72+
			/^can't access property .+ of (undefined|null)$/,
			/^(undefined|null) has no properties$/, // Firefox, older
			/^(undefined|null) is not an object(?: \(evaluating .*\))?\.?$/, // Safari
			/^Unable to get property .+ of (undefined) or null reference$/, // legacy Edge
		],
		canonical: (m) => ({ type: "TypeError", value: `Cannot access property of ${m[1]}` }),
	},
	{
		types: ["TypeError"],
		patterns: [/^.+ is (undefined|null)$/], // Firefox, older: `a.b is undefined`; only as a TypeError
		canonical: (m) => ({ type: "TypeError", value: `Cannot access property of ${m[1]}` }),
	},
	{
		types: TYPE_ERROR,
		patterns: [
			/^(.+?) is not a function\. \(In '.*', '.*' is .*\)$/, // Safari
			/^(?:undefined|null) is not a function \(evaluating '(.+?)(?:\(.*\))?'\)$/, // Safari, older
			/^(.+?) is not a function$/, // Chrome, Firefox
		],
		canonical: (m) => ({ type: "TypeError", value: `${m[1]} is not a function` }),
	},
	{
		types: ["ReferenceError", "Error"],
		patterns: [/^(\S+) is not defined$/, /^Can't find variable: (\S+)$/],
		canonical: (m) => ({ type: "ReferenceError", value: `${m[1]} is not defined` }),
	},
	{
		types: ["ReferenceError", "Error"],
		patterns: [
			/^Cannot access .+ before initialization$/,
			/^can't access lexical declaration .+ before initialization$/,
			/^Cannot access uninitialized variable\.?$/,
		],
		canonical: () => ({ type: "ReferenceError", value: "Cannot access variable before initialization" }),
	},
	{
		types: ["RangeError", "InternalError", "Error"],
		patterns: [/^Maximum call stack size exceeded\.?$/, /^too much recursion$/],
		canonical: () => ({ type: "RangeError", value: "Maximum call stack size exceeded" }),
	},
	{
		types: TYPE_ERROR,
		patterns: [
			/^Failed to fetch$/,
			/^NetworkError when attempting to fetch resource\.?$/,
			/^Load failed$/,
			/^The network connection was lost\.?$/,
			/^Network request failed$/,
		],
		canonical: () => ({ type: "TypeError", value: "Failed to fetch" }),
	},
	{
		types: ["SyntaxError", "Error"],
		patterns: [
			/^Unexpected token .* in JSON at position \d+$/,
			/^Unexpected end of JSON input$/,
			/^Unexpected (?:token|non-whitespace character) .*JSON.*$/,
			/^.* is not valid JSON$/,
			/^JSON\.parse: .+$/,
			/^JSON Parse error: .+$/,
		],
		canonical: () => ({ type: "SyntaxError", value: "Invalid JSON" }),
	},
	{
		types: TYPE_ERROR,
		patterns: [/^Cannot convert undefined or null to object$/, /^can't convert (?:undefined|null) to object$/],
		canonical: () => ({ type: "TypeError", value: "Cannot convert undefined or null to object" }),
	},
	{
		types: TYPE_ERROR,
		patterns: [/^Assignment to constant variable\.?$/, /^invalid assignment to const .+$/, /^Attempted to assign to readonly property\.?$/],
		canonical: () => ({ type: "TypeError", value: "Assignment to constant variable" }),
	},
	{
		// webpack's "Loading chunk N failed" has a built-in rule of its own (builtInRules.ts).
		types: ["TypeError", "Error"],
		patterns: [
			/^Failed to fetch dynamically imported module: .+$/,
			/^error loading dynamically imported module.*$/,
			/^Importing a module script failed\.?$/,
		],
		canonical: () => ({ type: "TypeError", value: "Failed to load a dynamically imported module" }),
	},
	{
		types: ["TypeError", "Error"],
		patterns: [/^(?:.+ )?is not iterable(?: .*)?$/, /^.+ is not iterable.*$/],
		canonical: () => ({ type: "TypeError", value: "Value is not iterable" }),
	},
	{
		types: ["Error"],
		patterns: [/^ResizeObserver loop (?:limit exceeded|completed with undelivered notifications)\.?$/],
		canonical: () => ({ type: "Error", value: "ResizeObserver loop limit exceeded" }),
	},
];

const WORDING_MAX = 1_000;

/** One wording per JavaScript error, whichever browser threw it. */
export function canonicalError(type: string | null, value: string | null): { type: string | null; value: string | null } {
	// Engines word these errors in a line; longer values are something else, and skipping them
	// keeps the patterns' backtracking bounded.
	if (value === null || value.length > WORDING_MAX) return { type, value };
	const text = value.trim();
	for (const rule of WORDINGS) {
		if (type !== null && !rule.types.includes(type)) continue;
		for (const pattern of rule.patterns) {
			const match = pattern.exec(text);
			if (match) return rule.canonical(match);
		}
	}
	return { type, value };
}
