// Starting a server for a state directory: one server per directory, taken over from a crashed one.
import path from "node:path";
import { alreadyRunning, otherRunningServer } from "./instance.js";
import { alive, LockBusy } from "./instanceLock.js";
import { LocalServer } from "./server.js";

/** @typedef {import("./server.js").ServerOptions} ServerOptions */

/**
 * Creates and starts a server.
 * @param {ServerOptions} [options]
 */
export async function startServer(options = {}) {
	const server = await lockedServer(options);
	try {
		await server.listen();
	} catch (err) {
		await server.close().catch(() => {});
		throw err;
	}
	return server;
}

/** A lock younger than this may belong to a server still starting (not listening yet). */
const START_GRACE_MS = 15_000;

/**
 * The server, once it holds the state directory's lock. While another live process holds it:
 * refused, naming that server, as soon as it answers; taken over when the lock is older than a
 * start takes and nothing answers (its pid now another program's after a crash and a reboot).
 * @param {ServerOptions} options
 */
async function lockedServer(options) {
	/** @type {string | undefined} */
	let staleLock;
	for (;;) {
		try {
			return new LocalServer({ ...options, staleLock });
		} catch (err) {
			if (!(err instanceof LockBusy)) throw err;
			const { pid, text, ageMs } = err.held;
			if (pid !== null && alive(pid)) {
				const stateDir = path.dirname(err.file);
				const other = await otherRunningServer(stateDir);
				if (other?.pid === pid) throw alreadyRunning(stateDir, other);
			}
			if (ageMs > START_GRACE_MS) staleLock = text;
			else await new Promise((resolve) => setTimeout(resolve, 100));
		}
	}
}
