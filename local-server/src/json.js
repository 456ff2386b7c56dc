// Parsed JSON is `unknown` until checked: this is the check that it is an object.

/**
 * A JSON object: not null, not an array.
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
export function isObject(value) {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}
