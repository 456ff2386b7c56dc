/**
 * Sentry envelopes (docs/api.md#sentry-sdks): a header line of JSON, then items, each a header line
 * of JSON and a payload. A payload is `length` bytes when its header says so (it may hold
 * newlines, or binary data), else the rest of its line.
 *
 *     {"event_id":"9ec79c33ec9942ab8353589fcb2e04dc","dsn":"https://<key>@host/42"}\n
 *     {"type":"event","length":41}\n
 *     {"message":"hello","level":"info"}\n
 */
import { concatBytes } from "../bytes";
import { InvalidInput } from "../errors";

type Json = Record<string, unknown>;

interface EnvelopeItem {
	type: string;
	headers: Json;
	/** Null for an item read past without being kept. */
	payload: Uint8Array | null;
}

export interface Envelope {
	headers: Json;
	items: EnvelopeItem[];
}

/** How an item's payload is kept: whole up to `upTo` bytes; past them refused (`tooLarge`), or read past unkept. */
type Keeping = false | { upTo: number; larger: "refuse" | "skip" };

/** What `readEnvelope` keeps. */
export interface EnvelopeReading {
	/** How an item is kept, asked once per item, in order, with its header (its `length`, when it declares one). */
	keep(type: string, headers: Json): Keeping;
	/** The most bytes of any header line, the envelope's or an item's. */
	headerBytes: number;
	/** The error for a part over its bound, `what` naming it. */
	tooLarge(what: string): Error;
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

/**
 * Reads an envelope from its chunks as they come. Payloads of items not kept stream past
 * without being held, so memory is bounded by what is kept, not by the envelope; a kept item
 * whose `length` is over the bound is refused before its payload is read.
 */
export async function readEnvelope(read: () => Promise<Uint8Array | null>, reading: EnvelopeReading): Promise<Envelope> {
	const body = new ChunkCursor(read);
	const headerLine = await body.line(reading.headerBytes, () => reading.tooLarge("The envelope header"));
	if (headerLine === null || headerLine.length === 0) throw invalid("the body is empty; expected a header line of JSON");
	const headers = jsonPayload(headerLine, "the envelope header");

	const items: EnvelopeItem[] = [];
	for (;;) {
		const n = items.length + 1;
		const itemHeaderLine = await body.line(reading.headerBytes, () => reading.tooLarge(`The header of item ${n}`));
		if (itemHeaderLine === null) break;
		// Blank lines between items (an SDK's trailing newline after a payload) carry nothing.
		if (itemHeaderLine.every((byte) => byte === 0x20 || byte === 0x0d || byte === 0x09)) continue;
		const itemHeaders = jsonPayload(itemHeaderLine, `the header of item ${n}`);
		const type = itemHeaders.type;
		if (typeof type !== "string" || type === "") throw invalid(`item ${n} has no type`);
		const keeping = reading.keep(type, itemHeaders);
		const tooLarge = keeping && keeping.larger === "refuse" ? () => reading.tooLarge(`Item ${n} (${type})`) : null;
		const length = itemHeaders.length;
		let payload: Uint8Array | null;
		if (length === undefined || length === null) {
			const line = await body.line(keeping ? keeping.upTo : null, tooLarge);
			payload = keeping ? line : null;
		} else {
			if (typeof length !== "number" || !Number.isSafeInteger(length) || length < 0) throw invalid(`item ${n} has a length that is not a whole number of bytes`);
			const fits = keeping !== false && length <= keeping.upTo;
			if (tooLarge && !fits) throw tooLarge();
			const taken = await body.take(length, fits);
			if (taken.count < length) throw invalid(`item ${n} declares ${length} bytes but ${taken.count} follow`);
			payload = taken.bytes;
			const next = await body.peek();
			if (next !== null && next !== NEWLINE) throw invalid(`item ${n} is longer than the ${length} bytes it declares`);
			await body.take(1, false);
		}
		items.push({ type, headers: itemHeaders, payload });
	}
	return { headers, items };
}

/** A position in a body that arrives in chunks. */
class ChunkCursor {
	private chunk: Uint8Array = new Uint8Array();
	private at = 0;
	private ended = false;

	constructor(private readonly read: () => Promise<Uint8Array | null>) {}

	/** Whether a byte is left to read, reading the next chunk when this one is used up. */
	private async more(): Promise<boolean> {
		while (this.at >= this.chunk.length) {
			const chunk = this.ended ? null : await this.read();
			if (chunk === null) {
				this.ended = true;
				return false;
			}
			this.chunk = chunk;
			this.at = 0;
		}
		return true;
	}

	/** The next byte, not consumed; null at the end. */
	async peek(): Promise<number | null> {
		return (await this.more()) ? this.chunk[this.at] : null;
	}

	/**
	 * The next line without its newline; null at the end. At most `limit` bytes of it are kept:
	 * past that `tooLarge` is thrown, or without one the line is read past and comes back null.
	 * With no limit it is read past and comes back empty.
	 */
	async line(limit: number | null, tooLarge: (() => Error) | null): Promise<Uint8Array | null> {
		if (!(await this.more())) return null;
		const parts: Uint8Array[] = [];
		let length = 0;
		let kept = limit !== null;
		while (await this.more()) {
			const newline = this.chunk.indexOf(NEWLINE, this.at);
			const end = newline === -1 ? this.chunk.length : newline;
			const part = this.chunk.subarray(this.at, end);
			this.at = newline === -1 ? end : end + 1;
			if (kept) {
				length += part.length;
				if (length > (limit as number)) {
					if (tooLarge) throw tooLarge();
					kept = false;
					parts.length = 0;
				} else parts.push(part);
			}
			if (newline !== -1) break;
		}
		return limit !== null && !kept ? null : concatBytes(parts);
	}

	/** The next `length` bytes, or fewer at the end (`count` says how many); kept only when asked. */
	async take(length: number, keep: boolean): Promise<{ count: number; bytes: Uint8Array | null }> {
		const parts: Uint8Array[] = [];
		let count = 0;
		while (count < length && (await this.more())) {
			const part = this.chunk.subarray(this.at, Math.min(this.chunk.length, this.at + length - count));
			this.at += part.length;
			count += part.length;
			if (keep) parts.push(part);
		}
		return { count, bytes: keep ? concatBytes(parts) : null };
	}
}
