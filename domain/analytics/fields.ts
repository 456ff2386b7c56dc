/**
 * Reading untrusted ingestion fields without ever failing on their shape: a string field takes
 * a string (or a number or boolean, as text) cut to its limit; anything else counts as absent.
 */
import { hostOnly } from "../sites/hostnames";
import { cutText } from "../text";


export function text(value: unknown, max: number): string | undefined {
	if (typeof value === "string") return cutText(value, max);
	if (typeof value === "number" || typeof value === "boolean") return cutText(String(value), max);
	return undefined;
}

/** A number (or numeric text) truncated to an integer and clamped to [min, max]; else undefined. */
export function clampedInteger(value: unknown, min: number, max: number): number | undefined {
	const number = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : Number.NaN;
	if (Number.isNaN(number)) return undefined;
	// 1e999 in JSON is Infinity: clamped like any other number out of range.
	return Math.min(max, Math.max(min, Math.trunc(number)));
}

/**
 * `url_host` as stored: the host the host check read (trimmed, lower-case, without a port or the
 * trailing dot of a fully qualified name: ` Shop.Example.:8443` is `shop.example`), cut; null when
 * absent. Storing what was checked keeps one site's host one value, whatever a client added to it.
 */
export function storedHost(value: unknown, max: number): string | null {
	return typeof value === "string" ? cutText(hostOnly(value), max).replace(/\.+$/, "") : null;
}

/**
 * The host an event claims to come from, for host authorization: null when `url_host` is absent
 * (spec: omitting it bypasses the check), else the text to check. A `url_host` of another type
 * is not a way around the check: it becomes "" and matches no domain.
 */
export function claimedHost(value: unknown): string | null {
	if (value === undefined || value === null) return null;
	return typeof value === "string" ? value : "";
}

/** `tracking_id`, required by every analytics endpoint: a non-empty string, else 400. */
export function trackingIdOf(body: Record<string, unknown>): string | null {
	const value = body.tracking_id;
	return typeof value === "string" && value.trim() !== "" ? value.trim() : null;
}

/**
 * Two upper-case letters, as Cloudflare's `cf.country` and crawler telemetry send them. `T1` (Tor)
 * and `XX` (unknown) say nothing about a country; they and anything malformed are stored as "".
 */
export function countryCode(value: unknown): string {
	return typeof value === "string" && /^[A-Z]{2}$/.test(value) && value !== "T1" && value !== "XX" ? value : "";
}
