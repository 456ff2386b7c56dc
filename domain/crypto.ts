/** Secrets: random generation, hashing for storage, timing-safe comparison, password hashing. */

const encoder = new TextEncoder();

export function base64url(bytes: Uint8Array): string {
	let binary = "";
	for (const byte of bytes) binary += String.fromCharCode(byte);
	return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** Base-62 digits of a 256-bit number: 62^43 > 2^256, so 43 digits hold every value. */
export const SECRET_DIGITS = 43;

/** What a secret of this service starts with: a project key, a session token. */
export const SECRET_PREFIXES = { projectKey: "svc_", sessionToken: "svcs_" } as const;

/**
 * 256 random bits as 43 letters and digits, with an optional prefix that says what the secret is
 * for. No `-`: Sentry SDKs refuse a DSN whose key holds anything but letters, digits and `_`.
 */
export function randomSecret(prefix = ""): string {
	let n = 0n;
	for (const byte of crypto.getRandomValues(new Uint8Array(32))) n = (n << 8n) | BigInt(byte);
	let digits = "";
	for (let i = 0; i < SECRET_DIGITS; i++) {
		digits = BASE62[Number(n % 62n)] + digits;
		n /= 62n;
	}
	return prefix + digits;
}

const HEX_BYTES = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

export async function sha256Hex(value: string): Promise<string> {
	const digest = await crypto.subtle.digest("SHA-256", encoder.encode(value));
	let hex = "";
	for (const byte of new Uint8Array(digest)) hex += HEX_BYTES[byte];
	return hex;
}

/**
 * Two hashes of the same kind (hex digests, so their length says nothing) compared with the
 * runtime's constant-time comparison, synchronously: for callers that must not await.
 */
export function sameDigest(a: string, b: string): boolean {
	const [ba, bb] = [encoder.encode(a), encoder.encode(b)];
	return ba.byteLength === bb.byteLength && crypto.subtle.timingSafeEqual(ba, bb);
}

/** Compares two strings without leaking where they differ; hashing first equalizes lengths. */
export async function timingSafeEqualStrings(a: string, b: string): Promise<boolean> {
	const [ha, hb] = await Promise.all([
		crypto.subtle.digest("SHA-256", encoder.encode(a)),
		crypto.subtle.digest("SHA-256", encoder.encode(b)),
	]);
	return crypto.subtle.timingSafeEqual(ha, hb);
}

// Workers cap PBKDF2 at 100,000 iterations; the count is stored with each hash so it can grow.
const PBKDF2_ITERATIONS = 100_000;

async function pbkdf2(password: string, salt: Uint8Array, iterations: number): Promise<ArrayBuffer> {
	const key = await crypto.subtle.importKey("raw", encoder.encode(password), "PBKDF2", false, ["deriveBits"]);
	return crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, 256);
}

const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
const toBase64 = (buffer: ArrayBuffer | Uint8Array) => btoa(String.fromCharCode(...new Uint8Array(buffer)));

export async function hashPassword(password: string): Promise<string> {
	const salt = crypto.getRandomValues(new Uint8Array(16));
	const hash = await pbkdf2(password, salt, PBKDF2_ITERATIONS);
	return `pbkdf2-sha256$${PBKDF2_ITERATIONS}$${toBase64(salt)}$${toBase64(hash)}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
	const [scheme, iterations, salt, expected] = stored.split("$");
	if (scheme !== "pbkdf2-sha256" || !iterations || !salt || !expected) return false;
	const actual = await pbkdf2(password, fromBase64(salt), Number(iterations));
	const expectedBytes = fromBase64(expected);
	return actual.byteLength === expectedBytes.byteLength && crypto.subtle.timingSafeEqual(actual, expectedBytes);
}

/** A real hash of a password nobody has, so unknown emails cost the same time as wrong passwords. */
export const DUMMY_PASSWORD_HASH = "pbkdf2-sha256$100000$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
