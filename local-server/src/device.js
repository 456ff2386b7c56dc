// The device side of pairing (`svc-local connect`, platform Desktop), and the
// real peer the tests use: parses a v2 or v3 QR payload, exchanges the
// bootstrap secret trying `baseUrls` in order, keeps the credential in its
// own 0600 file, then gets single-use tickets and stays connected over the
// WebSocket, reconnecting with backoff and failing over between URLs.
import { EventEmitter } from "node:events";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { WebSocket } from "ws";
import { CLOSE } from "./closeCodes.js";
import { fetchFailure } from "./fetchError.js";
import { readJsonFile, writeFileAtomic } from "./fsutil.js";
import { isObject } from "./json.js";
import { SECRET_MAX } from "./secrets.js";

export const CREDENTIAL_FILE = "device.json";

export class PayloadError extends Error {}

/** An HTTP answer that is not a success, with the server's `{error}` message. */
export class DeviceHttpError extends Error {
	/** @param {number} status @param {string} message @param {string} url */
	constructor(status, message, url) {
		super(`${url}: ${status} ${message}`);
		this.status = status;
		this.url = url;
	}
}

/** @typedef {{v: number, name?: string, baseUrls: string[], pairToken: string}} PairingPayload */

/**
 * Creates the credential file's directory (mode 0700) when it is missing. An
 * existing directory (a home directory, /tmp) belongs to the user and keeps its
 * mode: the credential file itself is 0600. Throws when it cannot be written.
 * @param {string} file
 */
function ensureCredentialDir(file) {
	const dir = path.dirname(file);
	fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
	fs.accessSync(dir, fs.constants.W_OK);
}

/** @param {unknown} value */
function httpUrl(value) {
	if (typeof value !== "string" || value.length > 2048) return null;
	try {
		const u = new URL(value);
		if (u.protocol !== "http:" && u.protocol !== "https:") return null;
		return u.origin;
	} catch {
		return null;
	}
}

/**
 * Parses a QR payload (README.md, "The QR payload"): version 3 (`baseUrls`,
 * best first) or version 2 (legacy `baseUrl` only).
 * @param {string | object} input JSON text or the parsed object
 * @returns {PairingPayload}
 */
export function parsePairingPayload(input) {
	let p = input;
	if (typeof input === "string") {
		try {
			p = JSON.parse(input.trim());
		} catch {
			throw new PayloadError("the pairing payload is not valid JSON");
		}
	}
	if (!p || typeof p !== "object" || Array.isArray(p)) throw new PayloadError("the pairing payload must be a JSON object");
	const o = /** @type {Record<string, unknown>} */ (p);
	const v = typeof o.v === "string" ? Number(o.v) : o.v;
	if (v !== 2 && v !== 3) throw new PayloadError(`unsupported pairing payload version ${JSON.stringify(o.v)} (2 and 3 are understood)`);
	if (typeof o.pairToken !== "string" || o.pairToken.length === 0 || o.pairToken.length > SECRET_MAX) throw new PayloadError("the pairing payload has no pairToken");
	/** @type {string[]} */
	let baseUrls = [];
	if (v === 3 && o.baseUrls !== undefined) {
		if (!Array.isArray(o.baseUrls)) throw new PayloadError("baseUrls must be an array of URLs");
		for (const u of /** @type {unknown[]} */ (o.baseUrls)) {
			const url = httpUrl(u);
			if (!url) throw new PayloadError(`not an http(s) URL in baseUrls: ${JSON.stringify(u)}`);
			if (!baseUrls.includes(url)) baseUrls.push(url);
		}
	}
	if (baseUrls.length === 0) {
		const url = httpUrl(o.baseUrl);
		if (!url) throw new PayloadError("the pairing payload has no usable baseUrl");
		baseUrls = [url];
	}
	return { v, name: typeof o.name === "string" ? o.name : undefined, baseUrls, pairToken: o.pairToken };
}

/**
 * @typedef {object} SavedPairing
 * @property {string} deviceId
 * @property {string} credential
 * @property {string[]} baseUrls
 * @property {string | undefined} [serverName]
 * @property {string} pairedAt
 */

/**
 * The pairing kept in the credential file, or null when there is none (or it
 * is not one).
 * @param {unknown} value
 * @returns {SavedPairing | null}
 */
function savedPairing(value) {
	if (!isObject(value)) return null;
	const { deviceId, credential, baseUrls, serverName, pairedAt } = value;
	if (typeof deviceId !== "string" || typeof credential !== "string" || typeof pairedAt !== "string") return null;
	if (!Array.isArray(baseUrls) || !baseUrls.every((/** @type {unknown} */ u) => typeof u === "string")) return null;
	return { deviceId, credential, baseUrls, serverName: typeof serverName === "string" ? serverName : undefined, pairedAt };
}

