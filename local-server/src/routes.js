// The HTTP API as a table. Each route says its method and path, who may call
// it, whether calls are throttled, which body is read, and its handler, with
// the handler's own input checks beside it. requests.js applies the table in
// that order: throttle, access, body, handler.
import { HttpError } from "./answers.js";
import { DEVICE_ID_MAX, optionalDeviceId, optionalName, optionalPlatform } from "./deviceInfo.js";
import { isObject } from "./json.js";
import { svgDataUrl } from "./qr.js";
import { SECRET_MAX } from "./secrets.js";

/** @typedef {import("./server.js").LocalServer} LocalServer */

/**
 * What a handler gets to know about the request.
 * @typedef {object} Call
 * @property {import("node:http").IncomingMessage} req
 * @property {URL} url
 * @property {string} remote the caller's address
 * @property {string} param what a route's trailing ":name" matched (still percent-encoded), else ""
 * @property {unknown} body the parsed JSON body, for routes that read one
 */

/**
 * @typedef {object} Answer
 * @property {number} [status] default 200
 * @property {unknown} body sent as JSON
 * @property {Record<string, string>} [headers]
 * @property {() => void} [afterSent] runs once the answer has been written
 */

/**
 * @typedef {object} Route
 * @property {"GET" | "POST" | "PUT" | "DELETE"} method
 * @property {string} path exact, or ending in ":name", which matches the rest of the path
 * @property {"anyone" | "owner" | "device"} access "owner": the owner bearer session.
 *   "device": a device proves itself in the handler; in cloud mode it must also
 *   carry a session of the desktop owner, and in local mode a bearer, when
 *   sent, must be the owner's.
 * @property {"exchange" | "ticket"} [throttle] attempts counted per remote address, before anything else
 * @property {"json" | "ignored"} [body] read before the handler: parsed as JSON, or read and
 *   dropped (so that a huge one is still refused)
 * @property {(server: LocalServer, call: Call) => Answer | Promise<Answer>} handle
 */

/**
 * The exchange body: {secret, deviceId?, name?, platform?}.
 * @param {unknown} body
 */
function parseExchangeBody(body) {
	if (!isObject(body)) throw new HttpError(400, "request body must be a JSON object");
	const b = body;
	if (typeof b.secret !== "string" || b.secret.length === 0) throw new HttpError(400, "secret must be a non-empty string");
	if (b.secret.length > SECRET_MAX) throw new HttpError(400, `secret must be at most ${SECRET_MAX} characters`);
	return { secret: b.secret, deviceId: optionalDeviceId(b.deviceId), name: optionalName(b.name), platform: optionalPlatform(b.platform) };
}

/** @param {LocalServer} server @param {Call} call @returns {Promise<Answer>} */
async function createBootstrap(server, { url }) {
	const b = server.createBootstrap();
	const qr = url.searchParams.get("qr") === "1" ? { qr: await svgDataUrl(b.payload) } : {};
	return { body: { ...b, ...qr } };
}

/** @param {LocalServer} server @param {Call} call @returns {Answer} */
function exchange(server, { body, remote }) {
	const input = parseExchangeBody(body);
	const result = server.pairing.exchange({ ...input, remoteAddress: remote });
	if (!result) throw new HttpError(401, "pairing code is invalid, expired or already used");
	server.log(`paired device ${JSON.stringify(result.device.name)} (${result.deviceId}) from ${remote}`);
	return { status: 201, body: result };
}

/** @param {LocalServer} server @param {Call} call @returns {Answer} */
function revoke(server, { param }) {
	/** @type {string} */
	let deviceId;
	try {
		deviceId = decodeURIComponent(param);
	} catch {
		throw new HttpError(400, "malformed deviceId in the path");
	}
	if (!deviceId || [...deviceId].length > DEVICE_ID_MAX) throw new HttpError(400, `deviceId must be 1 to ${DEVICE_ID_MAX} characters`);
	if (!server.pairing.revoke(deviceId)) throw new HttpError(404, "no paired device with this deviceId");
	server.log(`revoked device ${deviceId}`);
	return { body: { ok: true } };
}

/** @param {LocalServer} server @param {Call} call @returns {Answer} */
function createTicket(server, { req }) {
	const credential = req.headers["x-svc-device-credential"];
	if (typeof credential !== "string" || credential.trim() === "") throw new HttpError(401, "header x-svc-device-credential is required");
	if (credential.length > SECRET_MAX) throw new HttpError(401, "device credential is invalid or revoked");
	const t = server.pairing.createTicket(credential.trim());
	if (!t) throw new HttpError(401, "device credential is invalid or revoked");
	return { body: { ticket: t.ticket, expiresAt: new Date(t.expiresAt).toISOString() } };
}

/** @param {LocalServer} server @param {Call} call @returns {Promise<Answer>} */
async function setLan(server, { body }) {
	const enabled = isObject(body) ? body.enabled : undefined;
	if (typeof enabled !== "boolean") throw new HttpError(400, 'body must be {"enabled": true | false}');
	await server.setLan(enabled);
	// With LAN off, other machines' connections end, after this answer.
	return { body: server.serverInfo(), headers: { connection: "close" }, afterSent: () => server.dropRemoteConnections() };
}

/** @type {readonly Route[]} */
export const ROUTES = [
	{
		method: "GET",
		path: "/api/health",
		access: "anyone",
		handle: (server) => ({ body: { ok: true, service: "svc-local", mode: server.mode, ownerMode: server.owner.mode } }),
	},
	{ method: "POST", path: "/api/pairing/bootstrap", access: "owner", body: "ignored", handle: createBootstrap },
	{ method: "POST", path: "/api/pairing/exchange", throttle: "exchange", access: "device", body: "json", handle: exchange },
	{ method: "GET", path: "/api/pairing/devices", access: "owner", handle: (server) => ({ body: { devices: server.pairing.listDevices() } }) },
	{ method: "DELETE", path: "/api/pairing/devices/:deviceId", access: "owner", handle: revoke },
	{ method: "POST", path: "/api/pairing/ws-ticket", throttle: "ticket", access: "device", body: "ignored", handle: createTicket },
	{ method: "GET", path: "/api/pairing/server", access: "owner", handle: (server) => ({ body: server.serverInfo() }) },
	{ method: "PUT", path: "/api/pairing/lan", access: "owner", body: "json", handle: setLan },
];
