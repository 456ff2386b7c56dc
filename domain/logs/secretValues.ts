/**
 * Secrets recognised by their value whatever the name they are sent under, as Sentry's default
 * scrubbing recognises them: a payment card number, a PEM private key and the password of a
 * `scheme://user:password@host` URL; and this service's own keys and tokens. Each is replaced
 * where it stands, so the text around it (the rest of a log line, the key's BEGIN and END lines,
 * the URL's user and host) is kept.
 *
 * These run on every string of every event, so each is a scan in linear time (no character is read
 * more than a bounded number of times, whatever the input), and a string too short to hold a match
 * is not read at all.
 */
import { SECRET_DIGITS, SECRET_PREFIXES } from "../crypto";

export const FILTERED = "[Filtered]";

// ---------------------------------------------------------------------------
// Card numbers

const CARD_MIN_DIGITS = 13;
const CARD_MAX_DIGITS = 19;

/**
 * Digits in groups, each group after the first preceded by one space or dash: `4111 1111 1111 1111`,
 * `4111-1111-1111-1111`, `4111111111111111`. One separator at most between digits, and each step
 * either a separator and a digit or a digit, so a try has one way to go: it either reads the run
 * whole or fails within 12 digits.
 */
const DIGIT_RUN = /\d(?:[ -]?\d){12,}/g;

/** Luhn's sum counts every second digit from the last doubled, its digits added (16 → 7). */
const doubled = (digit: number) => (digit > 4 ? digit * 2 - 9 : digit * 2);

/**
 * The card numbers in one run of grouped digits, as [start, end) offsets into it. A card number is
 * 13 to 19 digits that start and end at a group's edge (never inside one), whose first digit is
 * one card networks issue under (2 to 6: Mastercard, Amex, Visa, Discover, UnionPay, JCB,
 * Maestro...), which no millisecond or microsecond timestamp of this era starts with, and whose
 * Luhn check digit holds, which nine in ten other numbers (order ids...) fail. From each start the
 * longest counts, so `4111 1111 1111 1111 123` (a CVV after the number) still yields the card, and
 * numbers that overlap are filtered as one: when digits before a card (`2024-06-01 4111…`) happen
 * to make a valid number with its first groups, the card is still filtered whole.
 * `openStart` and `openEnd` say whether the run's own edges may be a number's (not inside a word).
 *
 * Luhn's sum over any stretch comes from two running sums (digits at even places doubled, or at
 * odd ones: which, the stretch's end decides), so each start costs at most seven lookups.
 */
function cardsInRun(run: string, openStart: boolean, openEnd: boolean): [number, number][] {
	const offsets = new Int32Array(run.length);
	const evenDoubled = new Int32Array(run.length + 1);
	const oddDoubled = new Int32Array(run.length + 1);
	let count = 0;
	for (let i = 0; i < run.length; i++) {
		const digit = run.charCodeAt(i) - 48;
		if (digit < 0 || digit > 9) continue;
		offsets[count] = i;
		evenDoubled[count + 1] = evenDoubled[count] + (count % 2 === 0 ? doubled(digit) : digit);
		oddDoubled[count + 1] = oddDoubled[count] + (count % 2 === 0 ? digit : doubled(digit));
		count++;
	}
	// Digit k ends a group when a separator follows it, or it ends a run whose end is open.
	const endsGroup = (k: number) => (k === count - 1 ? openEnd : offsets[k + 1] > offsets[k] + 1);
	const found: [number, number][] = [];
	for (let first = openStart ? 0 : 1; first < count; first++) {
		if (first > 0 && offsets[first] === offsets[first - 1] + 1) continue;
		const digit = run.charCodeAt(offsets[first]) - 48;
		if (digit < 2 || digit > 6) continue;
		for (let end = Math.min(count, first + CARD_MAX_DIGITS); end >= first + CARD_MIN_DIGITS; end--) {
			const sums = end % 2 === 0 ? evenDoubled : oddDoubled;
			if (!endsGroup(end - 1) || (sums[end] - sums[first]) % 10 !== 0) continue;
			const last = found.at(-1);
			if (last && offsets[first] < last[1]) last[1] = Math.max(last[1], offsets[end - 1] + 1);
			else found.push([offsets[first], offsets[end - 1] + 1]);
			break;
		}
	}
	return found;
}

const isWordChar = (char: string | undefined) => char !== undefined && /\w/.test(char);

/** Whether the run starting at `at` may begin a number: not inside a word, nor the fraction of `0.6283…`. */
function mayStartNumber(text: string, at: number): boolean {
	const before = text[at - 1];
	if (isWordChar(before)) return false;
	return !((before === "." || before === ",") && /\d/.test(text[at - 2] ?? ""));
}

