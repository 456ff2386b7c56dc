// The pairing page and its assets, served from the package's own files under
// a strict Content-Security-Policy: scripts, styles and fetches from this
// server only, images also as data: URLs (the QR code), no framing.
import fs from "node:fs";
import { HttpError } from "./answers.js";

/** @typedef {import("node:http").IncomingMessage} IncomingMessage */
/** @typedef {import("node:http").ServerResponse} ServerResponse */

const HTML = "text/html; charset=utf-8";
const JS = "text/javascript; charset=utf-8";
const CSS = "text/css; charset=utf-8";
const INDEX = { file: new URL("../public/index.html", import.meta.url), type: HTML };

/** Each file by its path; written out in full so that the package test can see every file this needs. @type {Map<string, {file: URL, type: string}>} */
const FILES = new Map([
	["/", INDEX],
	["/index.html", INDEX],
	["/pair.js", { file: new URL("../public/pair.js", import.meta.url), type: JS }],
	["/pair.css", { file: new URL("../public/pair.css", import.meta.url), type: CSS }],
	["/workspaces.js", { file: new URL("../public/workspaces.js", import.meta.url), type: JS }],
	// The page's code refresh rule is the terminal's: the same file.
	["/refresh.js", { file: new URL("./refresh.js", import.meta.url), type: JS }],
]);

const PAGE_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/**
 * Answers GET or HEAD of one of the page's files.
 * @param {IncomingMessage} req @param {ServerResponse} res @param {string} pathname
 */
export function servePage(req, res, pathname) {
	const entry = FILES.get(pathname);
	if (!entry) throw new HttpError(404, "not found");
	if (req.method !== "GET" && req.method !== "HEAD") throw new HttpError(405, "method not allowed", { allow: "GET, HEAD" });
	const body = fs.readFileSync(entry.file);
	res.writeHead(200, {
		"content-type": entry.type,
		"content-length": body.length,
		"cache-control": "no-cache",
		"content-security-policy": PAGE_CSP,
	});
	res.end(req.method === "HEAD" ? undefined : body);
}
