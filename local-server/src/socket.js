// The device WebSocket at /api/pairing/ws. An upgrade is checked (Host,
// Origin, single-use ticket) before it completes. A new socket must say hello
// within helloTimeoutMs; every frame is JSON text in one envelope
// {type, id?, ts?, data?}; a protocol-level ping goes out every heartbeatMs
// and a socket that did not answer the previous one is dropped.
import { WebSocketServer } from "ws";
import { refuseOnSocket } from "./answers.js";
import { CLOSE } from "./closeCodes.js";
import { isLoopbackHost } from "./config.js";
import { optionalName, optionalPlatform } from "./deviceInfo.js";
import { plainAddress } from "./guard.js";
import { isObject } from "./json.js";
import { SECRET_MAX } from "./secrets.js";

/** @typedef {import("node:http").IncomingMessage} IncomingMessage */
/** @typedef {import("ws").WebSocket} WebSocket */

export const WS_PATH = "/api/pairing/ws";
const MAX_FRAME_BYTES = 64 * 1024;
const MESSAGE_ID_MAX = 100;
/** How long a closed socket may take to say goodbye before it is cut. */
const CLOSE_GRACE_MS = 2000;

/**
 * A message from a device, once it is known to be an object with a string type.
 * @typedef {{type: string, id: string | undefined, data: Record<string, unknown>}} DeviceMessage
 */

/**
 * @param {string} text
 * @returns {DeviceMessage | string} the message, or what is wrong with it
 */
function parseMessage(text) {
	/** @type {unknown} */
	let value;
	try {
		value = JSON.parse(text);
	} catch {
		return "message is not valid JSON";
	}
	if (!isObject(value) || typeof value.type !== "string") return "message must be an object with a string type";
	const { type, id, data } = value;
	return {
		type,
		id: typeof id === "string" && id.length <= MESSAGE_ID_MAX ? id : undefined,
		data: isObject(data) ? data : {},
	};
}

