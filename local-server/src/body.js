// Request bodies: at most 16 KiB is kept. A larger body is answered 413 once
// it has been read to the end (so the client sees the answer); one over 1 MiB
// is answered 413 at once with Connection: close, and what the client still
// sends is read and dropped for a moment, so that closing the connection does
// not reset it before the client has read the answer.
import { HttpError } from "./answers.js";

/** @typedef {import("node:http").IncomingMessage} IncomingMessage */

const BODY_LIMIT = 16 * 1024;
const DRAIN_LIMIT = 1024 * 1024;
/** How long the rest of a refused body is read and dropped before the connection is cut. */
const LINGER_MS = 2_000;

function tooLarge(closeConnection = false) {
	return new HttpError(413, `request body is larger than ${BODY_LIMIT} bytes`, closeConnection ? { connection: "close" } : {});
}

/**
 * Reads a request body as UTF-8 text; routes that expect no body read it too,
 * so that a huge one is still refused.
 * @param {IncomingMessage} req
 * @returns {Promise<string>}
 */
export function readBody(req) {
	return new Promise((resolve, reject) => {
		const declared = Number(req.headers["content-length"]);
		let size = 0;
		/** @type {Buffer[]} */
		const chunks = [];
		let tooBig = Number.isFinite(declared) && declared > BODY_LIMIT;
		let refused = false;
		const refuse = () => {
			refused = true;
			reject(tooLarge(true));
			const cut = setTimeout(() => req.socket.destroy(), LINGER_MS);
			cut.unref();
			req.on("close", () => clearTimeout(cut));
		};
		if (tooBig && declared > DRAIN_LIMIT) {
			refuse();
			req.resume();
			return;
		}
		req.on("data", (/** @type {Buffer} */ chunk) => {
			if (refused) return;
			size += chunk.length;
			if (size > BODY_LIMIT) tooBig = true;
			if (size > DRAIN_LIMIT) refuse();
			else if (!tooBig) chunks.push(chunk);
		});
		req.on("end", () => {
			if (refused) return;
			if (tooBig) reject(tooLarge());
			else resolve(Buffer.concat(chunks).toString("utf8"));
		});
		req.on("error", reject);
	});
}

/**
 * A JSON body, or undefined when the body is empty.
 * @param {IncomingMessage} req
 * @returns {Promise<unknown>}
 */
export async function readJson(req) {
	const text = await readBody(req);
	if (text.trim() === "") return undefined;
	try {
		return JSON.parse(text);
	} catch {
		throw new HttpError(400, "request body is not valid JSON");
	}
}
