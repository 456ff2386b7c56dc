/**
 * Shared HTTP pieces: the one error shape, JSON answers, CORS for public ingestion,
 * bounded body reading (compressed bodies too) and the client IP.
 */
import { concatBytes } from "../domain/bytes";
import { InvalidInput } from "../domain/errors";
import { OWNER_LIMITS } from "../domain/limits";

declare global {
	interface ErrorConstructor {
		/** V8's: how many frames a new Error's stack captures. */
		stackTraceLimit: number;
	}
}

/** A known failure with its status. Everything else becomes a generic 500 in `errorResponse`. */
export class HttpError extends Error {
	constructor(
		readonly status: number,
		message: string,
		/** Extra members of the JSON body, e.g. `fields` on feedback's 400. */
		readonly body: Record<string, unknown> = {},
		/** Left undefined when there are none: `json` then builds the answer's headers once. */
		readonly headers?: HeadersInit,
	) {
		// An answer, not a fault: its stack is never read, and capturing one cost more than the
		// rest of a small refusal (a 401 or 429 under a flood).
		const stackTraceLimit = Error.stackTraceLimit;
		Error.stackTraceLimit = 0;
		super(message);
		Error.stackTraceLimit = stackTraceLimit;
	}
}

const JSON_HEADERS: Readonly<Record<string, string>> = { "content-type": "application/json; charset=utf-8" };

export function json(body: unknown, init: ResponseInit = {}): Response {
	// Most answers carry no headers of their own: the runtime then builds one Headers, not two.
	if (init.headers === undefined) return new Response(JSON.stringify(body), { ...init, headers: JSON_HEADERS });
	const headers = new Headers(init.headers);
	headers.set("content-type", JSON_HEADERS["content-type"]);
	return new Response(JSON.stringify(body), { ...init, headers });
}

/** Answers that carry a secret, or tell of a change to an account's credentials, must never be cached anywhere on the way. */
export function jsonWithSecret(body: unknown, init: ResponseInit = {}): Response {
	const headers = new Headers(init.headers);
	headers.set("cache-control", "no-store");
	headers.set("pragma", "no-cache");
	return json(body, { ...init, headers });
}

export function errorResponse(err: unknown, request?: Request): Response {
	if (err instanceof HttpError) {
		return json({ error: err.message, ...err.body }, { status: err.status, headers: err.headers });
	}
	if (err instanceof InvalidInput) return json({ error: err.message }, { status: 400 });
	// Unexpected: log with a request id the operator can correlate, never the request's secrets.
	const requestId = request?.headers.get("cf-ray") ?? crypto.randomUUID();
	console.error(`[${requestId}] unhandled error on ${request?.method} ${request ? new URL(request.url).pathname : "?"}:`, err);
	return json({ error: "Internal server error", request_id: requestId }, { status: 500 });
}

export function tooManyRequests(retryAfterSeconds: number, what = "Too many requests"): HttpError {
	const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
	return new HttpError(429, `${what}; retry in ${seconds} s`, {}, { "retry-after": String(seconds) });
}

// ---------------------------------------------------------------------------
// CORS for the public ingestion endpoints: any site may post to them.

export const INGEST_CORS_HEADERS: Readonly<Record<string, string>> = {
	"access-control-allow-origin": "*",
	"access-control-allow-methods": "POST, OPTIONS",
	"access-control-allow-headers": "authorization, content-type, x-svc-key",
	"access-control-expose-headers": "retry-after",
	"access-control-max-age": "86400",
};

/**
 * What Sentry's browser SDKs send, and the rate-limit answers they read back. The request headers
 * are those Sentry's own ingestion allows, for a custom transport or a tunnel that adds them.
 */
export const SENTRY_CORS_HEADERS: Readonly<Record<string, string>> = {
	...INGEST_CORS_HEADERS,
	"access-control-allow-headers": "accept, authentication, authorization, content-encoding, content-type, x-requested-with, x-sentry-auth",
	"access-control-expose-headers": "retry-after, x-sentry-rate-limits",
};

export function withCors(response: Response, cors: Readonly<Record<string, string>>): Response {
	// The handlers' own responses take the headers as they are; one from fetch() or the cache may be
	// immutable, and is copied first.
	try {
		return setHeaders(response, cors);
	} catch {
		return setHeaders(new Response(response.body, response), cors);
	}
}

function setHeaders(response: Response, values: Readonly<Record<string, string>>): Response {
	const { headers } = response;
	for (const name in values) headers.set(name, values[name]);
	return response;
}

