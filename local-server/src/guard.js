// Who may talk to this server. A browser page on another site can make the
// browser send requests here, and DNS rebinding can even make them look
// same-origin; so a request must name this server in its Host header (one of
// its own names, with its port), and an Origin, when sent, must be this
// server's too. No CORS headers are ever sent.
import os from "node:os";
import { isLoopbackHost } from "./config.js";

/** How long the list of this machine's names is reused before it is read again. */
const NAMES_TTL_MS = 5000;

/**
 * The address a socket comes from, IPv4-mapped IPv6 written as IPv4.
 * @param {string | undefined} address
 */
export function plainAddress(address) {
	if (!address) return "unknown";
	return address.startsWith("::ffff:") ? address.slice(7) : address;
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
 * Where the server listens now, as the guard needs to know it.
 * @typedef {object} Listener
 * @property {string} host the bound address
 * @property {number} port
 * @property {string | null} overlayHostname the MagicDNS name, when there is one
 * @property {() => Record<string, import("./endpoints.js").InterfaceAddress[] | undefined>} interfaces
 */

export class HostGuard {
	/** @param {Listener} listener */
	constructor(listener) {
		this.listener = listener;
		/** @type {{at: number, names: Set<string>} | null} */
		this.cache = null;
	}

	/** The listener moved: its names are read again on the next request. */
	forget() {
		this.cache = null;
	}

	/**
	 * The names and addresses this server answers to: loopback names always;
	 * beyond loopback also the machine's host name, `<hostname>.local`, its
	 * interface addresses and its MagicDNS name.
	 */
	#names() {
		const now = Date.now();
		if (this.cache && now - this.cache.at < NAMES_TTL_MS) return this.cache.names;
		const { host, overlayHostname } = this.listener;
		const names = new Set(["localhost", "127.0.0.1", "::1"]);
		if (!isLoopbackHost(host)) {
			names.add(host.toLowerCase());
			const hostname = os.hostname().toLowerCase();
			if (hostname) {
				names.add(hostname);
				names.add(`${hostname}.local`);
			}
			if (overlayHostname) names.add(overlayHostname.toLowerCase());
			for (const addrs of Object.values(this.listener.interfaces())) for (const a of addrs ?? []) names.add(a.address.toLowerCase().split("%")[0]);
		}
		this.cache = { at: now, names };
		return names;
	}

	/** @param {string | undefined} hostHeader */
	hostAllowed(hostHeader) {
		const h = parseHostHeader(hostHeader);
		return !!h && h.port === this.listener.port && this.#names().has(h.name);
	}

	/**
	 * An Origin is ours when it is http(s)://<one of our names>:<our port>.
	 * @param {string} origin
	 */
	originAllowed(origin) {
		/** @type {URL} */
		let u;
		try {
			u = new URL(origin);
		} catch {
			return false;
		}
		if (u.protocol !== "http:" && u.protocol !== "https:") return false;
		const port = u.port ? Number(u.port) : u.protocol === "https:" ? 443 : 80;
		return port === this.listener.port && this.#names().has(u.hostname.toLowerCase().replace(/^\[|\]$/g, ""));
	}
}
