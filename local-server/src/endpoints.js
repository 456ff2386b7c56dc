// Which addresses a paired device can reach this server on, for the QR
// payload: one per kind, best first: overlay-network IP (Tailscale), overlay
// hostname, private LAN (IPv4), other (README.md, "The QR payload").
// `classifyEndpoints` is pure: it takes what os.networkInterfaces() returns,
// the overlay (Tailscale MagicDNS) hostname if any, the bound host and port,
// and answers the endpoint list best first. Everything that touches the
// machine is in the small functions at the bottom.
import { execFile } from "node:child_process";
import net from "node:net";
import os from "node:os";
import { isLoopbackHost, isWildcardHost } from "./config.js";
import { isObject } from "./json.js";

/** @typedef {"overlay-ip" | "overlay-hostname" | "lan" | "other" | "loopback"} EndpointKind */
/** @typedef {{kind: EndpointKind, priority: number, address: string, url: string}} Endpoint */
/** @typedef {{address: string, family: string | number, internal: boolean}} InterfaceAddress */

const PRIORITY = Object.freeze({ "overlay-ip": 0, "overlay-hostname": 1, lan: 2, other: 3, loopback: 4 });

/** @param {string} ip @returns {number[] | null} */
function ipv4Octets(ip) {
	if (!net.isIPv4(ip)) return null;
	return ip.split(".").map(Number);
}

/** @param {string} ip @returns {number[] | null} eight 16-bit groups */
function ipv6Groups(ip) {
	const bare = ip.split("%")[0];
	if (!net.isIPv6(bare)) return null;
	let text = bare;
	const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
	if (tail) {
		const o = /** @type {number[]} */ (ipv4Octets(tail[1]));
		text = `${text.slice(0, -tail[1].length)}${((o[0] << 8) | o[1]).toString(16)}:${((o[2] << 8) | o[3]).toString(16)}`;
	}
	const [head, rest] = text.split("::");
	const h = head ? head.split(":") : [];
	const r = rest !== undefined && rest !== "" ? rest.split(":") : [];
	const fill = rest === undefined ? [] : /** @type {string[]} */ (Array(8 - h.length - r.length).fill("0"));
	return [...h, ...fill, ...r].map((g) => parseInt(g, 16));
}

/**
 * Kind of one interface address, or null when no device could use it
 * (loopback, link-local, unspecified).
 * @param {string} address
 * @returns {EndpointKind | null}
 */
export function classifyAddress(address) {
	const v4 = ipv4Octets(address);
	if (v4) {
		const [a, b] = v4;
		if (a === 127 || a === 0) return null;
		if (a === 169 && b === 254) return null; // link-local
		if (a === 100 && b >= 64 && b <= 127) return "overlay-ip"; // 100.64.0.0/10 (Tailscale CGNAT range)
		if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return "lan";
		if (a >= 224) return null; // multicast and reserved
		return "other";
	}
	const v6 = ipv6Groups(address);
	if (v6) {
		if (v6.every((g) => g === 0)) return null; // ::
		if (v6.slice(0, 7).every((g) => g === 0) && v6[7] === 1) return null; // ::1
		if ((v6[0] & 0xffc0) === 0xfe80) return null; // link-local
		if ((v6[0] & 0xff00) === 0xff00) return null; // multicast
		if (v6.slice(0, 5).every((g) => g === 0) && v6[5] === 0xffff) return classifyAddress(`${v6[6] >> 8}.${v6[6] & 255}.${v6[7] >> 8}.${v6[7] & 255}`);
		if (v6[0] === 0xfd7a && v6[1] === 0x115c && v6[2] === 0xa1e0) return "overlay-ip"; // fd7a:115c:a1e0::/48 (Tailscale)
		return "other"; // LAN URLs are http://<ipv4>:<port>: other IPv6 addresses are "other"
	}
	return null;
}

/** Interface names of container bridges and VPN tunnels that a phone rarely reaches. */
const VIRTUAL_INTERFACE = /^(docker|br-|veth|virbr|vmnet|vboxnet|cni|flannel|podman|lxc|lxd)/i;

/** @param {string} ip */
function lanPreference(ip) {
	if (ip.startsWith("192.168.")) return 0;
	if (ip.startsWith("10.")) return 1;
	return 2;
}

/** @param {string} host @param {number} port */
function urlFor(host, port) {
	return `http://${net.isIPv6(host) ? `[${host}]` : host}:${port}`;
}