/**
 * @typedef {object} DeviceClientOptions
 * @property {string} credentialFile where the pairing is kept (mode 0600)
 * @property {string} [name] device name (default the host name)
 * @property {string} [platform] default "Desktop"
 * @property {string} [deviceId] id to pair as (default: the saved one, else the server generates one)
 * @property {string} [sessionToken] owner bearer session, needed when the desktop runs in cloud mode
 * @property {number} [requestTimeoutMs] per URL (default 5 s)
 * @property {number} [reconnectMinMs] default 1 s
 * @property {number} [reconnectMaxMs] default 30 s
 */

export class DeviceClient extends EventEmitter {
	/** @param {DeviceClientOptions} options */
	constructor(options) {
		super();
		this.options = options;
		this.name = options.name ?? os.hostname();
		this.platform = options.platform ?? "Desktop";
		/** @type {SavedPairing | null} */
		this.pairing = savedPairing(readJsonFile(options.credentialFile));
		/** @type {WebSocket | null} */
		this.ws = null;
		this.stopped = false;
		this.revoked = false;
		this.attempt = 0;
		/** @type {ReturnType<typeof setTimeout> | undefined} */
		this.timer = undefined;
		/** The base URL that answered last; tried first next time. @type {string | null} */
		this.activeBaseUrl = null;
	}

	get deviceId() {
		return this.pairing?.deviceId ?? null;
	}

