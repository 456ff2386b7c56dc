// Random secrets, their SHA-256 digests and timing-safe comparison.
// Every secret the server hands out (bootstrap secrets, device credentials,
// WebSocket tickets, the local owner token) is 256 random bits in base64url;
// only the SHA-256 hex digest is ever kept.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * The longest secret a request may carry. Ours are 43 characters; anything
 * much longer is refused before it is hashed.
 */
export const SECRET_MAX = 512;

/** @returns {string} 256 random bits, base64url (43 characters) */
export function randomSecret() {
	return randomBytes(32).toString("base64url");
}

/** @param {string} value @returns {string} hex SHA-256 */
export function sha256(value) {
	return createHash("sha256").update(value, "utf8").digest("hex");
}

/**
 * Timing-safe equality of two hex digests of the same algorithm.
 * @param {string} a @param {string} b
 */
export function digestsEqual(a, b) {
	const x = Buffer.from(a, "hex");
	const y = Buffer.from(b, "hex");
	return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/**
 * Finds the entry whose digest matches `secret`, comparing every entry in
 * constant time (no early exit), so timing tells nothing about which entry
 * or how much of it matched.
 * @template T
 * @param {Iterable<T>} entries
 * @param {(entry: T) => string} digestOf
 * @param {string} secret
 * @returns {T | undefined}
 */
export function findBySecret(entries, digestOf, secret) {
	const digest = sha256(secret);
	/** @type {T | undefined} */
	let found;
	for (const entry of entries) {
		if (digestsEqual(digestOf(entry), digest) && found === undefined) found = entry;
	}
	return found;
}
