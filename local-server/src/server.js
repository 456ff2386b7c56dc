// The desktop local server: owns the listener and the state behind it. The
// listener sits on 127.0.0.1 until the owner turns LAN access on (then
// 0.0.0.0, same port), or where SVC_SERVER_HOST / SVC_ALLOW_LAN put it. HTTP
// requests go to requests.js (guard, page, route table in routes.js),
// WebSocket upgrades to socket.js. The HTTP API is listed in README.md.
import { EventEmitter } from "node:events";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { HttpError, refuseOnSocket } from "./answers.js";
import { MODE_PORTS, envHost, isLoopbackHost, parseMode, parsePort, stateDirFrom } from "./config.js";
import { classifyEndpoints, legacyBaseUrl, machineInterfaces, tailscaleHostname } from "./endpoints.js";
import { ensurePrivateDir, readJsonFile, writeFileAtomic } from "./fsutil.js";
import { HostGuard, plainAddress } from "./guard.js";
import { alreadyRunning, otherRunningServer, SERVER_FILE } from "./instance.js";
import { takeInstanceLock } from "./instanceLock.js";
import { isObject } from "./json.js";
import { OwnerAuth } from "./owner.js";
import { PairingService } from "./pairing.js";
import { handleRequest } from "./requests.js";
import { SetupHealth } from "./setupHealth.js";
import { DeviceSockets } from "./socket.js";
import { Store } from "./store.js";
import { Throttle } from "./throttle.js";
import { Workspaces } from "./workspaces.js";

/**
 * @typedef {object} ServerOptions
 * @property {NodeJS.ProcessEnv} [env] environment to read SVC_* from (default process.env)
 * @property {string} [stateDir] state directory (default SVC_HOME or ~/.svc)
 * @property {string} [mode] production | isolated | preview (default SVC_MODE)
 * @property {number} [port] port to try first (0: any free port); default SVC_PORT, else the port the paired devices know, else the mode's port
 * @property {boolean} [exactPort] listen on `port` or not at all (`svc-local start --port`), never on another free one
 * @property {string} [host] listening host; default from the environment, else the LAN toggle
 * @property {() => number} [now] clock in ms (injectable for tests)
 * @property {typeof fetch} [fetch] used for the cloud /api/auth/me check
 * @property {() => Record<string, import("./endpoints.js").InterfaceAddress[] | undefined>} [interfaces]
 * @property {() => Promise<string | null>} [overlayHostname] MagicDNS name lookup
 * @property {string} [name] desktop display name (default the host name)
 * @property {number} [heartbeatMs] WebSocket ping interval (default 30 s)
 * @property {number} [helloTimeoutMs] time a new socket has to say hello (default 10 s)
 * @property {{perKey?: number, global?: number, windowMs?: number}} [exchangeThrottle]
 * @property {{perKey?: number, global?: number, windowMs?: number}} [ownerThrottle]
 * @property {(line: string) => void} [log]
 * @property {number} [updateTimeoutMs] time limit of a logger update (default 300,000 ms); for tests only
 * @property {number} [requestTimeoutMs] time a request has to arrive whole, body included (default 30 s); for tests only
 * @property {string} [staleLock] the lock content startServer judged stale (old, its process not serving): taken over
 */

