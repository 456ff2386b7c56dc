// Setup health of the owner's workspaces: scans (cached an hour per
// workspace, one at a time per workspace) and logger updates (the package's
// own package manager against the same registry, one at a time per package,
// 300,000 ms at most, after which the scan cache of that workspace is dropped).
import fs from "node:fs";
import path from "node:path";
import { HttpError } from "./answers.js";
import { isObject, withoutBom } from "./json.js";
import { NpmRegistry } from "./npmRegistry.js";
import { findPackageManager, LOGGER_PACKAGE, loggerListedIn, registryEnv, updateCommand } from "./packageManagers.js";
import { runProcessTree } from "./processTree.js";
import { scanWorkspace } from "./scan.js";
import { isInside, SCAN_LIMITS } from "./walk.js";

const SCAN_CACHE_MS = 3_600_000;
const UPDATE_TIMEOUT_MS = 300_000;

/** @typedef {import("./workspaces.js").Workspace} Workspace */
/** @typedef {Awaited<ReturnType<typeof scanWorkspace>> & {workspaceId: string, scannedAt: string}} ScanResult */

/**
 * The real path of a local workspace's folder; 400 for an SSH workspace, 409
 * when the folder is gone.
 * @param {Workspace} workspace
 */
function localRoot(workspace) {
	if (workspace.kind === "ssh") {
		throw new HttpError(400, `workspace ${workspace.id} is on another machine (${workspace.path}): setup health checks local workspaces only`);
	}
	/** @type {string | undefined} */
	let root;
	try {
		root = fs.realpathSync(workspace.path);
		if (!fs.statSync(root).isDirectory()) root = undefined;
	} catch {
		// answered below
	}
	if (root === undefined) throw new HttpError(409, `the folder of workspace ${workspace.id} (${workspace.path}) is gone or is not a folder; restore it or remove the workspace`);
	try {
		fs.accessSync(root, fs.constants.R_OK | fs.constants.X_OK);
	} catch {
		// A scan of nothing would answer "no package.json found", as if the folder held no code.
		throw new HttpError(409, `the folder of workspace ${workspace.id} (${workspace.path}) cannot be read by the user svc-local runs as (permission denied); let it read the folder, or remove the workspace`);
	}
	return root;
}

/**
 * The package a logger update may run in: `packageDir` (relative to the
 * workspace or absolute) must be inside the workspace once `..` and symbolic
 * links are resolved, outside node_modules, and its package.json must list
 * the logger. Each rule refuses with its own 400.
 * @param {string} root @param {string} packageDir
 */
function updatablePackage(root, packageDir) {
	const lexical = path.resolve(root, packageDir);
	if (!isInside(root, lexical)) throw new HttpError(400, `packageDir ${JSON.stringify(packageDir)} is outside the workspace`);
	/** @type {string} */
	let real;
	try {
		real = fs.realpathSync(lexical);
	} catch {
		throw new HttpError(400, `packageDir ${JSON.stringify(packageDir)} does not exist`);
	}
	if (!isInside(root, real)) throw new HttpError(400, `packageDir ${JSON.stringify(packageDir)} leads out of the workspace through a symbolic link`);
	const dir = path.relative(root, real).split(path.sep).join("/") || ".";
	if (dir.split("/").includes("node_modules")) throw new HttpError(400, `packageDir ${JSON.stringify(packageDir)} is inside node_modules`);
	if (!fs.statSync(real).isDirectory()) throw new HttpError(400, `packageDir ${JSON.stringify(packageDir)} is not a folder`);
	const manifest = readManifest(real);
	if (manifest === undefined) throw new HttpError(400, `packageDir ${JSON.stringify(packageDir)} has no package.json`);
	if (manifest === null) throw new HttpError(400, `the package.json of ${JSON.stringify(packageDir)} is not a JSON object`);
	const listedIn = loggerListedIn(manifest);
	if (!listedIn) throw new HttpError(400, `the package.json of ${JSON.stringify(packageDir)} does not list ${LOGGER_PACKAGE} (dependencies, devDependencies or optionalDependencies)`);
	return { real, dir, listedIn };
}

/**
 * A folder's package.json: undefined when there is none, null when it is not
 * a JSON object (or larger than a scan would read).
 * @param {string} dir
 * @returns {Record<string, unknown> | null | undefined}
 */
function readManifest(dir) {
	/** @type {string} */
	let text;
	try {
		const file = path.join(dir, "package.json");
		if (fs.statSync(file).size > SCAN_LIMITS.bytesPerFile) return null;
		text = withoutBom(fs.readFileSync(file, "utf8"));
	} catch {
		return undefined;
	}
	try {
		const value = /** @type {unknown} */ (JSON.parse(text));
		return isObject(value) ? value : null;
	} catch {
		return null;
	}
}