/**
 * @param {object} input
 * @param {Record<string, InterfaceAddress[] | undefined>} input.interfaces as from os.networkInterfaces()
 * @param {string | null | undefined} [input.overlayHostname] MagicDNS name, e.g. "desk.tailnet.ts.net"
 * @param {string} input.host the address the server is bound to
 * @param {number} input.port the port it listens on
 * @returns {Endpoint[]} best first, one per reachability class
 */
export function classifyEndpoints({ interfaces, overlayHostname, host, port }) {
	if (isLoopbackHost(host)) {
		const address = host === "localhost" ? "127.0.0.1" : host;
		return [{ kind: "loopback", priority: PRIORITY.loopback, address, url: urlFor(address, port) }];
	}
	const wildcard = isWildcardHost(host);
	const allowV6 = host === "::" || net.isIPv6(host);
	/** @type {{kind: EndpointKind, address: string, virtual: boolean, v6: boolean, order: number}[]} */
	const candidates = [];
	let order = 0;
	for (const [name, addrs] of Object.entries(interfaces)) {
		for (const a of addrs ?? []) {
			if (a.internal) continue;
			const v6 = a.family === "IPv6" || a.family === 6;
			if (v6 && !allowV6) continue; // a socket bound to 0.0.0.0 is not reachable over IPv6
			if (!wildcard && a.address !== host) continue; // bound to one address: only that one
			const kind = classifyAddress(a.address);
			if (kind) candidates.push({ kind, address: a.address, virtual: VIRTUAL_INTERFACE.test(name), v6, order: order++ });
		}
	}
	// A phone never reaches a container bridge or a host-only network: such an
	// address is offered only when the machine has no other (a VM or a
	// container on this machine may still pair through it).
	const usable = candidates.some((c) => !c.virtual) ? candidates.filter((c) => !c.virtual) : candidates;
	/** @param {EndpointKind} kind */
	const best = (kind) =>
		usable
			.filter((c) => c.kind === kind)
			.sort((x, y) => Number(x.v6) - Number(y.v6) || Number(x.virtual) - Number(y.virtual) || (kind === "lan" ? lanPreference(x.address) - lanPreference(y.address) : 0) || x.order - y.order)[0];

	/** @type {Endpoint[]} */
	const endpoints = [];
	const overlayIp = best("overlay-ip");
	if (overlayIp) endpoints.push({ kind: "overlay-ip", priority: 0, address: overlayIp.address, url: urlFor(overlayIp.address, port) });
	// The hostname reaches the same overlay path as the overlay IP: only one of them goes in.
	if (!overlayIp && overlayHostname && wildcard) {
		endpoints.push({ kind: "overlay-hostname", priority: 1, address: overlayHostname, url: urlFor(overlayHostname, port) });
	}
	for (const kind of /** @type {const} */ (["lan", "other"])) {
		const c = best(kind);
		if (c) endpoints.push({ kind, priority: PRIORITY[kind], address: c.address, url: urlFor(c.address, port) });
	}
	if (endpoints.length === 0) {
		// No usable interface (offline machine): loopback is all there is.
		endpoints.push({ kind: "loopback", priority: PRIORITY.loopback, address: "127.0.0.1", url: urlFor("127.0.0.1", port) });
	}
	return endpoints;
}

/**
 * The version-2 `baseUrl`: an unencrypted LAN address when there is one,
 * else the first URL.
 * @param {Endpoint[]} endpoints
 */
export function legacyBaseUrl(endpoints) {
	return (endpoints.find((e) => e.kind === "lan") ?? endpoints[0]).url;
}

/**
 * The MagicDNS name of this machine from `tailscale status --json`, or null
 * when the CLI is absent, stopped, or slow.
 * @returns {Promise<string | null>}
 */
export function tailscaleHostname() {
	return new Promise((resolve) => {
		try {
			execFile("tailscale", ["status", "--json"], { timeout: 2000, maxBuffer: 4 * 1024 * 1024 }, (err, stdout) => {
				if (err) return resolve(null);
				try {
					const status = /** @type {unknown} */ (JSON.parse(stdout));
					const name = isObject(status) && isObject(status.Self) ? status.Self.DNSName : null;
					resolve(typeof name === "string" && name ? name.replace(/\.$/, "") : null);
				} catch {
					resolve(null);
				}
			});
		} catch {
			resolve(null);
		}
	});
}

/** @returns {Record<string, InterfaceAddress[] | undefined>} */
export function machineInterfaces() {
	return os.networkInterfaces();
}
