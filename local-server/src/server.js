// The desktop local server: pairing routes (spec 4.3, DESIGN.md 5.6), the
// device WebSocket, the pairing page, and the listener that the LAN toggle
// moves between 127.0.0.1 and 0.0.0.0 (spec 4.4).
//
// Routes:
//   GET    /                                pairing page (static; asks for the owner token)
//   GET    /pair.js /pair.css /refresh.js   its assets
//   GET    /api/health                      {ok, service, mode, ownerMode} (no auth, no secrets)
//   POST   /api/pairing/bootstrap[?qr=1]    owner      -> {secret, expiresAt, payload[, qr]}
//   POST   /api/pairing/exchange            bootstrap secret (+ owner bearer in cloud mode) -> 201 {deviceId, credential, device}
//   GET    /api/pairing/devices             owner      -> {devices: [...]}
//   DELETE /api/pairing/devices/:deviceId   owner      -> {ok: true}
//   POST   /api/pairing/ws-ticket           x-svc-device-credential (+ owner bearer in cloud mode) -> {ticket, expiresAt}
//   GET    /api/pairing/server              owner      -> listener, endpoints and LAN state
//   PUT    /api/pairing/lan {enabled}       owner      -> restarts the listener; same answer as GET /api/pairing/server
//   GET    /api/pairing/ws?ticket=          WebSocket upgrade (ticket, Host and Origin checked before it completes)
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { WebSocketServer } from "ws";
import { MODE_PORTS, envHost, isLoopbackHost, parseMode, parsePort, stateDirFrom } from "./config.js";
import { classifyEndpoints, legacyBaseUrl, machineInterfaces, tailscaleHostname } from "./endpoints.js";
import { HttpError } from "./errors.js";
import { ensurePrivateDir, readJsonFile, writeFileAtomic } from "./fsutil.js";
import { OwnerAuth } from "./owner.js";
import { CLOSE, DEVICE_ID_MAX, NAME_MAX, PairingService, normalizePlatform } from "./pairing.js";
import { svgDataUrl } from "./qr.js";
import { Store } from "./store.js";
import { Throttle } from "./throttle.js";

export const SERVER_FILE = "local-server.json";
const BODY_LIMIT = 16 * 1024;
const DRAIN_LIMIT = 1024 * 1024;
const SECRET_MAX = 512;
const WS_PATH = "/api/pairing/ws";
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const HERE = path.dirname(fileURLToPath(import.meta.url));
const PUBLIC_DIR = path.join(HERE, "..", "public");

const STATIC = {
	"/": { file: path.join(PUBLIC_DIR, "index.html"), type: "text/html; charset=utf-8" },
	"/index.html": { file: path.join(PUBLIC_DIR, "index.html"), type: "text/html; charset=utf-8" },
	"/pair.js": { file: path.join(PUBLIC_DIR, "pair.js"), type: "text/javascript; charset=utf-8" },
	"/pair.css": { file: path.join(PUBLIC_DIR, "pair.css"), type: "text/css; charset=utf-8" },
	"/refresh.js": { file: path.join(HERE, "refresh.js"), type: "text/javascript; charset=utf-8" },
};

const PAGE_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** @param {string | undefined} address */
function plainAddress(address) {
	if (!address) return "unknown";
	return address.startsWith("::ffff:") ? address.slice(7) : address;
}

/**
 * Control characters and bidirectional formatting characters (which can make
 * a name display as another) are removed from names shown in the page and logs.
 * @param {string} s
 */
function stripControl(s) {
	// eslint-disable-next-line no-control-regex
	return s.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, "");
}

/**
 * Validates an optional display name (exchange body and hello message).
 * @param {unknown} value @param {string} field
 * @returns {string | undefined}
 */
export function optionalName(value, field = "name") {
	if (value === undefined || value === null) return undefined;
	if (typeof value !== "string") throw new HttpError(400, `${field} must be a string`);
	const name = stripControl(value).trim();
	if ([...name].length > NAME_MAX) throw new HttpError(400, `${field} must be at most ${NAME_MAX} characters`);
	return name || undefined;
}

/**
 * @param {unknown} value
 * @returns {string | undefined}
 */