export class SetupHealth {
	/**
	 * @param {object} o
	 * @param {NodeJS.ProcessEnv} o.env where SVC_NPM_REGISTRY is read
	 * @param {() => number} o.now
	 * @param {(line: string) => void} o.log
	 * @param {number} [o.updateTimeoutMs] the update's time limit; only tests make it shorter
	 */
	constructor({ env, now, log, updateTimeoutMs = UPDATE_TIMEOUT_MS }) {
		this.now = now;
		this.log = log;
		this.updateTimeoutMs = updateTimeoutMs;
		this.registry = new NpmRegistry({ env, now });
		/** @type {Map<string, {result: ScanResult, until: number}>} */
		this.cache = new Map();
		/** @type {Map<string, Promise<ScanResult>>} */
		this.scanning = new Map();
		/** Running updates by the package's real path, each with what ends it. @type {Map<string, () => void>} */
		this.updating = new Map();
		this.closed = false;
	}

	/**
	 * The workspace's scan, from the cache unless `force` or an hour has passed.
	 * @param {Workspace} workspace @param {{force: boolean}} o
	 * @returns {Promise<{result: ScanResult, cached: boolean}>}
	 */
	async scan(workspace, { force }) {
		const root = localRoot(workspace);
		const hit = this.cache.get(workspace.id);
		if (hit && !force && hit.until > this.now()) return { result: hit.result, cached: true };
		// Two requests for the same workspace share one walk.
		let running = this.scanning.get(workspace.id);
		if (!running) {
			running = this.#scan(workspace, root, force).finally(() => this.scanning.delete(workspace.id));
			this.scanning.set(workspace.id, running);
		}
		return { result: await running, cached: false };
	}

	/** @param {Workspace} workspace @param {string} root @param {boolean} force */
	async #scan(workspace, root, force) {
		const scannedAt = new Date(this.now()).toISOString();
		const { packages, limits } = await scanWorkspace(root, async () => this.registry.latest(await this.registry.registryFor(root), { force }));
		const result = { workspaceId: workspace.id, scannedAt, limits, packages };
		this.cache.set(workspace.id, { result, until: this.now() + SCAN_CACHE_MS });
		return result;
	}

	/** Drops a workspace's cached scan. @param {string} workspaceId */
	forget(workspaceId) {
		this.cache.delete(workspaceId);
	}

	/**
	 * Updates the logger in one package of a workspace with its package manager.
	 * @param {Workspace} workspace @param {string} packageDir
	 */
	async updateLogger(workspace, packageDir) {
		const root = localRoot(workspace);
		const pkg = updatablePackage(root, packageDir);
		if (this.updating.has(pkg.real)) throw new HttpError(409, `the logger of ${pkg.dir} is being updated already; wait for that update to end`);
		// Taken before anything is awaited, so that a second request sees it.
		/** @type {() => void} */
		let kill = () => {};
		this.updating.set(pkg.real, () => kill());
		try {
			const folders = [];
			for (let dir = pkg.real; ; dir = path.dirname(dir)) {
				folders.push({ files: fs.readdirSync(dir), packageManagerField: readManifest(dir)?.packageManager });
				if (dir === root) break;
			}
			const { manager } = findPackageManager(folders);
			const argv = updateCommand(manager, pkg.listedIn);
			if (this.closed) throw new HttpError(503, "svc-local is stopping");
			// The package manager reads the workspace's own configuration, as the scan did (a scoped
			// registry for the logger, the default one for everything else); only SVC_NPM_REGISTRY,
			// a mirror of everything, is passed to it.
			const mirror = this.registry.fromEnv ? registryEnv(this.registry.fromEnv) : {};
			const run = runProcessTree(argv, {
				cwd: pkg.real,
				env: { ...process.env, ...mirror, npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false", NO_COLOR: "1" },
				timeoutMs: this.updateTimeoutMs,
			});
			kill = run.kill;
			this.log(`updating ${LOGGER_PACKAGE} in ${path.join(root, pkg.dir)}: ${argv.join(" ")}`);
			const { exitCode, durationMs, outputTail, timedOut } = await run.done;
			this.log(`update in ${pkg.dir} ended: ${timedOut ? "timed out" : `exit code ${exitCode}`} after ${durationMs} ms`);
			return { ok: exitCode === 0, packageManager: manager, command: argv.join(" "), exitCode, durationMs, outputTail, timedOut };
		} finally {
			this.updating.delete(pkg.real);
			this.forget(workspace.id);
		}
	}

	/** Ends every running update (svc-local is stopping). */
	close() {
		this.closed = true;
		for (const kill of this.updating.values()) kill();
	}
}
