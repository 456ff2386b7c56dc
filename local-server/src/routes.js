// The HTTP API as a table. Each route says its method and path, who may call
// it, whether calls are throttled, which body is read, and its handler, with
// the handler's own input checks beside it. requests.js applies the table in
// that order: throttle, access, body, handler.
import { HttpError } from "./answers.js";
import { optionalDeviceId, optionalName, optionalPlatform } from "./deviceInfo.js";
import { isObject } from "./json.js";
import { svgDataUrl } from "./qr.js";
import { SECRET_MAX } from "./secrets.js";
import { checkPathText, checkWorkspaceId, checkWorkspacePath } from "./workspaces.js";

/** @typedef {import("./server.js").LocalServer} LocalServer */

/**
 * What a handler gets to know about the request.
 * @typedef {object} Call
 * @property {import("node:http").IncomingMessage} req
 * @property {URL} url
 * @property {string} remote the caller's address
 * @property {string} param what a route's trailing ":name" matched (still percent-encoded), else ""
 * @property {unknown} body the parsed JSON body, for routes that read one
 * @property {import("./owner.js").OwnerAccess | null} access what the owner's plan allows, once an owner session was checked
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
 * @property {"anyone" | "owner" | "pro" | "device"} access "owner": the owner bearer session.
 *   "pro": the owner session, and in cloud mode an account with Pro or an active trial (else 402).
 *   "device": a device proves itself in the handler; in cloud mode it must also
 *   carry a session of the desktop owner, and in local mode a bearer, when
 *   sent, must be the owner's.
 * @property {"exchange" | "ticket"} [throttle] attempts counted per remote address, before anything else
 *   (an "owner" or "pro" route counts wrong owner tokens in the "owner" throttle)
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
	// Its code works once: whatever shows it (the terminal) shows a new one.
	server.emit("paired", result.deviceId);
	return { status: 201, body: result };
}

/**
 * A percent-encoded path segment, decoded; 400 when it is malformed.
 * @param {string} param @param {string} what
 */
function decodeParam(param, what) {
	try {
		return decodeURIComponent(param);
	} catch {
		throw new HttpError(400, `malformed ${what} in the path`);
	}
}

/** @param {LocalServer} server @param {Call} call @returns {Answer} */
function revoke(server, { param }) {
	// An id the exchange would refuse (empty, too long, a control character…) is malformed, not unknown.
	const deviceId = /** @type {string} */ (optionalDeviceId(decodeParam(param, "deviceId")));
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

/** @param {LocalServer} server @param {string} id */
function knownWorkspace(server, id) {
	const workspace = server.workspaces.get(id);
	if (!workspace) throw new HttpError(404, `no workspace with id ${id} (svc-local workspace list shows them)`);
	return workspace;
}

/** @param {LocalServer} server @param {Call} call @returns {Answer} */
function addWorkspace(server, { body }) {
	if (!isObject(body)) throw new HttpError(400, 'request body must be a JSON object: {"path": "<absolute folder>"}');
	const { workspace, created } = server.workspaces.add(checkWorkspacePath(body.path));
	if (created) server.log(`workspace ${workspace.id} added: ${workspace.path}`);
	return { status: created ? 201 : 200, body: workspace };
}

/** @param {LocalServer} server @param {Call} call @returns {Answer} */
function removeWorkspace(server, { param }) {
	const id = checkWorkspaceId(decodeParam(param, "workspace id"), "the workspace id in the path");
	if (!server.workspaces.remove(id)) throw new HttpError(404, `no workspace with id ${id}`);
	server.setupHealth.forget(id);
	server.log(`workspace ${id} removed`);
	return { body: { ok: true } };
}

/** @param {LocalServer} server @param {Call} call @returns {Promise<Answer>} */
async function scanSetupHealth(server, { url, access }) {
	const id = checkWorkspaceId(url.searchParams.get("workspaceId"), "workspaceId");
	const force = url.searchParams.get("force");
	if (force !== null && force !== "1" && force !== "0") throw new HttpError(400, "force must be 1 (scan again now), 0 or left out");
	const { result, cached } = await server.setupHealth.scan(knownWorkspace(server, id), { force: force === "1" });
	const { workspaceId, scannedAt, limits, packages } = result;
	return { body: { workspaceId, scannedAt, cached, access, limits, packages } };
}

/** @param {LocalServer} server @param {Call} call @returns {Promise<Answer>} */
async function updateLogger(server, { body }) {
	if (!isObject(body)) throw new HttpError(400, 'request body must be a JSON object: {"workspaceId": "<id>", "packageDir": "<dir from the scan>"}');
	const id = checkWorkspaceId(body.workspaceId, "workspaceId");
	const { packageDir } = body;
	checkPathText(packageDir, "packageDir");
	return { body: await server.setupHealth.updateLogger(knownWorkspace(server, id), packageDir) };
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
	{ method: "GET", path: "/api/workspaces", access: "owner", handle: (server) => ({ body: { workspaces: server.workspaces.list } }) },
	{ method: "POST", path: "/api/workspaces", access: "owner", body: "json", handle: addWorkspace },
	{ method: "DELETE", path: "/api/workspaces/:id", access: "owner", handle: removeWorkspace },
	{ method: "GET", path: "/api/workspace/setup-health", access: "pro", handle: scanSetupHealth },
	{ method: "POST", path: "/api/workspace/setup-health/update-logger", access: "pro", body: "json", handle: updateLogger },
];
