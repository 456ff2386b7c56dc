// Answering one HTTP request. Every answer carries the security headers; the
// Host guard comes first. Paths outside /api/ are the pairing page. API
// answers are never cached, a foreign Origin is refused, and the route table
// decides the rest: 404, 405 with Allow, 426 for a plain request on the
// WebSocket path; then per route the throttle, the caller's access, the
// body and the handler.
import { HttpError, NO_STORE, sendError, sendJson } from "./answers.js";
import { readBody, readJson } from "./body.js";
import { plainAddress } from "./guard.js";
import { servePage } from "./page.js";
import { ROUTES } from "./routes.js";
import { WS_PATH } from "./socket.js";

/** @typedef {import("./server.js").LocalServer} LocalServer */
/** @typedef {import("./routes.js").Route} Route */
/** @typedef {import("./routes.js").Answer} Answer */
/** @typedef {import("node:http").IncomingMessage} IncomingMessage */
/** @typedef {import("node:http").ServerResponse} ServerResponse */
/** @typedef {import("./owner.js").OwnerAccess} OwnerAccess */

const SECURITY_HEADERS = Object.freeze({ "x-content-type-options": "nosniff", "referrer-policy": "no-referrer", "x-frame-options": "DENY" });

/** @type {Record<NonNullable<Route["throttle"]> | "owner", string>} */
const THROTTLED = {
	exchange: "too many pairing attempts; try again later",
	ticket: "too many ticket requests; try again later",
	owner: "too many wrong owner tokens; try again later",
};

/**
 * The route for a method and path; when only the method is wrong, the methods
 * the path takes.
 * @param {string} method @param {string} pathname
 * @returns {{route: Route, param: string} | {allow: string} | null}
 */
function findRoute(method, pathname) {
	/** @type {string[]} */
	const allow = [];
	for (const route of ROUTES) {
		const colon = route.path.indexOf(":");
		const prefix = colon === -1 ? route.path : route.path.slice(0, colon);
		const matches = colon === -1 ? pathname === prefix : pathname.startsWith(prefix);
		if (!matches) continue;
		if (route.method === method) return { route, param: colon === -1 ? "" : pathname.slice(prefix.length) };
		allow.push(route.method);
	}
	return allow.length > 0 ? { allow: allow.join(", ") } : null;
}

/**
 * Checks who may call the route; answers what the owner's plan allows when an owner session was checked.
 * @param {LocalServer} server @param {Route["access"]} access @param {IncomingMessage} req
 * @returns {Promise<OwnerAccess | null>}
 */
async function checkAccess(server, access, req) {
	if (access === "anyone") return null;
	if (access === "device" && server.owner.mode !== "cloud" && req.headers.authorization === undefined) return null;
	const r = await server.owner.check(req.headers.authorization);
	if (!r.ok) throw new HttpError(r.status, r.error);
	if (access === "pro" && r.access === "none") throw new HttpError(402, "setup health needs svc Pro or an active trial, and this account has neither: upgrade to Pro to use it");
	return r.access;
}

/**
 * @param {LocalServer} server @param {IncomingMessage} req @param {ServerResponse} res @param {URL} url
 */
async function answerApi(server, req, res, url) {
	for (const [name, value] of Object.entries(NO_STORE)) res.setHeader(name, value);
	const origin = req.headers.origin;
	if (origin !== undefined && !server.guard.originAllowed(origin)) throw new HttpError(403, "cross-origin requests are not accepted");
	const method = req.method ?? "GET";
	const found = findRoute(method, url.pathname);
	if (!found) {
		if (url.pathname === WS_PATH) throw new HttpError(426, "this path takes a WebSocket upgrade", { upgrade: "websocket" });
		throw new HttpError(404, "not found");
	}
	if ("allow" in found) throw new HttpError(405, `method ${method} not allowed here`, { allow: found.allow });
	const { route, param } = found;
	const remote = plainAddress(req.socket.remoteAddress);
	const throttled = route.throttle ?? (route.access === "owner" || route.access === "pro" ? "owner" : undefined);
	const throttle = throttled ? server.throttles[throttled] : undefined;
	if (throttle && throttled) {
		const wait = throttle.attempt(remote);
		if (wait) throw new HttpError(429, THROTTLED[throttled], { "retry-after": String(wait) });
	}
	/** @type {Answer} */
	let answer;
	try {
		const access = await checkAccess(server, route.access, req);
		/** @type {unknown} */
		let body;
		if (route.body === "json") body = await readJson(req);
		else if (route.body === "ignored") await readBody(req);
		answer = await route.handle(server, { req, url, remote, param, body, access });
	} catch (err) {
		// Only a wrong secret or credential (401) is a failure: a malformed request guesses nothing.
		if (throttle && !(err instanceof HttpError && err.status === 401)) throttle.succeeded(remote);
		throw err;
	}
	throttle?.succeeded(remote);
	if (answer.afterSent) res.on("finish", answer.afterSent);
	sendJson(res, answer.status ?? 200, answer.body, answer.headers);
}

/**
 * The HTTP server's `request` event.
 * @param {LocalServer} server @param {IncomingMessage} req @param {ServerResponse} res
 */
export async function handleRequest(server, req, res) {
	for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
	try {
		if (!server.guard.hostAllowed(req.headers.host)) {
			throw new HttpError(403, `Host ${JSON.stringify(req.headers.host ?? "")} is not an address of this server`);
		}
		/** @type {URL} */
		let url;
		try {
			url = new URL(req.url ?? "/", "http://local");
		} catch {
			throw new HttpError(400, "malformed request URL");
		}
		if (url.pathname.startsWith("/api/")) await answerApi(server, req, res, url);
		else servePage(req, res, url.pathname);
	} catch (err) {
		sendError(res, err, { method: req.method, path: req.url?.split("?")[0] ?? "", log: server.log });
	}
}
