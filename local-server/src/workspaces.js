// The owner's workspaces: the folders whose setup health svc-local checks.
// Kept in `workspaces.json` in the state directory (0600, replaced
// atomically like the credential store). A local workspace is recorded by its
// real path (symbolic links resolved), so that "inside the workspace" means
// one thing everywhere; an SSH one (`ssh://…` or `user@host:path`) as given,
// since it cannot be checked from here, except a password: an `ssh://` URL
// carrying one is refused (svc-local keeps no passwords).
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { HttpError } from "./answers.js";
import { readStateFile, writeFileAtomic } from "./fsutil.js";
import { isObject } from "./json.js";

const WORKSPACES_FILE = "workspaces.json";
export const WORKSPACES_MAX = 100;
export const WORKSPACE_PATH_MAX = 4096;
const ID_PATTERN = /^[0-9a-f]{8}$/;
const SSH_URL = /^ssh:\/\//i;
/** An ssh:// URL's user and password (`ssh://user:password@`): the password ends at the last `@` before the path. */
const SSH_PASSWORD = /^(ssh:\/\/[^/?#:@]*):[^/?#]+@/i;
const SCP_LIKE = /^[^\s/@:]+@[^\s/:]+:/;

/**
 * @typedef {object} Workspace
 * @property {string} id 8 hexadecimal digits
 * @property {string} path the real path of a local folder, or the SSH location as given
 * @property {"local" | "ssh"} kind
 * @property {string} addedAt ISO time
 */

/** Whether a workspace location names another machine: `ssh://…` or `user@host:path`. @param {string} value */
export function isSshLocation(value) {
	return SSH_URL.test(value) || SCP_LIKE.test(value);
}

/** An ssh:// location with its password (if any) taken out: `ssh://user@host/path`. @param {string} value */
function withoutPassword(value) {
	return value.replace(SSH_PASSWORD, "$1@");
}

/**
 * A path in a request: a non-empty string of at most 4,096 characters without control characters.
 * @param {unknown} value @param {string} name the member's name, for the message
 * @returns {asserts value is string}
 */
export function checkPathText(value, name) {
	if (typeof value !== "string" || value.trim() === "") throw new HttpError(400, `${name} must be a non-empty string`);
	if (value.length > WORKSPACE_PATH_MAX) throw new HttpError(400, `${name} must be at most ${WORKSPACE_PATH_MAX} characters`);
	// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
	if (/[\u0000-\u001f\u007f]/.test(value)) throw new HttpError(400, `${name} must not contain control characters`);
}

/**
 * A path as the owner gave it, checked: `{kind: "ssh"}` for `ssh://…` and
 * `user@host:path`, else an absolute local path that must be a directory,
 * answered as its real path. Throws a 400 that says what is wrong.
 * @param {unknown} value
 * @returns {{kind: "local" | "ssh", path: string}}
 */
export function checkWorkspacePath(value) {
	checkPathText(value, "path");
	if (isSshLocation(value)) {
		// Never kept (workspaces.json, the log, the list): the location is refused, named without it.
		if (SSH_PASSWORD.test(value)) {
			throw new HttpError(400, `${withoutPassword(value)} was given with a password, which svc-local does not keep: sign in to the host with an SSH key or agent, and add the location without it`);
		}
		// `user@host:` alone is the account's home directory, as scp reads it; a URL needs its host.
		const url = SSH_URL.test(value) ? URL.parse(value) : null;
		if (SSH_URL.test(value) && !url?.hostname) throw new HttpError(400, `path ${JSON.stringify(value)} names no host: use ssh://host/path`);
		// No user or host is named so; given to ssh or git, it would be read as an option (-oProxyCommand=…).
		if (value.startsWith("-") || url?.username.startsWith("-") || url?.hostname.startsWith("-")) {
			throw new HttpError(400, `path ${JSON.stringify(value)} names a user or host that starts with "-", which ssh would read as an option`);
		}
		return { kind: "ssh", path: value };
	}
	if (!path.isAbsolute(value)) throw new HttpError(400, `path must be absolute (got ${JSON.stringify(value)})`);
	/** @type {string} */
	let real;
	try {
		real = fs.realpathSync(value);
	} catch {
		throw new HttpError(400, `${value} does not exist`);
	}
	if (!fs.statSync(real).isDirectory()) throw new HttpError(400, `${value} is not a directory`);
	// The whole disk is no project, and its scan would read /proc and /sys.
	if (path.parse(real).root === real) throw new HttpError(400, `${value} is the root of the file system: choose a project's folder`);
	return { kind: "local", path: real };
}

/**
 * A workspace id from a request: 400 when it cannot be one, else the id (which may still be unknown).
 * @param {unknown} value @param {string} where where it came from, for the message
 */
export function checkWorkspaceId(value, where) {
	if (value === undefined || value === null || value === "") throw new HttpError(400, `${where} is required`);
	if (typeof value !== "string" || !ID_PATTERN.test(value)) throw new HttpError(400, `${where} must be a workspace id (8 hexadecimal digits, as svc-local workspace list shows)`);
	return value;
}

/** @param {unknown} w @returns {w is Workspace} */
function isWorkspace(w) {
	return (
		isObject(w) &&
		typeof w.id === "string" &&
		ID_PATTERN.test(w.id) &&
		typeof w.path === "string" &&
		(w.kind === "local" || w.kind === "ssh") &&
		typeof w.addedAt === "string"
	);
}

export class Workspaces {
	/** @param {string} stateDir @param {() => number} now */
	constructor(stateDir, now) {
		this.file = path.join(stateDir, WORKSPACES_FILE);
		this.now = now;
		const raw = readStateFile(this.file);
		/** @type {Workspace[]} */
		this.list = (Array.isArray(raw?.workspaces) ? raw.workspaces : []).filter(isWorkspace);
		// An ssh:// location saved with its password (before they were refused) loses it for good.
		const withPassword = this.list.filter((w) => w.kind === "ssh" && SSH_PASSWORD.test(w.path));
		for (const w of withPassword) w.path = withoutPassword(w.path);
		if (withPassword.length > 0) this.#save();
	}

	/** @param {string} id */
	get(id) {
		return this.list.find((w) => w.id === id);
	}

	/**
	 * Registers a checked path (see checkWorkspacePath); a path already
	 * registered answers its existing workspace.
	 * @param {{kind: "local" | "ssh", path: string}} location
	 * @returns {{workspace: Workspace, created: boolean}}
	 */
	add({ kind, path: where }) {
		const existing = this.list.find((w) => w.path === where);
		if (existing) return { workspace: existing, created: false };
		if (this.list.length >= WORKSPACES_MAX) throw new HttpError(409, `at most ${WORKSPACES_MAX} workspaces can be registered; remove one first`);
		let id = randomBytes(4).toString("hex");
		while (this.get(id)) id = randomBytes(4).toString("hex");
		const workspace = { id, path: where, kind, addedAt: new Date(this.now()).toISOString() };
		this.list.push(workspace);
		this.#save();
		return { workspace, created: true };
	}

	/** @param {string} id @returns {boolean} whether it was registered */
	remove(id) {
		const before = this.list.length;
		this.list = this.list.filter((w) => w.id !== id);
		if (this.list.length === before) return false;
		this.#save();
		return true;
	}

	#save() {
		writeFileAtomic(this.file, `${JSON.stringify({ version: 1, workspaces: this.list }, null, "\t")}\n`);
	}
}
