// What a device says about itself (its id, display name and platform),
// checked the same way in the exchange body and in the hello message.
import { HttpError } from "./answers.js";

const DEVICE_ID_MAX = 200;
const NAME_MAX = 100;
const PLATFORM_MAX = 64;
const PLATFORMS = Object.freeze(["iOS", "Android", "Web", "Desktop", "Unknown platform"]);
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * One of the five platform names; anything else is "Unknown platform".
 * @param {unknown} value
 */
export function normalizePlatform(value) {
	if (typeof value !== "string") return "Unknown platform";
	const v = value.trim().toLowerCase();
	return PLATFORMS.find((p) => p.toLowerCase() === v) ?? "Unknown platform";
}

/**
 * Control characters and bidirectional formatting characters (which can make
 * a name display as another) are removed from names shown in the page and logs.
 * @param {string} s
 */
function stripControl(s) {
	// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
	return s.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, "");
}

/**
 * An optional display name: at most 100 characters once control characters are removed.
 * @param {unknown} value
 * @returns {string | undefined}
 */
export function optionalName(value) {
	if (value === undefined || value === null) return undefined;
	if (typeof value !== "string") throw new HttpError(400, "name must be a string");
	// A lone surrogate (half an emoji) becomes U+FFFD, so the stored name is the name shown.
	const name = stripControl(value.toWellFormed()).trim();
	if ([...name].length > NAME_MAX) throw new HttpError(400, `name must be at most ${NAME_MAX} characters`);
	return name || undefined;
}

/**
 * An optional platform, normalized to one of the five names.
 * @param {unknown} value
 * @returns {string | undefined}
 */
export function optionalPlatform(value) {
	if (value === undefined || value === null) return undefined;
	if (typeof value !== "string") throw new HttpError(400, "platform must be a string");
	// Characters counted as the name's and the deviceId's are: an emoji is one.
	if ([...value].length > PLATFORM_MAX) throw new HttpError(400, `platform must be at most ${PLATFORM_MAX} characters`);
	return normalizePlatform(value);
}

/**
 * An optional deviceId to pair as. The owner revokes a device by naming it in
 * a URL path, so an id no path can carry (lone surrogates, "." and "..") could
 * never be revoked and is refused.
 * @param {unknown} value
 * @returns {string | undefined}
 */
export function optionalDeviceId(value) {
	if (value === undefined || value === null) return undefined;
	if (typeof value !== "string") throw new HttpError(400, "deviceId must be a string");
	const length = [...value].length;
	if (length === 0 || length > DEVICE_ID_MAX) throw new HttpError(400, `deviceId must be 1 to ${DEVICE_ID_MAX} characters`);
	// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
	if (/[\u0000-\u001f\u007f]/.test(value)) throw new HttpError(400, "deviceId must not contain control characters");
	if (LONE_SURROGATE.test(value)) throw new HttpError(400, "deviceId must be valid Unicode (no lone surrogates)");
	if (value === "." || value === "..") throw new HttpError(400, 'deviceId must not be "." or ".."');
	return value;
}