export function optionalPlatform(value) {
	if (value === undefined || value === null) return undefined;
	if (typeof value !== "string") throw new HttpError(400, "platform must be a string");
	if (value.length > 64) throw new HttpError(400, "platform must be at most 64 characters");
	return normalizePlatform(value);
}

/**
 * The exchange body of spec 4.3: {secret, deviceId?, name?, platform?}.
 * @param {unknown} body
 */
export function parseExchangeBody(body) {
	if (!body || typeof body !== "object" || Array.isArray(body)) throw new HttpError(400, "request body must be a JSON object");
	const b = /** @type {Record<string, unknown>} */ (body);
	if (typeof b.secret !== "string" || b.secret.length === 0) throw new HttpError(400, "secret must be a non-empty string");
	if (b.secret.length > SECRET_MAX) throw new HttpError(400, `secret must be at most ${SECRET_MAX} characters`);
	/** @type {string | undefined} */
	let deviceId;
	if (b.deviceId !== undefined && b.deviceId !== null) {
		if (typeof b.deviceId !== "string") throw new HttpError(400, "deviceId must be a string");
		const length = [...b.deviceId].length;
		if (length === 0 || length > DEVICE_ID_MAX) throw new HttpError(400, `deviceId must be 1 to ${DEVICE_ID_MAX} characters`);
		// eslint-disable-next-line no-control-regex
		if (/[\u0000-\u001f\u007f]/.test(b.deviceId)) throw new HttpError(400, "deviceId must not contain control characters");
		// The owner revokes a device by naming it in a URL path: an id no path can carry could never be revoked.
		if (LONE_SURROGATE.test(b.deviceId)) throw new HttpError(400, "deviceId must be valid Unicode (no lone surrogates)");
		if (b.deviceId === "." || b.deviceId === "..") throw new HttpError(400, 'deviceId must not be "." or ".."');
		deviceId = b.deviceId;
	}
	return { secret: b.secret, deviceId, name: optionalName(b.name), platform: optionalPlatform(b.platform) };
}

/**
 * Reads a request body up to BODY_LIMIT characters without buffering more.
 * @param {http.IncomingMessage} req
 * @returns {Promise<string>}
 */
function readBody(req) {
	return new Promise((resolve, reject) => {
		const declared = Number(req.headers["content-length"]);
		let size = 0;
		/** @type {Buffer[]} */
		const chunks = [];
		let tooBig = Number.isFinite(declared) && declared > BODY_LIMIT;
		if (tooBig && declared > DRAIN_LIMIT) {
			reject(new HttpError(413, `request body is larger than ${BODY_LIMIT} bytes`, { connection: "close" }));
			req.resume();
			return;
		}
		req.on("data", (/** @type {Buffer} */ chunk) => {
			size += chunk.length;
			if (size > BODY_LIMIT) tooBig = true;
			if (size > DRAIN_LIMIT) {
				reject(new HttpError(413, `request body is larger than ${BODY_LIMIT} bytes`, { connection: "close" }));
				req.destroy();
				return;
			}
			if (!tooBig) chunks.push(chunk);
		});
		req.on("end", () => {
			if (tooBig) reject(new HttpError(413, `request body is larger than ${BODY_LIMIT} bytes`));
			else resolve(Buffer.concat(chunks).toString("utf8"));
		});
		req.on("error", reject);
	});
}

/** @param {http.IncomingMessage} req */
async function readJson(req) {
	const text = await readBody(req);
	if (text.trim() === "") return undefined;
	try {
		return JSON.parse(text);
	} catch {
		throw new HttpError(400, "request body is not valid JSON");
	}
}

/**
 * @param {http.ServerResponse} res @param {number} status @param {unknown} body
 * @param {Record<string, string>} [headers]
 */
function sendJson(res, status, body, headers = {}) {
	if (res.headersSent) return;
	const text = JSON.stringify(body);
	res.writeHead(status, {
		"content-type": "application/json; charset=utf-8",
		"content-length": Buffer.byteLength(text),
		...headers,
	});
	res.end(text);
}

/** Headers of every API answer: some carry secrets, none may be cached. */
const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" };

/**
 * Writes a refusal on a raw socket during an upgrade and closes it.
 * @param {import("node:stream").Duplex} socket @param {number} status @param {string} message
 */