function filterCards(text: string): string {
	let out = "";
	let copied = 0;
	for (const match of text.matchAll(DIGIT_RUN)) {
		const at = match.index;
		const run = match[0];
		for (const [start, end] of cardsInRun(run, mayStartNumber(text, at), !isWordChar(text[at + run.length]))) {
			out += text.slice(copied, at + start) + FILTERED;
			copied = at + end;
		}
	}
	return copied === 0 ? text : out + text.slice(copied);
}

// ---------------------------------------------------------------------------
// PEM private keys

const PEM_BEGIN = "-----BEGIN ";
/** The rest of the BEGIN line of a private key: `RSA PRIVATE KEY-----`, `OPENSSH PRIVATE KEY-----`... */
const PRIVATE_KEY_LABEL = /[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/y;

/**
 * The key between its BEGIN and END lines becomes "[Filtered]", the lines themselves and the
 * whitespace around the key kept. A key without an END line (cut short, as long strings are before
 * they are scrubbed) is filtered to the end of the text.
 */
function filterPrivateKeys(text: string): string {
	let out = "";
	let copied = 0;
	for (let begin = text.indexOf(PEM_BEGIN); begin >= 0; begin = text.indexOf(PEM_BEGIN, begin + 1)) {
		PRIVATE_KEY_LABEL.lastIndex = begin + PEM_BEGIN.length;
		if (!PRIVATE_KEY_LABEL.test(text)) continue;
		const keyStart = PRIVATE_KEY_LABEL.lastIndex;
		const endLine = text.indexOf("-----END ", keyStart);
		const keyEnd = endLine < 0 ? text.length : endLine;
		const key = text.slice(keyStart, keyEnd);
		const body = key.trim();
		if (body !== "") {
			const lead = key.length - key.trimStart().length;
			out += text.slice(copied, keyStart + lead) + FILTERED;
			copied = keyStart + lead + body.length;
		}
		if (endLine < 0) break;
		begin = endLine;
	}
	return copied === 0 ? text : out + text.slice(copied);
}

// ---------------------------------------------------------------------------
// Passwords in URLs

/**
 * After `//`: a user name (none in `redis://:password@host`), `:`, the password (any character a URL's user info may hold, `:`
 * included), then `@`. Neither set holds the character that ends it, so a try reads at most to
 * the first character outside them and no further.
 */
const USER_AND_PASSWORD = /[A-Za-z0-9%_.~-]*:([A-Za-z0-9%_.~!$&'()*+,;=:-]+)@/y;

function filterUrlPasswords(text: string): string {
	let out = "";
	let copied = 0;
	for (let slashes = text.indexOf("//"); slashes >= 0; slashes = text.indexOf("//", slashes + 2)) {
		USER_AND_PASSWORD.lastIndex = slashes + 2;
		const match = USER_AND_PASSWORD.exec(text);
		if (!match) continue;
		const passwordEnd = USER_AND_PASSWORD.lastIndex - 1;
		out += text.slice(copied, passwordEnd - match[1].length) + FILTERED;
		copied = passwordEnd;
		slashes = passwordEnd;
	}
	return copied === 0 ? text : out + text.slice(copied);
}

// ---------------------------------------------------------------------------
// This service's own secrets

/**
 * A project key or a session token of this service, as randomSecret writes them: the prefix and
 * 43 letters and digits, not inside a longer word. An app may send one in an event (a DSN in a
 * dump of its environment, a configuration printed with an error); stored, the console would show
 * a key that it otherwise shows only once, when the key is made. A try reads at most the token's
 * length from an `s`, so the scan stays linear.
 */
const SERVICE_SECRET = new RegExp(
	`(?<![A-Za-z0-9_])(?:${Object.values(SECRET_PREFIXES).join("|")})[0-9A-Za-z]{${SECRET_DIGITS}}(?![A-Za-z0-9_])`,
	"g",
);
/** What both prefixes start with: a text without it is not scanned. */
const SERVICE_SECRET_START = "svc";

// ---------------------------------------------------------------------------

/** `text` with every secret value in it filtered: the text itself when there is none. */
export function filterSecretValues(text: string): string {
	// `//a:b@` is the shortest text any of the three can match.
	if (text.length < 6) return text;
	let result = text;
	if (result.length >= CARD_MIN_DIGITS) result = filterCards(result);
	if (result.includes(PEM_BEGIN)) result = filterPrivateKeys(result);
	if (result.includes("@")) result = filterUrlPasswords(result);
	if (result.includes(SERVICE_SECRET_START)) result = result.replace(SERVICE_SECRET, FILTERED);
	return result;
}
