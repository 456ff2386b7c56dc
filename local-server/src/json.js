// Parsed JSON is `unknown` until checked: this is the check that it is an object.

/**
 * A JSON object: not null, not an array.
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
export function isObject(value) {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Text without the byte order mark some editors write first, which npm and
 * Node skip in a package.json and JSON.parse does not.
 * @param {string} text
 */
export function withoutBom(text) {
	return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