function refuseUpgrade(socket, status, message) {
	const body = JSON.stringify({ error: message });
	if (socket.writable) {
		socket.write(
			`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
				`Cache-Control: no-store\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
		);
	}
	socket.destroy();
}

/**
 * Parses a Host header value into a lower-case name and a port.
 * @param {string | undefined} value
 * @returns {{name: string, port: number} | null}
 */
export function parseHostHeader(value) {
	if (!value || value.length > 300) return null;
	const m = /^(\[[0-9a-f:.]+\]|[^:[\]\s/@]+)(?::(\d{1,5}))?$/i.exec(value.trim());
	if (!m) return null;
	const name = m[1].toLowerCase().replace(/^\[|\]$/g, "").replace(/\.$/, "");
	const port = m[2] === undefined ? 80 : Number(m[2]);
	return port > 65535 ? null : { name, port };
}

/**
 * @typedef {object} ServerOptions
 * @property {NodeJS.ProcessEnv} [env] environment to read SVC_* from (default process.env)
 * @property {string} [stateDir] state directory (default SVC_HOME or ~/.svc)
 * @property {string} [mode] production | isolated | preview (default SVC_MODE)
 * @property {number} [port] port to try first (0: any free port); default SVC_PORT, else the mode's port
 * @property {string} [host] listening host; default from the environment, else the LAN toggle
 * @property {() => number} [now] clock in ms (injectable for tests)
 * @property {typeof fetch} [fetch] used for the cloud /api/auth/me check
 * @property {() => Record<string, import("./endpoints.js").InterfaceAddress[] | undefined>} [interfaces]
 * @property {() => Promise<string | null>} [overlayHostname] MagicDNS name lookup
 * @property {string} [name] desktop display name (default the host name)
 * @property {number} [heartbeatMs] WebSocket ping interval (default 30 s)
 * @property {number} [helloTimeoutMs] time a new socket has to say hello (default 10 s)
 * @property {{perKey?: number, global?: number, windowMs?: number}} [exchangeThrottle]
 * @property {(line: string) => void} [log]
 */