	/** @returns {Record<string, string>} */
	#authHeaders() {
		return this.options.sessionToken ? { authorization: `Bearer ${this.options.sessionToken}` } : {};
	}

	/**
	 * POSTs to each base URL in turn until one answers with success.
	 * A URL that cannot be reached (or answers with an error) passes to the next. When none
	 * answers, the error thrown names each URL tried with its reason, in one message: a
	 * DeviceHttpError (with the status) when one of them answered with an error.
	 * @param {string[]} baseUrls @param {string} pathname @param {RequestInit} init
	 */
	async #postWithFailover(baseUrls, pathname, init) {
		/** @type {DeviceHttpError | null} */
		let httpError = null;
		/** @type {string[]} */
		const failures = [];
		for (const base of baseUrls) {
			const url = `${base}${pathname}`;
			try {
				const res = await fetch(url, { ...init, method: "POST", signal: AbortSignal.timeout(this.options.requestTimeoutMs ?? 5000) });
				const answer = /** @type {unknown} */ (await res.json().catch(() => ({})));
				const body = isObject(answer) ? answer : {};
				if (res.ok) {
					this.activeBaseUrl = base;
					return { base, body };
				}
				const error = typeof body.error === "string" ? body.error : "";
				const answered = new DeviceHttpError(res.status, error || res.statusText, url);
				httpError ??= answered;
				failures.push(answered.message);
			} catch (err) {
				failures.push(`${url} unreachable: ${fetchFailure(err)}`);
			}
		}
		if (failures.length === 0) throw new Error("no base URL to try");
		if (!httpError) throw new Error(failures.join("; "));
		httpError.message = failures.join("; ");
		throw httpError;
	}

	/**
	 * Pairs with a desktop from its QR payload (exchange of the bootstrap secret).
	 * @param {string | object} payloadInput
	 * @returns {Promise<SavedPairing>}
	 */
	async pair(payloadInput) {
		const payload = parsePairingPayload(payloadInput);
		// Where the credential goes must be usable before the one-time code is spent.
		ensureCredentialDir(this.options.credentialFile);
		const deviceId = this.options.deviceId ?? this.pairing?.deviceId;
		const { body } = await this.#postWithFailover(payload.baseUrls, "/api/pairing/exchange", {
			headers: { "content-type": "application/json", ...this.#authHeaders() },
			body: JSON.stringify({ secret: payload.pairToken, ...(deviceId ? { deviceId } : {}), name: this.name, platform: this.platform }),
		});
		if (typeof body.credential !== "string" || typeof body.deviceId !== "string") throw new Error("the exchange answer has no credential");
		/** @type {SavedPairing} */
		const saved = {
			deviceId: body.deviceId,
			credential: body.credential,
			baseUrls: payload.baseUrls,
			serverName: payload.name,
			pairedAt: isObject(body.device) && typeof body.device.pairedAt === "string" ? body.device.pairedAt : new Date().toISOString(),
		};
		writeFileAtomic(this.options.credentialFile, `${JSON.stringify(saved, null, "\t")}\n`);
		this.pairing = saved;
		this.revoked = false;
		this.emit("paired", { deviceId: saved.deviceId });
		return saved;
	}

	/** Base URLs to try, the one that worked last first. */
	#orderedBaseUrls() {
		const urls = this.pairing?.baseUrls ?? [];
		return this.activeBaseUrl && urls.includes(this.activeBaseUrl) ? [this.activeBaseUrl, ...urls.filter((u) => u !== this.activeBaseUrl)] : urls;
	}

	/** A single-use WebSocket ticket: {ticket, expiresAt, base}. */
	async getTicket() {
		if (!this.pairing) throw new Error("not paired: run pair() with a QR payload first");
		const { base, body } = await this.#postWithFailover(this.#orderedBaseUrls(), "/api/pairing/ws-ticket", {
			headers: { "x-svc-device-credential": this.pairing.credential, ...this.#authHeaders() },
		});
		if (typeof body.ticket !== "string" || typeof body.expiresAt !== "string") throw new Error("the ws-ticket answer has no ticket");
		return { ticket: body.ticket, expiresAt: body.expiresAt, base };
	}

	/**
	 * Connects and stays connected until stop() or revocation. Resolves once
	 * the first connection is welcomed; rejects if that first attempt fails
	 * for good (credential refused).
	 * @returns {Promise<void>}
	 */
	connect() {
		if (!this.pairing) return Promise.reject(new Error("not paired: run pair() with a QR payload first"));
		this.stopped = false;
		this.revoked = false; // try again: the server says whether the credential still holds
		return new Promise((resolve, reject) => {
			const onWelcome = () => {
				this.off("revoked", onRevoked);
				resolve();
			};
			const onRevoked = (/** @type {{reason: string}} */ info) => {
				this.off("welcome", onWelcome);
				reject(new Error(`credential refused: ${info.reason}`));
			};
			this.once("welcome", onWelcome);
			this.once("revoked", onRevoked);
			void this.#open();
		});
	}

	async #open() {
		if (this.stopped || this.revoked) return;
		/** @type {{ticket: string, expiresAt: string, base: string}} */
		let ticket;
		try {
			ticket = await this.getTicket();
		} catch (err) {
			if (err instanceof DeviceHttpError && err.status === 401) {
				// Revoked or replaced: only a new pairing code brings this device back.
				this.revoked = true;
				this.emit("revoked", { reason: err.message });
				return;
			}
			this.emit("error-info", err);
			return this.#scheduleReconnect(`no connection ticket: ${fetchFailure(err)}`);
		}
		if (this.stopped) return;
		const wsUrl = `${ticket.base.replace(/^http/, "ws")}/api/pairing/ws?ticket=${encodeURIComponent(ticket.ticket)}`;
		const ws = new WebSocket(wsUrl, { handshakeTimeout: this.options.requestTimeoutMs ?? 5000 });
		this.ws = ws;
		/** Why the socket did not open, for the reconnection's reason. @type {string} */
		let failure = "";
		let opened = false;
		ws.on("open", () => {
			opened = true;
			ws.send(JSON.stringify({ type: "hello", id: "hello", data: { name: this.name, platform: this.platform } }));
			this.emit("open");
		});
		ws.on("message", (data) => {
			/** @type {unknown} */
			let msg;
			try {
				msg = JSON.parse(data.toString());
			} catch {
				return;
			}
			if (isObject(msg) && msg.type === "welcome") {
				this.attempt = 0;
				this.emit("welcome", msg);
			}
			this.emit("message", msg);
		});
		ws.on("unexpected-response", (_req, res) => {
			failure = `upgrade refused: ${res.statusCode}`;
			this.emit("error-info", new Error(failure));
			res.resume();
			ws.terminate();
		});
		ws.on("error", (err) => {
			failure ||= err.message;
			this.emit("error-info", err);
		});
		ws.on("close", (code, reasonBuf) => {
			if (this.ws === ws) this.ws = null;
			const reason = reasonBuf.toString();
			this.emit("close", { code, reason });
			if (code === CLOSE.REVOKED || code === CLOSE.REPAIRED) {
				this.revoked = true;
				this.emit("revoked", { reason: reason || (code === CLOSE.REVOKED ? "device revoked" : "credential replaced") });
				return;
			}
			this.#scheduleReconnect(opened ? "connection lost" : `the WebSocket did not open${failure ? `: ${failure}` : ""}`);
		});
	}

	/** @param {string} reason why, for the "reconnecting" event */
	#scheduleReconnect(reason) {
		if (this.stopped || this.revoked) return;
		const min = this.options.reconnectMinMs ?? 1000;
		const max = this.options.reconnectMaxMs ?? 30_000;
		const delay = Math.min(max, min * 2 ** Math.min(this.attempt, 16)) * (0.75 + Math.random() * 0.5);
		this.attempt++;
		this.emit("reconnecting", { delayMs: Math.round(delay), attempt: this.attempt, reason });
		clearTimeout(this.timer);
		this.timer = setTimeout(() => void this.#open(), delay);
	}

	/**
	 * Sends one envelope message on the live connection.
	 * @param {string} type @param {object} [data] @param {string} [id]
	 */
	send(type, data, id) {
		if (!this.ws || this.ws.readyState !== WebSocket.OPEN) throw new Error("not connected");
		this.ws.send(JSON.stringify({ type, ...(id ? { id } : {}), ...(data ? { data } : {}) }));
	}

	/** Stops reconnecting and closes the connection. */
	async stop() {
		this.stopped = true;
		clearTimeout(this.timer);
		const ws = this.ws;
		if (!ws || ws.readyState === WebSocket.CLOSED) return;
		await new Promise((resolve) => {
			ws.once("close", resolve);
			ws.close(1000, "device stopped");
			setTimeout(() => {
				ws.terminate();
				resolve(undefined);
			}, 2000).unref();
		});
	}
}
