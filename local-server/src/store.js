// The credential store: `pairing.json` in the state directory, mode 0600,
// replaced atomically on every change. It holds only SHA-256 digests of
// secrets (the local owner token and device credentials) plus non-secret
// device metadata. Bootstrap secrets and tickets live in memory only (as
// digests too): they last 120 s and 60 s.
import fs from "node:fs";
import path from "node:path";
import { readStateFile, writeFileAtomic } from "./fsutil.js";
import { isObject } from "./json.js";

const STORE_FILE = "pairing.json";

/**
 * @typedef {object} DeviceRecord
 * @property {string} deviceId
 * @property {string} credentialHash SHA-256 hex of the device credential
 * @property {string} ownerId the desktop owner the credential is tied to
 * @property {string} name
 * @property {string} platform
 * @property {string | null} remoteAddress
 * @property {string | null} lastSeen ISO time
 * @property {string} pairedAt ISO time of credential creation
 */

/**
 * @typedef {object} StoreData
 * @property {number} version
 * @property {{id: string, tokenHash: string, createdAt: string} | null} localOwner
 * @property {boolean} lanEnabled LAN toggle of the pairing page
 * @property {number | null} port the port last listened on: the one the paired devices were given
 * @property {Record<string, DeviceRecord>} devices
 */

/**
 * The devices by id, without a prototype: a deviceId is any string up to 200
 * characters, "__proto__" and "constructor" included, and must find nothing
 * but its own record.
 * @returns {Record<string, DeviceRecord>}
 */
function deviceMap() {
	return Object.create(null);
}

export class Store {
	/** @param {string} stateDir */
	constructor(stateDir) {
		this.file = path.join(stateDir, STORE_FILE);
		/** Number of writes made, for tests of the presence write rate. */
		this.writes = 0;
		/** @type {StoreData} */
		this.data = { version: 1, localOwner: null, lanEnabled: false, port: null, devices: deviceMap() };
		this.#load();
	}

	#load() {
		const raw = readStateFile(this.file);
		if (raw === undefined) return;
		const { localOwner, devices, port } = raw;
		this.data = {
			version: 1,
			localOwner: isObject(localOwner) && typeof localOwner.tokenHash === "string" ? /** @type {StoreData["localOwner"]} */ (localOwner) : null,
			lanEnabled: raw.lanEnabled === true,
			port: Number.isInteger(port) && Number(port) > 0 && Number(port) <= 65535 ? Number(port) : null,
			devices: deviceMap(),
		};
		for (const [id, d] of Object.entries(isObject(devices) ? devices : {})) {
			if (isObject(d) && typeof d.credentialHash === "string" && typeof d.ownerId === "string") {
				this.data.devices[id] = { .../** @type {DeviceRecord} */ (d), deviceId: id };
			}
		}
		fs.chmodSync(this.file, 0o600);
	}

	save() {
		writeFileAtomic(this.file, `${JSON.stringify(this.data, null, "\t")}\n`);
		this.writes++;
	}
}
