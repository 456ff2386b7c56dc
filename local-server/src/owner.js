// The owner bearer session of the pairing routes ("Who may call what" in README.md).
// - Local mode (no `svc-local login`): a 256-bit owner token minted on first
//   start, kept as a SHA-256 digest in the store, shown once and written to
//   `owner-token` (0600) in the state directory; SVC_OWNER_TOKEN sets it.
// - Cloud mode (after `svc-local login <api_url>`): the bearer is the owner's
//   cloud session token, checked against {api_url}/api/auth/me on every
//   request (a sign-out or a plan change at the API counts at once; only a
//   refused token is remembered, briefly) and required to belong to the same
//   user as the desktop owner.
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { readJsonFile, readTextFile, writeFileAtomic } from "./fsutil.js";
import { isObject } from "./json.js";
import { digestsEqual, randomSecret, SECRET_MAX, sha256 } from "./secrets.js";
import { fetchFailure } from "./fetchError.js";

export const OWNER_TOKEN_FILE = "owner-token";
export const CLOUD_SESSION_FILE = "cloud-session.json";

const CACHE_BAD_MS = 5_000;
const CACHE_MAX = 256;

/**
 * What the owner's plan allows: "local" in local mode (no account to ask),
 * else from the svc account: "pro", "trial" (an active trial) or "none".
 * @typedef {"local" | "pro" | "trial" | "none"} OwnerAccess
 */
/** @typedef {{ok: true, access: OwnerAccess} | {ok: false, status: number, error: string}} AuthResult */
/** @typedef {{apiUrl: string, token: string, user: {id: string, email?: string}}} CloudSession */

/**
 * The bearer token of an Authorization header, or null.
 * @param {string | undefined} header
 */
function bearerOf(header) {
	if (typeof header !== "string" || header.length > 4096) return null;
	const m = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(header);
	return m ? m[1] : null;
}

/** @param {string} stateDir @returns {CloudSession | null} */
export function readCloudSession(stateDir) {
	const file = path.join(stateDir, CLOUD_SESSION_FILE);
	/** @type {unknown} */
	let s;
	try {
		s = readJsonFile(file);
	} catch (err) {
		// Falling back to local mode silently would change who the owner is: refuse.
		throw new Error(`${file} is damaged (${/** @type {Error} */ (err).message}); run svc-local login again or svc-local logout`);
	}
	if (!isObject(s) || typeof s.apiUrl !== "string" || typeof s.token !== "string" || !isObject(s.user) || typeof s.user.id !== "string") return null;
	const { id, email } = s.user;
	return { apiUrl: s.apiUrl, token: s.token, user: { id, ...(typeof email === "string" ? { email } : {}) } };
}

/**
 * The token in an owner-token file, or null when there is none or it holds no usable token (empty,
 * spaces inside, longer than any secret a request may carry).
 * @param {string} file
 */
function readOwnerTokenFile(file) {
	const token = readTextFile(file)?.trim();
	if (token === undefined) return null;
	return token !== "" && token.length <= SECRET_MAX && !/\s/.test(token) ? token : null;
}

/** @param {string} stateDir @param {CloudSession} session */
export function writeCloudSession(stateDir, session) {
	writeFileAtomic(path.join(stateDir, CLOUD_SESSION_FILE), `${JSON.stringify(session, null, "\t")}\n`);
}

/** @param {string} apiUrl */
export function normalizeApiUrl(apiUrl) {
	const u = new URL(apiUrl);
	if (u.protocol !== "https:" && u.protocol !== "http:") throw new Error("the API URL must be http(s)");
	return u.origin + u.pathname.replace(/\/+$/, "");
}

/**
 * Asks the cloud API who a session token belongs to.
 * @param {string} apiUrl @param {string} token @param {typeof fetch} [fetchImpl]
 * @returns {Promise<{status: "ok", user: {id: string, email?: string}, access: Exclude<OwnerAccess, "local">} | {status: "invalid"} | {status: "unreachable", error: string}>}
 */