export const preflight = (cors: Readonly<Record<string, string>>) => (): Response => new Response(null, { status: 204, headers: cors });

export const methodNotAllowed =
	(cors: Readonly<Record<string, string>>) => (): Response =>
		json({ error: "Method not allowed: use POST" }, { status: 405, headers: { allow: "POST, OPTIONS", ...cors } });

// ---------------------------------------------------------------------------
// Bodies

/**
 * Reads the body as text, stopping as soon as it exceeds `maxChars` characters (UTF-16 code
 * units, which is what JSON text length means to a JavaScript client), so an unbounded body
 * is never buffered whole.
 */
export async function readTextWithin(request: Request, maxChars: number): Promise<string> {
	// UTF-8 needs at most 3 bytes per UTF-16 code unit, so a longer declared body cannot fit.
	const declared = Number(request.headers.get("content-length"));
	if (Number.isFinite(declared) && declared > maxChars * 3) throw tooLargeText(maxChars);
	if (!request.body) return "";
	// No more bytes than the limit in characters can hold no more characters (UTF-8 takes at
	// least one byte per UTF-16 code unit), and the runtime reads no more than a declared length:
	// such a body is read whole, without the cost of a stream.
	if (request.headers.has("content-length") && declared <= maxChars) return request.text();

	const reader = request.body.pipeThrough(new TextDecoderStream()).getReader();
	let text = "";
	for (;;) {
		const { done, value } = await reader.read();
		if (done) return text;
		text += value;
		if (text.length > maxChars) {
			await reader.cancel().catch(() => {});
			throw tooLargeText(maxChars);
		}
	}
}

/** Bodies sent with `Content-Encoding` that `decodedBodyReader` can undo. */
const DECODABLE = new Set(["identity", "gzip", "x-gzip", "deflate"]);

/** The next chunk of a body, or null at its end. */
export type ChunkReader = () => Promise<Uint8Array | null>;

/**
 * The body's bytes chunk by chunk as they arrive, its `Content-Encoding` (gzip or deflate;
 * anything else is a 415) undone on the way. Nothing is buffered here, so what a caller keeps is
 * all the memory a body costs. The body as sent may be at most `sentBytes` and its decoded bytes
 * at most `decodedBytes`: a 413 as soon as either is passed, and decompression stops there, so a
 * compression bomb never inflates further.
 */
export async function decodedBodyReader(request: Request, limits: { sentBytes: number; decodedBytes: number }): Promise<ChunkReader> {
	const encoding = (request.headers.get("content-encoding") ?? "identity").trim().toLowerCase() || "identity";
	if (!DECODABLE.has(encoding)) {
		const hint = encoding === "br" ? "brotli is not supported here; " : "";
		throw new HttpError(415, `Unsupported Content-Encoding "${encoding}": ${hint}send the body uncompressed, gzip or deflate`);
	}
	const sentTooLarge = () => new HttpError(413, `Request body exceeds ${limits.sentBytes} bytes as sent`);
	if (Number(request.headers.get("content-length")) > limits.sentBytes) throw sentTooLarge();
	const body = request.body?.getReader();
	let sent = 0;
	const readSent: ChunkReader = async () => {
		const read = body ? await body.read() : { done: true as const };
		if (read.done) return null;
		sent += read.value.byteLength;
		if (sent > limits.sentBytes) {
			await body?.cancel().catch(() => {});
			throw sentTooLarge();
		}
		return read.value;
	};
	const decodedTooLarge = () => new HttpError(413, `Request body exceeds ${limits.decodedBytes} bytes${encoding === "identity" ? "" : " decompressed"}`);
	let decoded = 0;
	const counted =
		(read: ChunkReader, stop: () => Promise<unknown>): ChunkReader =>
		async () => {
			const chunk = await read();
			decoded += chunk?.byteLength ?? 0;
			if (decoded > limits.decodedBytes) {
				await stop().catch(() => {});
				throw decodedTooLarge();
			}
			return chunk;
		};
	if (encoding === "identity") return counted(readSent, async () => body?.cancel());

	// "deflate" means zlib-wrapped data, but some clients send raw deflate: a zlib header (its
	// first two bytes) tells them apart.
	let head = (await readSent()) ?? new Uint8Array();
	for (let more = head; head.length < 2 && more.length > 0; ) {
		more = (await readSent()) ?? new Uint8Array();
		head = concatBytes([head, more]);
	}
	const zlibWrapped = head.length >= 2 && (head[0] & 0x0f) === 8 && ((head[0] << 8) | head[1]) % 31 === 0;
	const format = encoding === "deflate" ? (zlibWrapped ? "deflate" : "deflate-raw") : "gzip";
	// A refusal met while reading the body reaches the reader below as the stream's error, which
	// the decompressor need not pass on as the same object: it is kept here.
	let refusal: HttpError | null = null;
	let pending: Uint8Array | null = head;
	const source = new ReadableStream<Uint8Array>({
		async pull(controller) {
			try {
				const chunk = pending ?? (await readSent());
				pending = null;
				if (chunk) controller.enqueue(chunk);
				else controller.close();
			} catch (err) {
				if (err instanceof HttpError) refusal = err;
				controller.error(err);
			}
		},
		cancel: () => body?.cancel(),
	});
	const inflated = source.pipeThrough(new DecompressionStream(format)).getReader();
	const readInflated: ChunkReader = async () => {
		try {
			const { done, value } = await inflated.read();
			return done ? null : value;
		} catch {
			throw refusal ?? new HttpError(400, `Request body is not valid ${encoding} data`);
		}
	};
	return counted(readInflated, () => inflated.cancel());
}