/** Emits "endpoints" when the listener moved (the LAN toggle): codes shown before name the old addresses. */
export class LocalServer extends EventEmitter {
	/** @param {ServerOptions} [options] */
	constructor(options = {}) {
		super();
		const env = options.env ?? process.env;
		this.stateDir = options.stateDir ?? stateDirFrom(env);
		this.mode = parseMode(options.mode ?? env.SVC_MODE);
		this.now = options.now ?? Date.now;
		/** @type {(line: string) => void} */
		this.log = options.log ?? ((line) => process.stderr.write(`svc-local: ${line}\n`));
		this.name = options.name ?? os.hostname();
		this.interfaces = options.interfaces ?? machineInterfaces;
		this.lookupOverlayHostname = options.overlayHostname ?? tailscaleHostname;
		/** @type {string | null} */
		this.overlayHostname = null;
		/** The port asked for (the caller's, else SVC_PORT), or undefined: then the paired devices' or the mode's. */
		this.requestedPort = options.port ?? parsePort(env.SVC_PORT);
		this.exactPort = options.exactPort === true;
		/** Host fixed by SVC_SERVER_HOST / SVC_ALLOW_LAN / the caller: the LAN toggle is then locked. */
		this.managedHost = options.host ?? envHost(env);
		// Last of the environment's settings to be checked: a bad one stops the start before any
		// state is written, so the owner token a first start mints is shown by a start that works.
		this.setupHealth = new SetupHealth({ env, now: this.now, log: this.log, updateTimeoutMs: options.updateTimeoutMs });

		ensurePrivateDir(this.stateDir);
		// Before any state is read: a second start on this directory stops here (LockBusy).
		this.instanceLock = takeInstanceLock(this.stateDir, options.staleLock);
		try {
			this.store = new Store(this.stateDir);
			this.owner = new OwnerAuth({ stateDir: this.stateDir, store: this.store, env, now: this.now, fetch: options.fetch });
		} catch (err) {
			this.instanceLock.release();
			throw err;
		}
		this.pairing = new PairingService({ store: this.store, now: this.now, ownerId: this.owner.ownerId });
		this.workspaces = new Workspaces(this.stateDir, this.now);
		this.host = this.managedHost ?? (this.store.data.lanEnabled ? "0.0.0.0" : "127.0.0.1");
		this.port = 0;
		this.guard = new HostGuard(this);

		/** @param {{perKey?: number, global?: number, windowMs?: number}} [t] */
		const failures = (t = {}) => new Throttle({ perKey: t.perKey ?? 10, global: t.global ?? 30, windowMs: t.windowMs ?? 60_000, now: this.now });
		this.throttles = {
			exchange: failures(options.exchangeThrottle),
			ticket: new Throttle({ perKey: 120, global: 1200, windowMs: 60_000, now: this.now }),
			// Wrong owner tokens, as wrong codes: one chosen with SVC_OWNER_TOKEN may be short, and the page may be on the LAN.
			owner: failures(options.ownerThrottle),
		};

		this.deviceSockets = new DeviceSockets({
			pairing: this.pairing,
			guard: this.guard,
			serverName: this.name,
			now: this.now,
			log: this.log,
			heartbeatMs: options.heartbeatMs ?? 30_000,
			helloTimeoutMs: options.helloTimeoutMs ?? 10_000,
		});
		const requestTimeout = options.requestTimeoutMs ?? 30_000;
		const headersTimeout = Math.min(15_000, requestTimeout);
		this.http = http.createServer({
			requestTimeout,
			headersTimeout,
			// Node checks the timeouts this often; its default (30 s) let a slow body hold a connection for a minute.
			connectionsCheckingInterval: Math.min(1_000, requestTimeout),
			maxHeaderSize: 16 * 1024,
		});
		this.http.on("request", (req, res) => void handleRequest(this, req, res));
		this.http.on("upgrade", (req, socket, head) => this.deviceSockets.upgrade(req, socket, head));
		this.http.on("clientError", (/** @type {NodeJS.ErrnoException} */ err, socket) => {
			if (err.code === "ERR_HTTP_REQUEST_TIMEOUT") {
				// Node's one code for both bounds: the message names each.
				refuseOnSocket(socket, 408, `the request did not arrive in time: its headers within ${headersTimeout / 1000} s, the whole of it within ${requestTimeout / 1000} s`);
			} else refuseOnSocket(socket, 400, "malformed request");
		});
		/** Open TCP connections, so that other machines' can be cut when LAN access is turned off. @type {Set<net.Socket>} */
		this.connections = new Set();
		this.http.on("connection", (socket) => {
			this.connections.add(socket);
			socket.on("close", () => this.connections.delete(socket));
		});
		this.closed = false;
		/** @type {Promise<unknown>} */
		this.lanQueue = Promise.resolve();
	}

	/** How many devices are paired (under any owner): each knows this server by the port it was given. */
	get pairedCount() {
		return Object.keys(this.store.data.devices).length;
	}

	/**
	 * Starts listening: on the port asked for, else the one the paired devices know, else the mode's.
	 * When that port is taken it moves to another free one only while no device is paired (and
	 * --port was not given): a paired device knows no other port, and would keep trying that one.
	 */
	async listen() {
		// Holding the lock, still ask local-server.json: a server of a version before the lock takes none.
		const other = await otherRunningServer(this.stateDir);
		if (other) throw alreadyRunning(this.stateDir, other);
		this.overlayHostname = await this.lookupOverlayHostname().catch(() => null);
		const paired = this.pairedCount;
		const known = paired > 0 ? this.store.data.port : null;
		const port = this.requestedPort ?? known ?? MODE_PORTS[this.mode];
		try {
			await this.#bind(this.host, port, !this.exactPort && paired === 0);
		} catch (err) {
			if (/** @type {NodeJS.ErrnoException} */ (err).code !== "EADDRINUSE") throw err;
			throw portTaken(port, this.exactPort ? 0 : paired);
		}
		if (known !== null && known !== this.port) {
			this.log(
				`listening on port ${this.port}, not ${known} where ${pairedKnow(paired)} this server: pair again (svc-local pair), or start on port ${known} to be found there again`,
			);
		}
		this.#rememberPort();
		this.#writeServerFile();
		return this;
	}

