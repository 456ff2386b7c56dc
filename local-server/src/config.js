// Where state lives, which mode and port, and where to listen: resolved once
// from the environment (SVC_HOME, SVC_MODE, SVC_SERVER_HOST, SVC_ALLOW_LAN,
// SVC_PORT) and explicit overrides, so tests can pass everything in.
import os from "node:os";
import path from "node:path";

/** Preferred port per desktop mode (before any device is paired); when it is taken the server takes any free port. */
export const MODE_PORTS = Object.freeze({ production: 47821, isolated: 47831, preview: 47921 });

/** @typedef {keyof typeof MODE_PORTS} Mode */

/**
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {string}
 */
export function stateDirFrom(env = process.env) {
	return env.SVC_HOME ? path.resolve(env.SVC_HOME) : path.join(os.homedir(), ".svc");
}

/**
 * SVC_ALLOW_LAN as a yes or no; anything else is an error that names it, as for SVC_MODE and
 * SVC_PORT, rather than a quiet "no".
 * @param {string} value
 */
function allowsLan(value) {
	const word = value.trim().toLowerCase();
	if (/^(1|true|yes|on)$/.test(word)) return true;
	if (/^(0|false|no|off)$/.test(word)) return false;
	throw new Error(`SVC_ALLOW_LAN must be 1, true, yes or on, or 0, false, no or off (got ${JSON.stringify(value)})`);
}

/**
 * @param {string | undefined} value
 * @returns {Mode}
 */
export function parseMode(value) {
	const mode = (value ?? "production").trim().toLowerCase();
	if (!(mode in MODE_PORTS)) {
		throw new Error(`SVC_MODE must be one of ${Object.keys(MODE_PORTS).join(", ")} (got ${JSON.stringify(value)})`);
	}
	return /** @type {Mode} */ (mode);
}

/**
 * The listening host chosen by the environment, or undefined when the
 * environment leaves it to the LAN toggle. SVC_SERVER_HOST wins over
 * SVC_ALLOW_LAN.
 * @param {NodeJS.ProcessEnv} env
 * @returns {string | undefined}
 */
export function envHost(env) {
	if (env.SVC_SERVER_HOST?.trim()) return env.SVC_SERVER_HOST.trim();
	if (env.SVC_ALLOW_LAN !== undefined && env.SVC_ALLOW_LAN.trim() !== "") return allowsLan(env.SVC_ALLOW_LAN) ? "0.0.0.0" : "127.0.0.1";
	return undefined;
}

/** @param {string} host */
export function isLoopbackHost(host) {
	return host === "127.0.0.1" || host === "::1" || host === "localhost" || /^127\./.test(host);
}

/** @param {string} host */
export function isWildcardHost(host) {
	return host === "0.0.0.0" || host === "::";
}

/**
 * @param {string | undefined} value
 * @returns {number | undefined}
 */
export function parsePort(value) {
	if (value === undefined || value.trim() === "") return undefined;
	const port = Number(value);
	if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`SVC_PORT must be a port number (got ${JSON.stringify(value)})`);
	return port;
}
