// The pairing state machine, free of HTTP. A one-time bootstrap secret (120 s)
// is exchanged for a device credential; re-pairing a deviceId replaces its
// credential. The credential buys single-use WebSocket tickets (60 s).
// Revoking a device invalidates its credential and tickets and closes its live
// connections at once. Presence (online while a connection is attached, last
// seen, address, live name and platform) goes to disk at most once per 60 s
// per device. Time comes from an injectable clock so tests can stand exactly
// at a lifetime's boundary.
import { randomUUID } from "node:crypto";
import { CLOSE } from "./closeCodes.js";
import { normalizePlatform } from "./deviceInfo.js";
import { findBySecret, randomSecret, sha256 } from "./secrets.js";

const BOOTSTRAP_TTL_MS = 120_000;
const TICKET_TTL_MS = 60_000;
const PRESENCE_PERSIST_MS = 60_000;

const MAX_BOOTSTRAPS = 32;
const MAX_TICKETS_PER_DEVICE = 16;

/**
 * @typedef {object} LiveConnection
 * @property {string} remoteAddress
 * @property {boolean} hello whether the device has said hello on it (named itself)
 * @property {(code: number, reason: string) => void} close
 */

/**
 * @typedef {object} Presence
 * @property {Set<LiveConnection>} connections
 * @property {string | null} name name told by the live client
 * @property {string | null} platform
 * @property {string | null} remoteAddress
 * @property {number} lastSeen
 */

export class PairingService {
	/**
	 * @param {object} o
	 * @param {import("./store.js").Store} o.store
	 * @param {() => number} o.now
	 * @param {string} o.ownerId the desktop owner credentials are tied to
	 */
	constructor({ store, now, ownerId }) {
		this.store = store;
		this.now = now;
		this.ownerId = ownerId;
		/** @type {{hash: string, expiresAt: number}[]} */
		this.bootstraps = [];
		/** @type {{hash: string, deviceId: string, credentialHash: string, expiresAt: number}[]} */
		this.tickets = [];
		/** @type {Map<string, Presence>} */
		this.presence = new Map();
		/** @type {Map<string, number>} when each device's presence was last written */
		this.lastPersist = new Map();
	}

