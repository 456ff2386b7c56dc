/**
 * An issue's short id, as Sentry shows one (`MY-APP-1A`): its project's name in capitals, a dash,
 * and its number in the project in base 32. The key's ProjectCollector numbers a project's issues
 * from 1 as they open and never gives a number twice, so a short id named in a commit, a ticket or
 * a chat keeps naming the same issue (docs/api.md#short-ids).
 */

/** Crockford's base 32: digits and capitals without I, L, O and U, so none is read as 1, 0 or a word. */
const DIGITS = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/** The most of a project's name a short id carries. */
const PREFIX_CHARS = 30;

/** The project's name as its short ids start: A–Z and digits kept, every other run of characters one dash; `ISSUE` when none is left. */
function shortIdPrefix(projectName: string): string {
	const prefix = projectName
		.toUpperCase()
		.replace(/[^A-Z0-9]+/g, "-")
		.slice(0, PREFIX_CHARS)
		.replace(/^-+|-+$/g, "");
	return prefix || "ISSUE";
}

/** The short id of the project's issue numbered `n`; null for an issue not numbered yet (one stored before short ids, until its project's object runs). */
export function shortIdOf(projectName: string, n: number | null): string | null {
	if (n === null) return null;
	let digits = "";
	for (let rest = n; rest > 0; rest = Math.floor(rest / 32)) digits = DIGITS[rest % 32] + digits;
	return `${shortIdPrefix(projectName)}-${digits || "0"}`;
}

/** The number a short id of this project names (letter case aside), or null when `text` is none. */
export function shortIdNumber(projectName: string, text: string): number | null {
	const typed = text.trim().toUpperCase();
	const prefix = `${shortIdPrefix(projectName)}-`;
	if (!typed.startsWith(prefix)) return null;
	const digits = typed.slice(prefix.length);
	if (digits.length === 0 || digits.length > 10 || digits.startsWith("0")) return null;
	let n = 0;
	for (const digit of digits) {
		const value = DIGITS.indexOf(digit);
		if (value < 0) return null;
		n = n * 32 + value;
	}
	return n;
}
