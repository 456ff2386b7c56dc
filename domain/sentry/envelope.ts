/**
 * Sentry envelopes (docs/api.md#sentry-sdks): a header line of JSON, then items, each a header line
 * of JSON and a payload. A payload is `length` bytes when its header says so (it may hold
 * newlines, or binary data), else the rest of its line.
 *
 *     {"event_id":"9ec79c33ec9942ab8353589fcb2e04dc","dsn":"https://<key>@host/42"}\n
 *     {"type":"event","length":41}\n
 *     {"message":"hello","level":"info"}\n
 */
import { InvalidInput } from "../errors";

type Json = Record<string, unknown>;

interface EnvelopeItem {
	type: string;
	headers: Json;
	payload: Uint8Array;
}

export interface Envelope {
	headers: Json;
	items: EnvelopeItem[];
}

const NEWLINE = 0x0a;
const invalid = (problem: string) => new InvalidInput(`Invalid envelope: ${problem}`);
const decoder = new TextDecoder();

/**
 * The payload as a JSON object, or a 400 saying which part is not: `what` names it, `invalidAs`
 * what it is part of (an envelope's item, or a store request's event).
 */
export function jsonPayload(bytes: Uint8Array, what: string, invalidAs = invalid): Json {
	let value: unknown;
	try {
		value = JSON.parse(decoder.decode(bytes));
	} catch {
		throw invalidAs(`${what} is not valid JSON`);
	}
	if (typeof value !== "object" || value === null || Array.isArray(value)) throw invalidAs(`${what} must be a JSON object`);
	return value as Json;
}

export function parseEnvelope(bytes: Uint8Array): Envelope {
	let offset = 0;
	/** The next line without its newline; at the end, null. */
	const nextLine = (): Uint8Array | null => {
		if (offset >= bytes.length) return null;
		let end = bytes.indexOf(NEWLINE, offset);
		if (end === -1) end = bytes.length;
		const line = bytes.subarray(offset, end);
		offset = end + 1;
		return line;
	};

	const headerLine = nextLine();
	if (headerLine === null || headerLine.length === 0) throw invalid("the body is empty; expected a header line of JSON");
	const headers = jsonPayload(headerLine, "the envelope header");

	const items: EnvelopeItem[] = [];
	for (;;) {
		const itemHeaderLine = nextLine();
		if (itemHeaderLine === null) break;
		// Blank lines between items (an SDK's trailing newline after a payload) carry nothing.
		if (itemHeaderLine.every((byte) => byte === 0x20 || byte === 0x0d || byte === 0x09)) continue;
		const n = items.length + 1;
		const itemHeaders = jsonPayload(itemHeaderLine, `the header of item ${n}`);
		const type = itemHeaders.type;
		if (typeof type !== "string" || type === "") throw invalid(`item ${n} has no type`);
		const length = itemHeaders.length;
		let payload: Uint8Array;
		if (length === undefined || length === null) {
			payload = nextLine() ?? new Uint8Array();
		} else {
			if (typeof length !== "number" || !Number.isSafeInteger(length) || length < 0) throw invalid(`item ${n} has a length that is not a whole number of bytes`);
			if (offset + length > bytes.length) throw invalid(`item ${n} declares ${length} bytes but ${Math.max(0, bytes.length - offset)} follow`);
			payload = bytes.subarray(offset, offset + length);
			offset += length;
			if (offset < bytes.length && bytes[offset] !== NEWLINE) throw invalid(`item ${n} is longer than the ${length} bytes it declares`);
			offset += 1;
		}
		items.push({ type, headers: itemHeaders, payload });
	}
	return { headers, items };
}
