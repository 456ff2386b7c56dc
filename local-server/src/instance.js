// Which svc-local serves a state directory: local-server.json names its
// process and address while it runs. The owner's commands find the server
// through it, and a second start on the same state directory is refused: two
// servers would each keep their own copy of the credential store, and the
// one stopping last would remove the file the other is found by.
import path from "node:path";
import { readJsonFile, stateDirError } from "./fsutil.js";
import { alive } from "./instanceLock.js";
import { isObject } from "./json.js";

/** Written to the state directory while the server runs: how the CLI finds it. */
export const SERVER_FILE = "local-server.json";

/** How long a server named in local-server.json has to answer before it counts as gone. */
const PROBE_TIMEOUT_MS = 2000;

/**
 * The server local-server.json names, when its process is alive.
 * @param {string} stateDir
 * @returns {{pid: number, url: string} | null}
 */
export function recordedServer(stateDir) {
	/** @type {unknown} */
	let info;
	try {
		info = readJsonFile(path.join(stateDir, SERVER_FILE));
	} catch (err) {
		// The folder itself unusable (a file, another user's), not its content.
		throw /** @type {NodeJS.ErrnoException} */ (err).code ? stateDirError(stateDir, err) : err;
	}
	if (!isObject(info) || typeof info.port !== "number" || typeof info.pid !== "number" || !alive(info.pid)) return null;
	const host = typeof info.host === "string" && info.host !== "0.0.0.0" && info.host !== "::" ? info.host : "127.0.0.1";
	return { pid: info.pid, url: `http://${host.includes(":") ? `[${host}]` : host}:${info.port}` };
}

/**
 * Another process's svc-local serving this state directory now: its pid is
 * alive and its address answers as svc-local (a stale file's pid may belong
 * to another program by now).
 * @param {string} stateDir
 * @returns {Promise<{pid: number, url: string} | null>}
 */
export async function otherRunningServer(stateDir) {
	const recorded = recordedServer(stateDir);
	if (!recorded || recorded.pid === process.pid) return null;
	try {
		const res = await fetch(`${recorded.url}/api/health`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
		const body = /** @type {unknown} */ (await res.json());
		return isObject(body) && body.service === "svc-local" ? recorded : null;
	} catch {
		return null;
	}
}

/** @param {string} stateDir @param {{pid: number, url: string}} other */
export function alreadyRunning(stateDir, other) {
	return new Error(`svc-local is already running for ${stateDir} (pid ${other.pid}, ${other.url}); stop it first, or give this one its own SVC_HOME`);
}