	#prune() {
		const now = this.now();
		this.bootstraps = this.bootstraps.filter((b) => now < b.expiresAt);
		this.tickets = this.tickets.filter((t) => now < t.expiresAt);
	}

	/** @returns {import("./store.js").DeviceRecord[]} the current owner's devices */
	#ownDevices() {
		return Object.values(this.store.data.devices).filter((d) => d.ownerId === this.ownerId);
	}

	/** A fresh one-time bootstrap secret (120 s). */
	createBootstrap() {
		this.#prune();
		const secret = randomSecret();
		const expiresAt = this.now() + BOOTSTRAP_TTL_MS;
		this.bootstraps.push({ hash: sha256(secret), expiresAt });
		if (this.bootstraps.length > MAX_BOOTSTRAPS) this.bootstraps.shift();
		return { secret, expiresAt };
	}

	/**
	 * Consumes a bootstrap secret and issues a device credential. A known
	 * `deviceId` is re-paired: its previous credential, tickets and live
	 * connections end.
	 * @param {{secret: string, deviceId?: string, name?: string, platform?: string, remoteAddress: string}} input
	 * @returns {{deviceId: string, credential: string, device: ReturnType<PairingService["describe"]>} | null} null when the secret is not a valid bootstrap
	 */
	exchange({ secret, deviceId, name, platform, remoteAddress }) {
		this.#prune();
		const bootstrap = findBySecret(this.bootstraps, (b) => b.hash, secret);
		if (!bootstrap) return null;
		this.bootstraps = this.bootstraps.filter((b) => b !== bootstrap); // one-time
		const id = deviceId ?? randomUUID();
		const previous = this.store.data.devices[id];
		if (previous) {
			this.#endDevice(id, CLOSE.REPAIRED, "credential replaced by a new pairing");
			this.presence.delete(id); // the old client's name and address no longer describe this pairing
		}
		const credential = randomSecret();
		const nowIso = new Date(this.now()).toISOString();
		this.store.data.devices[id] = {
			deviceId: id,
			credentialHash: sha256(credential),
			ownerId: this.ownerId,
			name: name || previous?.name || "Unnamed device",
			platform: normalizePlatform(platform ?? previous?.platform),
			remoteAddress,
			lastSeen: nowIso,
			pairedAt: nowIso,
		};
		this.store.save();
		this.lastPersist.set(id, this.now());
		return { deviceId: id, credential, device: this.describe(this.store.data.devices[id]) };
	}

	/**
	 * A single-use WebSocket ticket (60 s) for the device holding `credential`.
	 * @param {string} credential
	 * @returns {{ticket: string, expiresAt: number, deviceId: string} | null} null when the credential is unknown or revoked
	 */
	createTicket(credential) {
		this.#prune();
		const device = findBySecret(this.#ownDevices(), (d) => d.credentialHash, credential);
		if (!device) return null;
		const ticket = randomSecret();
		const expiresAt = this.now() + TICKET_TTL_MS;
		this.tickets.push({ hash: sha256(ticket), deviceId: device.deviceId, credentialHash: device.credentialHash, expiresAt });
		const mine = this.tickets.filter((t) => t.deviceId === device.deviceId);
		if (mine.length > MAX_TICKETS_PER_DEVICE) this.tickets = this.tickets.filter((t) => t !== mine[0]);
		return { ticket, expiresAt, deviceId: device.deviceId };
	}

	/**
	 * Consumes a ticket (whatever the outcome, it cannot be used again).
	 * @param {string} ticket
	 * @returns {import("./store.js").DeviceRecord | null} the device it is bound to, or null
	 */
	consumeTicket(ticket) {
		this.#prune();
		const found = findBySecret(this.tickets, (t) => t.hash, ticket);
		if (!found) return null;
		this.tickets = this.tickets.filter((t) => t !== found);
		const device = this.store.data.devices[found.deviceId];
		if (!device || device.credentialHash !== found.credentialHash || device.ownerId !== this.ownerId) return null;
		return device;
	}

	/**
	 * Revokes a device: credential and tickets invalid, live connections closed now.
	 * @param {string} deviceId
	 */
	revoke(deviceId) {
		const device = this.store.data.devices[deviceId];
		if (!device || device.ownerId !== this.ownerId) return false;
		delete this.store.data.devices[deviceId];
		this.store.save();
		this.#endDevice(deviceId, CLOSE.REVOKED, "device revoked");
		this.presence.delete(deviceId);
		this.lastPersist.delete(deviceId);
		return true;
	}

	/** @param {string} deviceId @param {number} code @param {string} reason */
	#endDevice(deviceId, code, reason) {
		this.tickets = this.tickets.filter((t) => t.deviceId !== deviceId);
		const p = this.presence.get(deviceId);
		if (!p) return;
		for (const c of [...p.connections]) c.close(code, reason);
		p.connections.clear();
	}

	/**
	 * A live connection of a device begins.
	 * @param {string} deviceId @param {LiveConnection} connection
	 */
	attach(deviceId, connection) {
		const p = this.presence.get(deviceId) ?? { connections: new Set(), name: null, platform: null, remoteAddress: null, lastSeen: 0 };
		p.connections.add(connection);
		p.remoteAddress = connection.remoteAddress;
		p.lastSeen = this.now();
		this.presence.set(deviceId, p);
		this.#maybePersist(deviceId);
	}

	/** @param {string} deviceId @param {LiveConnection} connection */
	detach(deviceId, connection) {
		const p = this.presence.get(deviceId);
		if (!p?.connections.delete(connection)) return;
		p.lastSeen = this.now();
		this.#maybePersist(deviceId);
	}

	/**
	 * Activity of a live device: a hello (with name and platform), a message, a pong.
	 * @param {string} deviceId @param {{name?: string, platform?: string}} [hello]
	 */
	touch(deviceId, hello) {
		const p = this.presence.get(deviceId);
		if (!p) return;
		p.lastSeen = this.now();
		if (hello?.name) p.name = hello.name;
		if (hello?.platform !== undefined) p.platform = normalizePlatform(hello.platform);
		this.#maybePersist(deviceId);
	}

	/** Presence goes to disk at most once per 60 s per device. @param {string} deviceId */
	#maybePersist(deviceId, force = false) {
		const last = this.lastPersist.get(deviceId);
		if (!force && last !== undefined && this.now() - last < PRESENCE_PERSIST_MS) return;
		const d = this.store.data.devices[deviceId];
		const p = this.presence.get(deviceId);
		if (!d || !p) return;
		d.lastSeen = new Date(p.lastSeen).toISOString();
		if (p.remoteAddress) d.remoteAddress = p.remoteAddress;
		if (p.name) d.name = p.name;
		if (p.platform) d.platform = p.platform;
		this.store.save();
		this.lastPersist.set(deviceId, this.now());
	}

	/** Writes every device's latest presence (on shutdown). */
	flushPresence() {
		for (const id of this.presence.keys()) {
			const d = this.store.data.devices[id];
			const p = this.presence.get(id);
			if (d && p && d.lastSeen !== new Date(p.lastSeen).toISOString()) this.#maybePersist(id, true);
		}
	}

	/** @param {string} deviceId */
	isOnline(deviceId) {
		return (this.presence.get(deviceId)?.connections.size ?? 0) > 0;
	}

	/**
	 * The listed form of a device: what the live client said first, else what was persisted.
	 * @param {import("./store.js").DeviceRecord} d
	 */
	describe(d) {
		const p = this.presence.get(d.deviceId);
		const online = (p?.connections.size ?? 0) > 0;
		// Attached but silent so far: a hello is due within 10 s, or the socket is closed.
		const connecting = online && ![...(p?.connections ?? [])].some((c) => c.hello);
		return {
			deviceId: d.deviceId,
			name: (p?.name ?? d.name) || "Unnamed device",
			platform: p?.platform ?? normalizePlatform(d.platform),
			remoteAddress: p?.remoteAddress ?? d.remoteAddress ?? null,
			state: /** @type {"Online" | "Offline"} */ (online ? "Online" : "Offline"),
			connecting,
			lastSeen: p ? new Date(p.lastSeen).toISOString() : d.lastSeen,
			pairedAt: d.pairedAt,
		};
	}

	listDevices() {
		return this.#ownDevices()
			.sort((a, b) => (a.pairedAt < b.pairedAt ? 1 : a.pairedAt > b.pairedAt ? -1 : a.deviceId.localeCompare(b.deviceId)))
			.map((d) => this.describe(d));
	}
}
