// The npm registry the logger comes from: SVC_NPM_REGISTRY, else what npm is
// configured with in the workspace (`@svcapp:registry`, else `registry`,
// from `npm config get`), and the logger's latest version there, cached
// for an hour per registry.
import { execFile } from "node:child_process";
import semver from "semver";
import { isObject } from "./json.js";
import { LOGGER_PACKAGE } from "./packageManagers.js";

const LATEST_CACHE_MS = 3_600_000;
const REGISTRY_TIMEOUT_MS = 10_000;
const DEFAULT_REGISTRY = "https://registry.npmjs.org/";

/** @typedef {{ok: true, version: string} | {ok: false, error: string}} Latest */

/**
 * The registry URL with one trailing slash, or null when it is not http(s).
 * @param {string} value
 */
function normalizeRegistry(value) {
	try {
		const url = new URL(value.trim());
		if (url.protocol !== "http:" && url.protocol !== "https:") return null;
		return `${url.href.replace(/\/+$/, "")}/`;
	} catch {
		return null;
	}
}

/**
 * A registry URL as shown in messages: without any user name or password in it.
 * @param {string} registry
 */
function shown(registry) {
	const url = new URL(registry);
	url.username = "";
	url.password = "";
	return url.href;
}

/**
 * npm's registry for the logger's scope, as configured for `dir`; the public
 * registry when npm is missing or says nothing.
 * @param {string} dir
 * @returns {Promise<string>}
 */
function npmConfiguredRegistry(dir) {
	return new Promise((resolve) => {
		execFile("npm", ["config", "get", "@svcapp:registry", "registry"], { cwd: dir, timeout: REGISTRY_TIMEOUT_MS }, (err, stdout) => {
			if (err) return resolve(DEFAULT_REGISTRY);
			// One "key=value" line per key asked; an unset key says "undefined".
			const values = String(stdout)
				.split("\n")
				.map((line) => normalizeRegistry(line.slice(line.indexOf("=") + 1)))
				.filter((v) => v !== null);
			resolve(values[0] ?? DEFAULT_REGISTRY);
		});
	});
}

export class NpmRegistry {
	/**
	 * @param {object} o
	 * @param {NodeJS.ProcessEnv} o.env
	 * @param {() => number} o.now
	 */
	constructor({ env, now }) {
		const fromEnv = env.SVC_NPM_REGISTRY?.trim();
		/** The registry SVC_NPM_REGISTRY names, else null (npm's is asked for each workspace). */
		this.fromEnv = fromEnv ? normalizeRegistry(fromEnv) : null;
		if (fromEnv && !this.fromEnv) throw new Error(`SVC_NPM_REGISTRY must be an http(s) URL (got ${JSON.stringify(fromEnv)})`);
		this.now = now;
		/** @type {Map<string, {version: string, until: number}>} */
		this.latestCache = new Map();
	}

	/**
	 * The registry for a workspace.
	 * @param {string} dir
	 * @returns {Promise<string>}
	 */
	async registryFor(dir) {
		return this.fromEnv ?? npmConfiguredRegistry(dir);
	}

	/**
	 * The logger's latest version on a registry (its `latest` dist-tag).
	 * @param {string} registry @param {{force?: boolean}} [o] force: ask again even when cached
	 * @returns {Promise<Latest>}
	 */
	async latest(registry, { force = false } = {}) {
		const hit = this.latestCache.get(registry);
		if (hit && !force && hit.until > this.now()) return { ok: true, version: hit.version };
		const url = `${registry}${LOGGER_PACKAGE.replace("/", "%2f")}`;
		/** @type {Response} */
		let res;
		try {
			res = await fetch(url, {
				headers: { accept: "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8" },
				signal: AbortSignal.timeout(REGISTRY_TIMEOUT_MS),
			});
		} catch (err) {
			const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : "";
			return { ok: false, error: `${shown(registry)} cannot be reached (${err instanceof Error ? err.message : String(err)}${cause})` };
		}
		if (res.status === 404) return { ok: false, error: `${shown(registry)} has no ${LOGGER_PACKAGE} (HTTP 404)` };
		if (!res.ok) return { ok: false, error: `${shown(registry)} answered HTTP ${res.status} for ${LOGGER_PACKAGE}` };
		const body = /** @type {unknown} */ (await res.json().catch(() => null));
		const tags = isObject(body) ? body["dist-tags"] : undefined;
		const version = isObject(tags) && typeof tags.latest === "string" && semver.valid(tags.latest) ? tags.latest : null;
		if (!version) return { ok: false, error: `${shown(registry)} gave no latest version of ${LOGGER_PACKAGE}` };
		this.latestCache.set(registry, { version, until: this.now() + LATEST_CACHE_MS });
		return { ok: true, version };
	}
}