export async function cloudWhoAmI(apiUrl, token, fetchImpl = fetch) {
	/** @type {Response} */
	let res;
	try {
		res = await fetchImpl(`${apiUrl}/api/auth/me`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(5000) });
	} catch (err) {
		return { status: "unreachable", error: fetchFailure(err) };
	}
	if (res.status === 401 || res.status === 403) return { status: "invalid" };
	if (!res.ok) return { status: "unreachable", error: `HTTP ${res.status}` };
	const body = /** @type {unknown} */ (await res.json().catch(() => null));
	const user = isObject(body) && isObject(body.user) ? body.user : null;
	if (!user || (typeof user.id !== "string" && typeof user.id !== "number")) return { status: "unreachable", error: "unexpected /api/auth/me answer" };
	// `access` is Pro or a trial that has not ended, as the svc API decides it.
	const access = user.plan === "pro" ? "pro" : user.access === true ? "trial" : "none";
	return { status: "ok", user: { id: String(user.id), email: typeof user.email === "string" ? user.email : undefined }, access };
}

export class OwnerAuth {
	/**
	 * @param {object} o
	 * @param {string} o.stateDir
	 * @param {import("./store.js").Store} o.store
	 * @param {NodeJS.ProcessEnv} o.env
	 * @param {() => number} o.now
	 * @param {typeof fetch} [o.fetch]
	 */
	constructor({ stateDir, store, env, now, fetch: fetchImpl }) {
		this.now = now;
		this.fetch = fetchImpl ?? fetch;
		/** Set when this start minted the local owner token: shown once. @type {string | null} */
		this.mintedToken = null;
		/** Tokens the API refused, by digest, until when they are refused without asking. @type {Map<string, {until: number}>} */
		this.cache = new Map();
		this.cloud = readCloudSession(stateDir);
		if (this.cloud) {
			/** @type {"local" | "cloud"} */
			this.mode = "cloud";
			this.apiUrl = this.cloud.apiUrl;
			this.ownerId = `cloud:${this.cloud.apiUrl}:${this.cloud.user.id}`;
			this.ownerLabel = this.cloud.user.email ?? this.cloud.user.id;
			this.tokenHash = "";
			this.tokenSource = "cloud";
			return;
		}
		this.mode = "local";
		this.ownerLabel = "local owner";
		const fromEnv = env.SVC_OWNER_TOKEN?.trim();
		this.tokenFile = path.join(stateDir, OWNER_TOKEN_FILE);
		if (!store.data.localOwner) {
			// A store moved aside (damaged) or deleted leaves the owner-token file: the owner keeps that
			// token, and a store restored by hand still matches it. A new one only when there is none.
			const kept = fromEnv ? null : readOwnerTokenFile(this.tokenFile);
			const token = fromEnv || kept || randomSecret();
			store.data.localOwner = { id: randomUUID(), tokenHash: sha256(token), createdAt: new Date(now()).toISOString() };
			store.save();
			if (!fromEnv && !kept) {
				writeFileAtomic(this.tokenFile, `${token}\n`);
				this.mintedToken = token;
			}
		}
		this.ownerId = `local:${store.data.localOwner.id}`;
		this.tokenHash = fromEnv ? sha256(fromEnv) : store.data.localOwner.tokenHash;
		/** Where the owner finds the token: "env" or the owner-token file. */
		this.tokenSource = fromEnv ? "env" : "file";
		if (!fromEnv && fs.existsSync(this.tokenFile)) fs.chmodSync(this.tokenFile, 0o600);
	}

	/**
	 * Checks an Authorization header against the desktop owner's session.
	 * @param {string | undefined} header
	 * @returns {Promise<AuthResult>}
	 */
	async check(header) {
		const token = bearerOf(header);
		if (!token) return { ok: false, status: 401, error: "owner session required: send Authorization: Bearer <token>" };
		if (this.mode === "local") {
			return digestsEqual(sha256(token), this.tokenHash) ? { ok: true, access: "local" } : { ok: false, status: 401, error: "owner session is not valid" };
		}
		const key = sha256(token);
		const now = this.now();
		const refused = this.cache.get(key);
		if (refused && refused.until > now) return { ok: false, status: 401, error: "owner session is not valid" };
		const who = await cloudWhoAmI(/** @type {string} */ (this.apiUrl), token, this.fetch);
		if (who.status === "unreachable") return { ok: false, status: 503, error: `cannot check the owner session with the svc API (${who.error})` };
		const ok = who.status === "ok" && who.user.id === this.cloud?.user.id;
		const access = who.status === "ok" ? who.access : "none";
		if (ok) return { ok: true, access };
		// A refused token is remembered briefly, so a caller repeating it does not make each request a round trip.
		if (this.cache.size >= CACHE_MAX) this.cache.clear();
		this.cache.set(key, { until: now + CACHE_BAD_MS });
		return { ok: false, status: 401, error: who.status === "ok" ? "this session belongs to another user than the desktop owner" : "owner session is not valid" };
	}
}