export class LocalServer {
	/** @param {ServerOptions} [options] */
	constructor(options = {}) {
		const env = options.env ?? process.env;
		this.env = env;
		this.stateDir = options.stateDir ?? stateDirFrom(env);
		this.mode = parseMode(options.mode ?? env.SVC_MODE);
		this.now = options.now ?? Date.now;
		this.log = options.log ?? ((line) => process.stderr.write(`svc-local: ${line}\n`));
		this.name = options.name ?? os.hostname();
		this.heartbeatMs = options.heartbeatMs ?? 30_000;
		this.helloTimeoutMs = options.helloTimeoutMs ?? 10_000;
		this.interfaces = options.interfaces ?? machineInterfaces;
		this.lookupOverlayHostname = options.overlayHostname ?? tailscaleHostname;
		/** @type {string | null} */
		this.overlayHostname = null;
		const explicitPort = options.port ?? parsePort(env.SVC_PORT);
		this.preferredPort = explicitPort ?? MODE_PORTS[this.mode];

		ensurePrivateDir(this.stateDir);
		this.store = new Store(this.stateDir);
		this.owner = new OwnerAuth({ stateDir: this.stateDir, store: this.store, env, now: this.now, fetch: options.fetch });
		this.pairing = new PairingService({ store: this.store, now: this.now, ownerId: this.owner.ownerId });

		/** Host fixed by SVC_SERVER_HOST / SVC_ALLOW_LAN / the caller: the LAN toggle is then locked. */
		this.managedHost = options.host ?? envHost(env);
		this.host = this.managedHost ?? (this.store.data.lanEnabled ? "0.0.0.0" : "127.0.0.1");
		this.port = 0;

		const t = options.exchangeThrottle ?? {};
		this.exchangeThrottle = new Throttle({ perKey: t.perKey ?? 10, global: t.global ?? 30, windowMs: t.windowMs ?? 60_000, now: this.now });
		this.ticketThrottle = new Throttle({ perKey: 120, global: 1200, windowMs: 60_000, now: this.now });

		this.wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024, clientTracking: true });
		this.http = http.createServer({ requestTimeout: 30_000, headersTimeout: 15_000, maxHeaderSize: 16 * 1024 });
		this.http.on("request", (req, res) => this.#onRequest(req, res));
		this.http.on("upgrade", (req, socket, head) => this.#onUpgrade(req, socket, head));
		this.http.on("clientError", (_err, socket) => {
			if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: application/json\r\n\r\n{"error":"malformed request"}');
			else socket.destroy();
		});
		/** @type {Set<import("node:net").Socket>} */
		this.sockets = new Set();
		this.http.on("connection", (socket) => {
			this.sockets.add(socket);
			socket.on("close", () => this.sockets.delete(socket));
		});
		this.heartbeat = setInterval(() => this.#beat(), this.heartbeatMs);
		this.heartbeat.unref();
		/** @type {{at: number, names: Set<string>} | null} */
		this.hostNamesCache = null;
		this.closed = false;
		/** @type {Promise<unknown>} */
		this.lanQueue = Promise.resolve();
	}

	/** Starts listening: the mode's port, else another free one. */
	async listen() {
		this.overlayHostname = await this.lookupOverlayHostname().catch(() => null);
		await this.#bind(this.host, this.preferredPort);
		this.#writeServerFile();
		return this;
	}

	/**
	 * @param {string} host @param {number} port
	 */
	async #bind(host, port) {
		/** @param {number} p */
		const attempt = (p) =>
			new Promise((resolve, reject) => {
				const onError = (/** @type {NodeJS.ErrnoException} */ err) => {
					this.http.off("listening", onListening);
					reject(err);
				};
				const onListening = () => {
					this.http.off("error", onError);
					resolve(undefined);
				};
				this.http.once("error", onError);
				this.http.once("listening", onListening);
				this.http.listen({ port: p, host, exclusive: true });
			});
		try {
			await attempt(port);
		} catch (err) {
			if (/** @type {NodeJS.ErrnoException} */ (err).code !== "EADDRINUSE" || port === 0) throw err;
			this.log(`port ${port} is taken; using another free port`);
			await attempt(0);
		}
		const addr = /** @type {import("node:net").AddressInfo} */ (this.http.address());
		this.port = addr.port;
		this.host = host;
		this.hostNamesCache = null;
	}

	/** Where devices can reach this server, best first (spec 4.4). */
	get endpoints() {
		return classifyEndpoints({ interfaces: this.interfaces(), overlayHostname: this.overlayHostname, host: this.host, port: this.port });
	}

	get baseUrls() {
		return this.endpoints.map((e) => e.url);
	}

	get baseUrl() {
		return legacyBaseUrl(this.endpoints);
	}

	/** The page's own URL on this machine. */
	get localUrl() {
		const h = isLoopbackHost(this.host) || this.host === "0.0.0.0" || this.host === "::" ? "127.0.0.1" : this.host;
		return `http://${net.isIPv6(h) ? `[${h}]` : h}:${this.port}/`;
	}

	get lanEnabled() {
		return !isLoopbackHost(this.host);
	}

	/** The version-3 QR payload for a bootstrap secret (spec 2.8). @param {string} secret */
	payloadFor(secret) {
		const endpoints = this.endpoints;
		/** @type {{v: 3, name?: string, baseUrl: string, baseUrls: string[], pairToken: string}} */
		const payload = { v: 3, name: this.name || undefined, baseUrl: legacyBaseUrl(endpoints), baseUrls: endpoints.map((e) => e.url), pairToken: secret };
		if (!payload.name) delete payload.name;
		return payload;
	}

	/** A fresh bootstrap with its QR payload (used by the CLI in-process and by the route). */
	createBootstrap() {
		const { secret, expiresAt } = this.pairing.createBootstrap();
		return { secret, expiresAt: new Date(expiresAt).toISOString(), payload: this.payloadFor(secret) };
	}

	serverInfo() {
		return {
			name: this.name,
			mode: this.mode,
			ownerMode: this.owner.mode,
			host: this.host,
			port: this.port,
			lan: { enabled: this.lanEnabled, managed: this.managedHost !== undefined },
			baseUrl: this.baseUrl,
			baseUrls: this.baseUrls,
			endpoints: this.endpoints,
		};
	}

	#writeServerFile() {
		const info = { pid: process.pid, port: this.port, host: this.host, baseUrl: this.baseUrl, baseUrls: this.baseUrls, mode: this.mode };
		writeFileAtomic(path.join(this.stateDir, SERVER_FILE), `${JSON.stringify(info, null, "\t")}\n`);
	}

	/**
	 * The LAN toggle: restarts the listener on 0.0.0.0 (enabled) or 127.0.0.1.
	 * @param {boolean} enabled
	 */
	setLan(enabled) {
		// One listener move at a time (a double click must not race two binds).
		const next = this.lanQueue.then(() => this.#moveListener(enabled));
		this.lanQueue = next.catch(() => {});
		return next;
	}

	/** @param {boolean} enabled */
	async #moveListener(enabled) {
		if (this.managedHost !== undefined) {
			throw new HttpError(409, "the listening address is set by SVC_SERVER_HOST / SVC_ALLOW_LAN; change the environment and restart svc-local");
		}
		const host = enabled ? "0.0.0.0" : "127.0.0.1";
		if (host === this.host) return;
		const port = this.port;
		// Stop accepting on the old address, then bind the new one; the same
		// port is normally free again at once. net.Server's close, not
		// http.Server's: that one also drops idle keep-alive connections, and a
		// just-accepted connection whose request is not parsed yet counts as idle.
		net.Server.prototype.close.call(this.http);
		try {
			await this.#bind(host, port);
		} catch (err) {
			this.log(`could not listen on ${host}: ${/** @type {Error} */ (err).message}; staying on the old address`);
			await this.#bind(enabled ? "127.0.0.1" : "0.0.0.0", port).catch(() => {});
			throw new HttpError(500, `could not listen on ${host}`);
		}
		this.store.data.lanEnabled = enabled;
		this.store.save();
		if (enabled) this.overlayHostname = await this.lookupOverlayHostname().catch(() => null);
		this.#writeServerFile();
		this.log(`listening on ${host}:${this.port} (LAN ${enabled ? "enabled" : "disabled"})`);
	}

	/** With LAN off, connections from other machines end (after the current answer). */
	#dropRemoteConnections() {
		if (this.lanEnabled) return;
		for (const ws of this.wss.clients) {
			const remote = plainAddress(/** @type {any} */ (ws)._socket?.remoteAddress);
			if (!isLoopbackHost(remote)) ws.close(CLOSE.SHUTDOWN, "LAN access disabled");
		}
		for (const socket of this.sockets) if (!isLoopbackHost(plainAddress(socket.remoteAddress))) socket.destroy();
	}

	/** Names and addresses this server answers to (DNS-rebinding defence). */
	#hostNames() {
		const now = Date.now();
		if (this.hostNamesCache && now - this.hostNamesCache.at < 5000) return this.hostNamesCache.names;
		const names = new Set(["localhost", "127.0.0.1", "::1"]);
		if (!isLoopbackHost(this.host)) {
			names.add(this.host.toLowerCase());
			const hostname = os.hostname().toLowerCase();
			if (hostname) {
				names.add(hostname);
				names.add(`${hostname}.local`);
			}
			if (this.overlayHostname) names.add(this.overlayHostname.toLowerCase());
			for (const addrs of Object.values(this.interfaces())) for (const a of addrs ?? []) names.add(a.address.toLowerCase().split("%")[0]);
		}
		this.hostNamesCache = { at: now, names };
		return names;
	}

	/** @param {string | undefined} hostHeader */
	#hostAllowed(hostHeader) {
		const h = parseHostHeader(hostHeader);
		return !!h && h.port === this.port && this.#hostNames().has(h.name);
	}

	/** An Origin is ours when it is http(s)://<one of our names>:<our port>. @param {string} origin */
	#originAllowed(origin) {
		try {
			const u = new URL(origin);
			if (u.protocol !== "http:" && u.protocol !== "https:") return false;
			const port = u.port ? Number(u.port) : u.protocol === "https:" ? 443 : 80;
			return port === this.port && this.#hostNames().has(u.hostname.toLowerCase().replace(/^\[|\]$/g, ""));
		} catch {
			return false;
		}
	}

	/**
	 * @param {http.IncomingMessage} req @param {http.ServerResponse} res
	 */
	async #onRequest(req, res) {
		const requestId = randomUUID().slice(0, 8);
		res.setHeader("x-content-type-options", "nosniff");
		res.setHeader("referrer-policy", "no-referrer");
		res.setHeader("x-frame-options", "DENY");
		try {
			if (!this.#hostAllowed(req.headers.host)) {
				throw new HttpError(403, `Host ${JSON.stringify(req.headers.host ?? "")} is not an address of this server`);
			}
			let url;
			try {
				url = new URL(req.url ?? "/", "http://local");
			} catch {
				throw new HttpError(400, "malformed request URL");
			}
			if (!url.pathname.startsWith("/api/")) return this.#serveStatic(req, res, url.pathname);
			for (const [k, v] of Object.entries(NO_STORE)) res.setHeader(k, v);
			const origin = req.headers.origin;
			if (origin !== undefined && !this.#originAllowed(origin)) throw new HttpError(403, "cross-origin requests are not accepted");
			await this.#route(req, res, url);
		} catch (err) {
			if (err instanceof HttpError) {
				if (err.status >= 500) this.log(`[${requestId}] ${req.method} ${req.url?.split("?")[0]}: ${err.message}`);
				sendJson(res, err.status, { error: err.message }, { ...NO_STORE, ...err.headers });
			} else {
				this.log(`[${requestId}] ${req.method} ${req.url?.split("?")[0]} failed: ${/** @type {Error} */ (err)?.stack ?? err}`);
				sendJson(res, 500, { error: `internal error (request ${requestId})` }, NO_STORE);
			}
		}
	}

	/**
	 * @param {http.IncomingMessage} req @param {http.ServerResponse} res @param {string} pathname
	 */
	#serveStatic(req, res, pathname) {
		const entry = STATIC[/** @type {keyof typeof STATIC} */ (pathname)];
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

	/** @param {http.IncomingMessage} req */
	async #requireOwner(req) {
		const r = await this.owner.check(req.headers.authorization);
		if (!r.ok) throw new HttpError(r.status, r.error);
	}

	/**
	 * Device routes: in cloud mode the device must also carry a session of the
	 * desktop owner; in local mode a bearer, when sent, must be the owner's.
	 * @param {http.IncomingMessage} req
	 */
	async #requireDeviceOwnerSession(req) {
		if (this.owner.mode === "cloud" || req.headers.authorization !== undefined) await this.#requireOwner(req);
	}

	/**
	 * @param {http.IncomingMessage} req @param {http.ServerResponse} res @param {URL} url
	 */
	async #route(req, res, url) {
		const p = url.pathname;
		const method = req.method ?? "GET";
		/** @param {string} allowed */
		const only = (allowed) => {
			if (!allowed.split(", ").includes(method)) throw new HttpError(405, `method ${method} not allowed here`, { allow: allowed });
		};
		const remote = plainAddress(req.socket.remoteAddress);

		if (p === "/api/health") {
			only("GET");
			return sendJson(res, 200, { ok: true, service: "svc-local", mode: this.mode, ownerMode: this.owner.mode });
		}
		if (p === "/api/pairing/bootstrap") {
			only("POST");
			await this.#requireOwner(req);
			await readBody(req); // no body is expected; a huge one is still refused
			const b = this.createBootstrap();
			const qr = url.searchParams.get("qr") === "1" ? { qr: await svgDataUrl(b.payload) } : {};
			return sendJson(res, 200, { ...b, ...qr });
		}
		if (p === "/api/pairing/exchange") {
			only("POST");
			const wait = this.exchangeThrottle.hit(remote);
			if (wait) throw new HttpError(429, "too many pairing attempts; try again later", { "retry-after": String(wait) });
			await this.#requireDeviceOwnerSession(req);
			const input = parseExchangeBody(await readJson(req));
			const result = this.pairing.exchange({ ...input, remoteAddress: remote });
			if (!result) throw new HttpError(401, "pairing code is invalid, expired or already used");
			this.log(`paired device ${JSON.stringify(result.device.name)} (${result.deviceId}) from ${remote}`);
			return sendJson(res, 201, result);
		}
		if (p === "/api/pairing/devices") {
			only("GET");
			await this.#requireOwner(req);
			return sendJson(res, 200, { devices: this.pairing.listDevices() });
		}
		if (p.startsWith("/api/pairing/devices/")) {
			only("DELETE");
			await this.#requireOwner(req);
			let deviceId;
			try {
				deviceId = decodeURIComponent(p.slice("/api/pairing/devices/".length));
			} catch {
				throw new HttpError(400, "malformed deviceId in the path");
			}
			if (!deviceId || [...deviceId].length > DEVICE_ID_MAX) throw new HttpError(400, `deviceId must be 1 to ${DEVICE_ID_MAX} characters`);
			if (!this.pairing.revoke(deviceId)) throw new HttpError(404, "no paired device with this deviceId");
			this.log(`revoked device ${deviceId}`);
			return sendJson(res, 200, { ok: true });
		}
		if (p === "/api/pairing/ws-ticket") {
			only("POST");
			const wait = this.ticketThrottle.hit(remote);
			if (wait) throw new HttpError(429, "too many ticket requests; try again later", { "retry-after": String(wait) });
			await this.#requireDeviceOwnerSession(req);
			await readBody(req);
			const credential = req.headers["x-svc-device-credential"];
			if (typeof credential !== "string" || credential.trim() === "") throw new HttpError(401, "header x-svc-device-credential is required");
			if (credential.length > SECRET_MAX) throw new HttpError(401, "device credential is invalid or revoked");
			const t = this.pairing.createTicket(credential.trim());
			if (!t) throw new HttpError(401, "device credential is invalid or revoked");
			return sendJson(res, 200, { ticket: t.ticket, expiresAt: new Date(t.expiresAt).toISOString() });
		}
		if (p === "/api/pairing/server") {
			only("GET");
			await this.#requireOwner(req);
			return sendJson(res, 200, this.serverInfo());
		}
		if (p === "/api/pairing/lan") {
			only("PUT");
			await this.#requireOwner(req);
			const body = await readJson(req);
			if (!body || typeof body !== "object" || typeof body.enabled !== "boolean") throw new HttpError(400, "body must be {\"enabled\": true | false}");
			await this.setLan(body.enabled);
			res.on("finish", () => this.#dropRemoteConnections());
			return sendJson(res, 200, this.serverInfo(), { connection: "close" });
		}
		if (p === WS_PATH) throw new HttpError(426, "this path takes a WebSocket upgrade", { upgrade: "websocket" });
		throw new HttpError(404, "not found");
	}

	/**
	 * Authenticates a WebSocket upgrade (Host, Origin, ticket) before completing it.
	 * @param {http.IncomingMessage} req @param {import("node:stream").Duplex} socket @param {Buffer} head
	 */
	#onUpgrade(req, socket, head) {
		socket.on("error", () => {});
		try {
			if (!this.#hostAllowed(req.headers.host)) return refuseUpgrade(socket, 403, "Host is not an address of this server");
			let url;
			try {
				url = new URL(req.url ?? "/", "http://local");
			} catch {
				return refuseUpgrade(socket, 400, "malformed request URL");
			}
			if (url.pathname !== WS_PATH) return refuseUpgrade(socket, 404, "not found");
			const origin = req.headers.origin;
			if (origin !== undefined && !this.#originAllowed(origin)) return refuseUpgrade(socket, 403, "WebSocket upgrades from another origin are refused");
			const ticket = url.searchParams.get("ticket");
			if (!ticket || ticket.length > SECRET_MAX) return refuseUpgrade(socket, 401, "a ticket query parameter is required");
			const device = this.pairing.consumeTicket(ticket);
			if (!device) return refuseUpgrade(socket, 401, "ticket is invalid, expired or already used");
			this.wss.handleUpgrade(req, socket, head, (ws) => this.#onConnection(ws, req, device.deviceId));
		} catch (err) {
			this.log(`upgrade failed: ${/** @type {Error} */ (err)?.stack ?? err}`);
			refuseUpgrade(socket, 500, "internal error");
		}
	}

	/**
	 * @param {import("ws").WebSocket & {isAlive?: boolean}} ws @param {http.IncomingMessage} req @param {string} deviceId
	 */
	#onConnection(ws, req, deviceId) {
		const remoteAddress = plainAddress(req.socket.remoteAddress);
		/** @type {ReturnType<typeof setTimeout> | undefined} */
		let killTimer;
		const connection = {
			remoteAddress,
			/** @param {number} code @param {string} reason */
			close: (code, reason) => {
				ws.close(code, reason);
				killTimer = setTimeout(() => ws.terminate(), 2000);
				killTimer.unref();
			},
		};
		/** @param {string} type @param {object} [data] @param {string} [id] */
		const send = (type, data, id) => {
			if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type, ...(id ? { id } : {}), ts: new Date(this.now()).toISOString(), ...(data ? { data } : {}) }));
		};
		ws.isAlive = true;
		let helloDone = false;
		const helloTimer = setTimeout(() => ws.close(CLOSE.NO_HELLO, "hello expected"), this.helloTimeoutMs);
		helloTimer.unref();
		this.pairing.attach(deviceId, connection);
		this.log(`device ${deviceId} connected from ${remoteAddress}`);

		ws.on("pong", () => {
			ws.isAlive = true;
			this.pairing.touch(deviceId);
		});
		ws.on("message", (data, isBinary) => {
			ws.isAlive = true;
			if (isBinary) return send("error", { message: "messages are JSON text" });
			/** @type {any} */
			let msg;
			try {
				msg = JSON.parse(data.toString());
			} catch {
				return send("error", { message: "message is not valid JSON" });
			}
			if (!msg || typeof msg !== "object" || typeof msg.type !== "string") return send("error", { message: "message must be an object with a string type" });
			const id = typeof msg.id === "string" && msg.id.length <= 100 ? msg.id : undefined;
			if (msg.type === "hello") {
				try {
					const d = msg.data && typeof msg.data === "object" ? msg.data : {};
					const name = optionalName(d.name);
					const platform = optionalPlatform(d.platform);
					clearTimeout(helloTimer);
					helloDone = true;
					this.pairing.touch(deviceId, { name, platform });
					return send("welcome", { deviceId, server: this.name, heartbeatMs: this.heartbeatMs }, id);
				} catch (err) {
					return send("error", { message: /** @type {Error} */ (err).message }, id);
				}
			}
			if (!helloDone) return send("error", { message: "send hello first" }, id);
			this.pairing.touch(deviceId);
			if (msg.type === "ping") return send("pong", undefined, id);
			return send("error", { message: `unknown message type ${JSON.stringify(String(msg.type).slice(0, 40))}` }, id);
		});
		ws.on("error", () => {});
		ws.on("close", () => {
			clearTimeout(helloTimer);
			if (killTimer) clearTimeout(killTimer);
			this.pairing.detach(deviceId, connection);
			this.log(`device ${deviceId} disconnected`);
		});
	}

	/** Heartbeat: a socket that did not answer the last ping is dropped. */
	#beat() {
		for (const client of this.wss.clients) {
			const ws = /** @type {import("ws").WebSocket & {isAlive?: boolean}} */ (client);
			if (ws.isAlive === false) {
				ws.terminate();
				continue;
			}
			ws.isAlive = false;
			try {
				ws.ping();
			} catch {
				ws.terminate();
			}
		}
	}

	/** Stops the server: sockets closed, presence written, local-server.json removed. */
	async close() {
		if (this.closed) return;
		this.closed = true;
		clearInterval(this.heartbeat);
		for (const ws of this.wss.clients) ws.close(CLOSE.SHUTDOWN, "server shutting down");
		this.pairing.flushPresence();
		await new Promise((resolve) => {
			this.http.close(() => resolve(undefined));
			this.http.closeAllConnections();
			for (const ws of this.wss.clients) ws.terminate();
		});
		try {
			const file = path.join(this.stateDir, SERVER_FILE);
			if (readJsonFile(file)?.pid === process.pid) fs.rmSync(file, { force: true });
		} catch {
			// best effort
		}
	}
}

/**
 * Creates and starts a server.
 * @param {ServerOptions} [options]
 */
export async function startServer(options) {
	const server = new LocalServer(options);
	try {
		await server.listen();
	} catch (err) {
		await server.close().catch(() => {});
		throw err;
	}
	return server;
}
