// The owner's commands reach the running server (found through its
// local-server.json) over its own API, with the owner's bearer.
import fs from "node:fs";
import path from "node:path";
import { CliError } from "./commandSpec.js";
import { stateDirFrom } from "./config.js";
import { recordedServer } from "./instance.js";
import { isObject } from "./json.js";
import { OWNER_TOKEN_FILE, readCloudSession } from "./owner.js";

/**
 * The bearer the owner's own commands use: the cloud session after a login,
 * else SVC_OWNER_TOKEN, else the owner-token file.
 * @param {string} stateDir @param {NodeJS.ProcessEnv} env
 */
function ownerBearer(stateDir, env) {
	const cloud = readCloudSession(stateDir);
	if (cloud) return cloud.token;
	if (env.SVC_OWNER_TOKEN?.trim()) return env.SVC_OWNER_TOKEN.trim();
	try {
		return fs.readFileSync(path.join(stateDir, OWNER_TOKEN_FILE), "utf8").trim();
	} catch {
		throw new CliError(`no owner token: set SVC_OWNER_TOKEN or start svc-local once to create ${path.join(stateDir, OWNER_TOKEN_FILE)}`);
	}
}

/** The running server's local URL, from local-server.json. @param {string} stateDir */
function runningServerUrl(stateDir) {
	const server = recordedServer(stateDir);
	if (!server) throw new CliError("svc-local is not running (start it with `svc-local`)");
	return server.url;
}

/**
 * Calls the running server's API as its owner; answers the JSON body.
 * @param {NodeJS.ProcessEnv} env @param {string} method @param {string} pathname @param {unknown} [body] sent as JSON
 * @returns {Promise<unknown>}
 */
export async function ownerRequest(env, method, pathname, body) {
	const stateDir = stateDirFrom(env);
	const base = runningServerUrl(stateDir);
	/** @type {Record<string, string>} */
	const headers = { authorization: `Bearer ${ownerBearer(stateDir, env)}` };
	if (body !== undefined) headers["content-type"] = "application/json";
	const res = await fetch(`${base}${pathname}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
	const answer = /** @type {unknown} */ (await res.json().catch(() => ({})));
	// What the server said, as a person reads it: the request itself is the command's, not the user's.
	if (!res.ok) throw new CliError(`${isObject(answer) && typeof answer.error === "string" ? answer.error : res.statusText} (HTTP ${res.status})${res.status === 401 ? refusedBearerHint(stateDir, env) : ""}`);
	return answer;
}

/**
 * What to do when the server refused the bearer this command sent, said by where it came from.
 * @param {string} stateDir @param {NodeJS.ProcessEnv} env
 */
function refusedBearerHint(stateDir, env) {
	const cloud = readCloudSession(stateDir);
	if (cloud) return `: the svc session saved by svc-local login (${cloud.user.email ?? cloud.user.id}) was refused; it was signed out or has expired, or svc-local runs for another account: sign in again with svc-local login ${cloud.apiUrl}, and restart svc-local if the account changed`;
	if (env.SVC_OWNER_TOKEN?.trim()) return ": SVC_OWNER_TOKEN is not the running server's owner token";
	return `: the owner token in ${path.join(stateDir, OWNER_TOKEN_FILE)} is not the running server's (was it started with SVC_OWNER_TOKEN?)`;
}