	/** The port is kept in the store: after a restart the paired devices look for this server there. */
	#rememberPort() {
		if (this.store.data.port === this.port) return;
		this.store.data.port = this.port;
		this.store.save();
	}

	/**
	 * @param {string} host @param {number} port
	 * @param {boolean} mayMove when the port is taken, take another free one (else EADDRINUSE is thrown)
	 */
	async #bind(host, port, mayMove) {
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
			if (/** @type {NodeJS.ErrnoException} */ (err).code !== "EADDRINUSE" || port === 0 || !mayMove) throw err;
			this.log(`port ${port} is taken; using another free port`);
			await attempt(0);
		}
		const addr = /** @type {import("node:net").AddressInfo} */ (this.http.address());
		this.port = addr.port;
		this.host = host;
		this.guard.forget();
	}

	/** Where devices can reach this server, best first. */
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

	/**
	 * The version-3 QR payload for a bootstrap secret: `baseUrls` best first, and
	 * `baseUrl`, the LAN URL when there is one, for version-2 clients.
	 * @param {string} secret
	 */
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
		const paired = this.pairedCount;
		try {
			// With devices paired, the same port or none: they know no other.
			await this.#bind(host, port, paired === 0);
		} catch (err) {
			this.log(`could not listen on ${host}: ${/** @type {Error} */ (err).message}; staying on the old address`);
			await this.#bind(enabled ? "127.0.0.1" : "0.0.0.0", port, true).catch(() => {});
			if (/** @type {NodeJS.ErrnoException} */ (err).code === "EADDRINUSE") {
				throw new HttpError(409, `port ${port} is taken on ${host} by another program, and ${pairedKnow(paired)} this server only on that port; free it and try again`);
			}
			throw new HttpError(500, `could not listen on ${host}`);
		}
		this.store.data.lanEnabled = enabled;
		this.store.data.port = this.port;
		this.store.save();
		if (enabled) this.overlayHostname = await this.lookupOverlayHostname().catch(() => null);
		this.#writeServerFile();
		this.log(`listening on ${host}:${this.port} (LAN ${enabled ? "enabled" : "disabled"})`);
		this.emit("endpoints");
	}

	/** With LAN off, connections from other machines end. */
	dropRemoteConnections() {
		if (this.lanEnabled) return;
		this.deviceSockets.closeRemote();
		for (const socket of this.connections) if (!isLoopbackHost(plainAddress(socket.remoteAddress))) socket.destroy();
	}

	/** Stops the server: sockets closed, presence written, local-server.json removed. */
	async close() {
		if (this.closed) return;
		this.closed = true;
		this.setupHealth.close();
		this.deviceSockets.closeAll();
		this.pairing.flushPresence();
		await new Promise((resolve) => {
			this.http.close(() => resolve(undefined));
			this.http.closeAllConnections();
			this.deviceSockets.terminateAll();
		});
		try {
			const file = path.join(this.stateDir, SERVER_FILE);
			const info = readJsonFile(file);
			if (isObject(info) && info.pid === process.pid) fs.rmSync(file, { force: true });
		} catch {
			// best effort
		}
		this.instanceLock.release();
	}
}


/** @param {number} n */
function pairedKnow(n) {
	return n === 1 ? "the paired device knows" : `the ${n} paired devices know`;
}

/**
 * The start refused on a taken port: which port, what holds it, and the ways out.
 * @param {number} port @param {number} paired devices that know this server by that port (0 when --port asked for it)
 */
function portTaken(port, paired) {
	const who = `lsof -nP -iTCP:${port} -sTCP:LISTEN shows which program holds it`;
	if (paired === 0) return new Error(`port ${port} is taken by another program (${who}); free it, or choose another with --port`);
	return new Error(
		`port ${port} is taken by another program (${who}), and ${pairedKnow(paired)} this server only on that port. ` +
			`Free the port and start again, or start on another one with svc-local start --port <port> (0: any free port) and pair again`,
	);
}
