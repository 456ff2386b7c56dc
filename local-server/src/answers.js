// One answer shape for every request: a JSON body, and for an error
// {"error": "<message>"} with its status. API answers are never cached.
import { randomUUID } from "node:crypto";
import http from "node:http";

/** A refusal with its status, message and any extra headers (Allow, Retry-After...). */
export class HttpError extends Error {
	/**
	 * @param {number} status
	 * @param {string} message
	 * @param {Record<string, string>} [headers]
	 */
	constructor(status, message, headers) {
		super(message);
		this.status = status;
		this.headers = headers ?? {};
	}
}

/** Headers of every API answer: some carry secrets, none may be cached. */
export const NO_STORE = Object.freeze({ "cache-control": "no-store", pragma: "no-cache" });

/**
 * @param {http.ServerResponse} res @param {number} status @param {unknown} body
 * @param {Record<string, string>} [headers]
 */
export function sendJson(res, status, body, headers = {}) {
	if (res.headersSent) return;
	const text = JSON.stringify(body);
	res.writeHead(status, {
		"content-type": "application/json; charset=utf-8",
		"content-length": Buffer.byteLength(text),
		...headers,
	});
	res.end(text);
}

/**
 * Answers a failed request: an HttpError as itself, anything else as a 500
 * whose details go to the log only, under a request id the answer names.
 * @param {http.ServerResponse} res @param {unknown} err
 * @param {{method?: string, path: string, log: (line: string) => void}} request
 */
export function sendError(res, err, { method, path, log }) {
	const requestId = randomUUID().slice(0, 8);
	if (err instanceof HttpError) {
		if (err.status >= 500) log(`[${requestId}] ${method} ${path}: ${err.message}`);
		sendJson(res, err.status, { error: err.message }, { ...NO_STORE, ...err.headers });
		return;
	}
	log(`[${requestId}] ${method} ${path} failed: ${err instanceof Error ? err.stack : String(err)}`);
	sendJson(res, 500, { error: `internal error (request ${requestId})` }, NO_STORE);
}

/**
 * Answers on a raw socket (a refused WebSocket upgrade, a request Node could
 * not parse) and closes it once the answer is written.
 * @param {import("node:stream").Duplex} socket @param {number} status @param {string} message
 */
export function refuseOnSocket(socket, status, message) {
	if (!socket.writable) {
		socket.destroy();
		return;
	}
	const body = JSON.stringify({ error: message });
	socket.once("finish", () => socket.destroy());
	socket.end(
		`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
			`Cache-Control: no-store\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
	);
}