export class DeviceSockets {
	/**
	 * @param {object} o
	 * @param {import("./pairing.js").PairingService} o.pairing
	 * @param {import("./guard.js").HostGuard} o.guard
	 * @param {string} o.serverName told to devices in the welcome message
	 * @param {() => number} o.now
	 * @param {(line: string) => void} o.log
	 * @param {number} o.heartbeatMs
	 * @param {number} o.helloTimeoutMs
	 */
	constructor({ pairing, guard, serverName, now, log, heartbeatMs, helloTimeoutMs }) {
		this.pairing = pairing;
		this.guard = guard;
		this.serverName = serverName;
		this.now = now;
		this.log = log;
		this.heartbeatMs = heartbeatMs;
		this.helloTimeoutMs = helloTimeoutMs;
		this.wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES, clientTracking: false });
		/** Open sockets: where each comes from, and whether it answered the last ping. @type {Map<WebSocket, {remoteAddress: string, alive: boolean}>} */
		this.open = new Map();
		this.heartbeat = setInterval(() => this.#beat(), heartbeatMs);
		this.heartbeat.unref();
	}

	/**
	 * The HTTP server's `upgrade` event: refuses with a JSON answer, or completes the upgrade.
	 * @param {IncomingMessage} req @param {import("node:stream").Duplex} socket @param {Buffer} head
	 */
	upgrade(req, socket, head) {
		socket.on("error", () => {});
		try {
			if (!this.guard.hostAllowed(req.headers.host)) return refuseOnSocket(socket, 403, "Host is not an address of this server");
			/** @type {URL} */
			let url;
			try {
				url = new URL(req.url ?? "/", "http://local");
			} catch {
				return refuseOnSocket(socket, 400, "malformed request URL");
			}
			if (url.pathname !== WS_PATH) return refuseOnSocket(socket, 404, "not found");
			const origin = req.headers.origin;
			if (origin !== undefined && !this.guard.originAllowed(origin)) return refuseOnSocket(socket, 403, "WebSocket upgrades from another origin are refused");
			const ticket = url.searchParams.get("ticket");
			if (!ticket) return refuseOnSocket(socket, 401, "a ticket query parameter is required");
			// One longer than any ticket is no ticket, refused as an unknown one is.
			const device = ticket.length > SECRET_MAX ? null : this.pairing.consumeTicket(ticket);
			if (!device) return refuseOnSocket(socket, 401, "ticket is invalid, expired or already used");
			this.wss.handleUpgrade(req, socket, head, (ws) => this.#onConnection(ws, req, device.deviceId));
		} catch (err) {
			this.log(`upgrade failed: ${err instanceof Error ? err.stack : String(err)}`);
			refuseOnSocket(socket, 500, "internal error");
		}
	}

	/**
	 * @param {WebSocket} ws @param {IncomingMessage} req @param {string} deviceId
	 */
	#onConnection(ws, req, deviceId) {
		const remoteAddress = plainAddress(req.socket.remoteAddress);
		const state = { remoteAddress, alive: true };
		this.open.set(ws, state);
		/** @type {ReturnType<typeof setTimeout> | undefined} */
		let killTimer;
		const connection = {
			remoteAddress,
			hello: false,
			/** @param {number} code @param {string} reason */
			close: (code, reason) => {
				ws.close(code, reason);
				killTimer = setTimeout(() => ws.terminate(), CLOSE_GRACE_MS);
				killTimer.unref();
			},
		};
		/** @param {string} type @param {object} [data] @param {string} [id] */
		const send = (type, data, id) => {
			if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type, ...(id ? { id } : {}), ts: new Date(this.now()).toISOString(), ...(data ? { data } : {}) }));
		};
		let helloDone = false;
		const helloTimer = setTimeout(() => ws.close(CLOSE.NO_HELLO, "hello expected"), this.helloTimeoutMs);
		helloTimer.unref();
		this.pairing.attach(deviceId, connection);
		this.log(`device ${deviceId} connected from ${remoteAddress}`);

		ws.on("pong", () => {
			state.alive = true;
			this.pairing.touch(deviceId);
		});
		ws.on("message", (data, isBinary) => {
			state.alive = true;
			if (isBinary) return send("error", { message: "messages are JSON text" });
			const msg = parseMessage(data.toString());
			if (typeof msg === "string") return send("error", { message: msg });
			if (msg.type === "hello") {
				try {
					const name = optionalName(msg.data.name);
					const platform = optionalPlatform(msg.data.platform);
					clearTimeout(helloTimer);
					helloDone = true;
					connection.hello = true;
					this.pairing.touch(deviceId, { name, platform });
					return send("welcome", { deviceId, server: this.serverName, heartbeatMs: this.heartbeatMs }, msg.id);
				} catch (err) {
					return send("error", { message: err instanceof Error ? err.message : String(err) }, msg.id);
				}
			}
			if (!helloDone) return send("error", { message: "send hello first" }, msg.id);
			this.pairing.touch(deviceId);
			if (msg.type === "ping") return send("pong", undefined, msg.id);
			return send("error", { message: `unknown message type ${JSON.stringify(msg.type.slice(0, 40))}` }, msg.id);
		});
		ws.on("error", () => {});
		ws.on("close", () => {
			this.open.delete(ws);
			clearTimeout(helloTimer);
			if (killTimer) clearTimeout(killTimer);
			this.pairing.detach(deviceId, connection);
			this.log(`device ${deviceId} disconnected`);
		});
	}

	/** A socket that did not answer the last ping is dropped; the others are pinged. */
	#beat() {
		for (const [ws, state] of this.open) {
			if (!state.alive) {
				ws.terminate();
				continue;
			}
			state.alive = false;
			try {
				ws.ping();
			} catch {
				ws.terminate();
			}
		}
	}

	/** LAN access was turned off: sockets from other machines end. */
	closeRemote() {
		for (const [ws, { remoteAddress }] of this.open) if (!isLoopbackHost(remoteAddress)) ws.close(CLOSE.SHUTDOWN, "LAN access disabled");
	}

	/** The server is stopping: every socket is asked to close, and the heartbeat stops. */
	closeAll() {
		clearInterval(this.heartbeat);
		for (const ws of this.open.keys()) ws.close(CLOSE.SHUTDOWN, "server shutting down");
	}

	/** Cuts whatever did not close in time. */
	terminateAll() {
		for (const ws of this.open.keys()) ws.terminate();
	}
}
