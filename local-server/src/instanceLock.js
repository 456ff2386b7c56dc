// One server per state directory, made atomic: local-server.lock is created
// with O_EXCL (only one of two starts at the same instant can create it)
// before the server reads or writes any state, holds its process id, and is
// removed when the server stops. A lock whose process is gone is taken over.
// Hand-written rather than proper-lockfile: that library judges a lock stale
// by its age alone (refreshed by a timer), so a restart right after a crash
// would be refused until the old lock aged, and its lock holds no pid to
// name in the refusal.
import fs from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { isObject } from "./json.js";

/** The lock file in the state directory. */
const LOCK_FILE = "local-server.lock";

/** A takeover of a stale lock older than this was left by a process that died mid-way. */
const STALE_TAKEOVER_MS = 5_000;

/** @param {number} pid */
export function alive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch (err) {
		return /** @type {NodeJS.ErrnoException} */ (err).code === "EPERM";
	}
}

/** The state directory is held by another live process (or one being started). */
export class LockBusy extends Error {
	/**
	 * @param {string} file
	 * @param {{pid: number | null, text: string, ageMs: number}} held pid null: not written yet (or unreadable)
	 */
	constructor(file, held) {
		super(`${file} is held by ${held.pid === null ? "a starting process" : `pid ${held.pid}`}`);
		this.file = file;
		this.held = held;
	}
}

/**
 * What the lock file says now: its holder's pid (null while being written) and its content, or
 * null when there is no lock.
 * @param {string} file
 * @returns {{pid: number | null, text: string, ageMs: number} | null}
 */
function readLock(file) {
	try {
		const text = fs.readFileSync(file, "utf8");
		const ageMs = Date.now() - fs.statSync(file).mtimeMs;
		/** @type {unknown} */
		let info;
		try {
			info = JSON.parse(text);
		} catch {
			info = undefined;
		}
		return { pid: isObject(info) && typeof info.pid === "number" ? info.pid : null, text, ageMs };
	} catch (err) {
		if (/** @type {NodeJS.ErrnoException} */ (err).code === "ENOENT") return null;
		throw err;
	}
}

/** The state directory's lock, held by this process. */
class InstanceLock {
	/** @param {string} file @param {string} text what this process wrote into it */
	constructor(file, text) {
		this.file = file;
		this.text = text;
		// A process that ends without close() (an uncaught error) still frees the directory.
		this.onExit = () => this.release();
		process.once("exit", this.onExit);
	}

	/** Removes the lock when it is still this one's. */
	release() {
		process.off("exit", this.onExit);
		try {
			if (fs.readFileSync(this.file, "utf8") === this.text) fs.rmSync(this.file, { force: true });
		} catch {
			// gone already
		}
	}
}

/**
 * Takes the state directory's lock: creates it, or takes over one whose process is gone (or the
 * one whose content is `staleText`: the caller found it old and its process not serving). Throws
 * LockBusy when a live process holds it.
 * @param {string} stateDir @param {string} [staleText]
 */
export function takeInstanceLock(stateDir, staleText) {
	const file = path.join(stateDir, LOCK_FILE);
	const text = `${JSON.stringify({ pid: process.pid, nonce: randomUUID() })}\n`;
	for (let attempt = 0; ; attempt++) {
		try {
			const fd = fs.openSync(file, "wx", 0o600);
			try {
				fs.writeFileSync(fd, text);
			} finally {
				fs.closeSync(fd);
			}
			return new InstanceLock(file, text);
		} catch (err) {
			if (/** @type {NodeJS.ErrnoException} */ (err).code !== "EEXIST") throw err;
		}
		const held = readLock(file);
		if (!held) continue; // removed in between: try again
		const stale = held.text === staleText || (held.pid !== null && held.pid !== process.pid && !alive(held.pid));
		if (!stale || attempt >= 3 || !removeStale(file, held.text)) throw new LockBusy(file, held);
	}
}

/**
 * Removes a stale lock, unless another start replaced it in between. Two starts that find the
 * same stale lock take turns through a second O_EXCL file, so that one never removes the lock
 * the other just made. Answers whether the caller may try again.
 * @param {string} file @param {string} staleText
 */
function removeStale(file, staleText) {
	const guard = `${file}.takeover`;
	try {
		fs.closeSync(fs.openSync(guard, "wx", 0o600));
	} catch (err) {
		if (/** @type {NodeJS.ErrnoException} */ (err).code !== "EEXIST") throw err;
		const age = readLock(guard)?.ageMs ?? 0;
		if (age > STALE_TAKEOVER_MS) fs.rmSync(guard, { force: true });
		return false;
	}
	try {
		if (readLock(file)?.text === staleText) fs.rmSync(file, { force: true });
		return true;
	} finally {
		fs.rmSync(guard, { force: true });
	}
}
