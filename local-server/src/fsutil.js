// File helpers for the state directory: owner-only modes and writes that
// survive a crash mid-write (temporary file in the same directory, fsync,
// rename over the target, fsync of the directory).
import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { isObject } from "./json.js";

/**
 * A state directory that cannot be used, said as the owner can act on it (Node's own message is
 * an errno and a system call): which folder, why, and what to do.
 * @param {string} dir @param {unknown} err
 */
export function stateDirError(dir, err) {
	const code = /** @type {NodeJS.ErrnoException} */ (err).code;
	const why =
		code === "EACCES" || code === "EPERM"
			? "permission denied (it or a folder above it belongs to another user or is read-only)"
			: code === "ENOTDIR" || code === "EEXIST"
				? "it or a folder above it is a file, not a folder"
				: code === "EROFS"
					? "its file system is read-only"
					: err instanceof Error
						? err.message
						: String(err);
	return new Error(`cannot use the state directory ${dir}: ${why}; fix it, or set SVC_HOME to a folder of yours`);
}

/**
 * Creates `dir` if needed and makes it mode 0700.
 * @param {string} dir
 * @throws {Error} stateDirError's message when it cannot be made or is not this user's
 */
export function ensurePrivateDir(dir) {
	try {
		fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
		fs.chmodSync(dir, 0o700);
		fs.accessSync(dir, fs.constants.R_OK | fs.constants.W_OK | fs.constants.X_OK);
	} catch (err) {
		throw stateDirError(dir, err);
	}
}

/**
 * Atomically replaces `file` with `data`, mode 0600.
 * @param {string} file @param {string} data
 */
export function writeFileAtomic(file, data) {
	const dir = path.dirname(file);
	const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
	const fd = fs.openSync(tmp, "wx", 0o600);
	try {
		fs.writeFileSync(fd, data);
		fs.fsyncSync(fd);
	} finally {
		fs.closeSync(fd);
	}
	try {
		fs.chmodSync(tmp, 0o600); // in case the umask widened nothing but an old file had other bits
		fs.renameSync(tmp, file);
	} catch (err) {
		fs.rmSync(tmp, { force: true });
		throw err;
	}
	try {
		const dfd = fs.openSync(dir, "r");
		try {
			fs.fsyncSync(dfd);
		} finally {
			fs.closeSync(dfd);
		}
	} catch {
		// Directory fsync is best-effort (not supported everywhere).
	}
}

/**
 * Reads and parses a JSON file; `undefined` when it does not exist.
 * Throws on unreadable or malformed content.
 * @param {string} file
 * @returns {unknown}
 */
export function readJsonFile(file) {
	const text = readTextFile(file);
	return text === undefined ? undefined : JSON.parse(text);
}

/**
 * Reads a UTF-8 file; `undefined` when it does not exist. Throws when it cannot be read.
 * @param {string} file
 * @returns {string | undefined}
 */
export function readTextFile(file) {
	try {
		return fs.readFileSync(file, "utf8");
	} catch (err) {
		if (/** @type {NodeJS.ErrnoException} */ (err).code === "ENOENT") return undefined;
		throw err;
	}
}

/**
 * A state file holding a JSON object; `undefined` when it does not exist. A
 * file that cannot be read or is not a JSON object is moved aside
 * (`<file>.damaged-<time>`), never silently overwritten, so nothing in it is
 * lost for good.
 * @param {string} file
 * @returns {Record<string, unknown> | undefined}
 */
export function readStateFile(file) {
	try {
		const value = readJsonFile(file);
		if (value !== undefined && !isObject(value)) throw new Error("not a JSON object");
		return value;
	} catch (err) {
		const aside = `${file}.damaged-${Date.now()}`;
		fs.renameSync(file, aside);
		console.error(`svc-local: ${file} could not be read (${/** @type {Error} */ (err).message}); moved to ${aside}`);
		return undefined;
	}
}