/** Every chunk `read` gives, as one array. */
export async function readAll(read: ChunkReader): Promise<Uint8Array> {
	const chunks: Uint8Array[] = [];
	for (let chunk = await read(); chunk; chunk = await read()) chunks.push(chunk);
	return concatBytes(chunks);
}

const tooLargeText = (maxChars: number) => new HttpError(413, `Request body exceeds ${maxChars} characters`);

/** The body as bytes, stopping with a 413 as soon as it exceeds `maxBytes` (never buffering more). */
function readBodyBytesWithin(request: Request, maxBytes: number): Promise<Uint8Array> {
	return readBytesWithin(request.body, maxBytes, request.headers.get("content-length"), () => new HttpError(413, `Request body exceeds ${maxBytes} bytes`));
}

/**
 * A multipart/form-data body of at most `maxBytes`: 415 with `sendInstead` (what to send) for any
 * other content type, 413 past the size, 400 when it does not parse.
 */
export async function readMultipartWithin(request: Request, maxBytes: number, sendInstead: string): Promise<FormData> {
	const contentType = request.headers.get("content-type") ?? "";
	if (!contentType.toLowerCase().startsWith("multipart/form-data")) throw new HttpError(415, sendInstead);
	const body = await readBodyBytesWithin(request, maxBytes);
	try {
		return await new Response(body, { headers: { "content-type": contentType } }).formData();
	} catch {
		throw new HttpError(400, "The body is not valid multipart/form-data");
	}
}

async function readBytesWithin(body: ReadableStream<Uint8Array> | null, maxBytes: number, declared: string | null, tooLarge: () => HttpError) {
	if (Number.isFinite(Number(declared)) && Number(declared) > maxBytes) throw tooLarge();
	if (!body) return new Uint8Array();
	const chunks: Uint8Array[] = [];
	let length = 0;
	const reader = body.getReader();
	for (;;) {
		const { done, value } = await reader.read();
		if (done) return concatBytes(chunks);
		chunks.push(value);
		length += value.byteLength;
		if (length > maxBytes) {
			await reader.cancel().catch(() => {});
			throw tooLarge();
		}
	}
}

/**
 * Parses JSON text; anything that is not a JSON object is a 400. `errorBody` adds members to
 * that 400, for endpoints whose 400 has a fixed shape (feedback's `{error, fields}`).
 */
export function parseJsonObject(text: string, errorBody: Record<string, unknown> = {}): Record<string, unknown> {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		const message = text.trim() === "" ? "Request body is empty: expected a JSON object" : "Request body is not valid JSON";
		throw new HttpError(400, message, errorBody);
	}
	if (typeof value !== "object" || value === null || Array.isArray(value)) {
		throw new HttpError(400, "Request body must be a JSON object", errorBody);
	}
	return value as Record<string, unknown>;
}

export async function readJsonObject(request: Request, maxChars = OWNER_LIMITS.bodyChars): Promise<Record<string, unknown>> {
	return parseJsonObject(await readTextWithin(request, maxChars));
}

// ---------------------------------------------------------------------------

/** Cloudflare sets CF-Connecting-IP; the local runtime passes through what the request carries. */
export function clientIp(request: Request): string {
	return request.headers.get("cf-connecting-ip")?.trim() || "127.0.0.1";
}

export function bearerToken(request: Request): string | null {
	const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "");
	return match ? match[1] : null;
}
