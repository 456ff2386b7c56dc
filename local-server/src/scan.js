// One setup-health scan of a workspace: every package (folder with a
// package.json) within the walk's limits, and for each whether it lists
// @svcapp/logger, the version installed and the latest, its package manager,
// whether it starts the logger with a key and an endpoint (or, without the
// logger, whether a Sentry SDK's DSN sends its errors to svc), and what to do
// about anything missing (how the logger is started: loggerConfiguration.js).
import path from "node:path";
import semver from "semver";
import { isObject } from "./json.js";
import { configuration, notConfigured, startedInPackages, startedUnlisted } from "./loggerConfiguration.js";
import { findInitCalls, isEnvFile, isSourceFile, isWranglerConfig, readEnvFile, readWranglerVars } from "./loggerInit.js";
import { findPackageManager, LOGGER_PACKAGE, listedIn, lockedVersion, loggerListedIn, updateCommand } from "./packageManagers.js";
import { dsnLiterals, dsnsOf, sentryFinding, sentrySdkOf } from "./sentrySdk.js";
import { BoundedReader, walk } from "./walk.js";

/** @typedef {import("./loggerInit.js").InitCall} InitCall */
/** @typedef {import("./npmRegistry.js").Latest} Latest */
/** @typedef {import("./packageManagers.js").PackageManager} PackageManager */

/**
 * @typedef {object} Finding
 * @property {string} code
 * @property {"error" | "warning" | "info"} severity error and warning: the package needs attention
 * @property {string} message what is wrong
 * @property {string} action what to do, in one sentence
 */

/**
 * @typedef {object} PackageHealth
 * @property {string} dir relative to the workspace, "." for its root
 * @property {string | null} name
 * @property {PackageManager} packageManager
 * @property {{listed: boolean, installed: string | null, latest: string | null, configured: import("./loggerConfiguration.js").Configured}} logger
 * @property {Finding[]} findings
 * @property {boolean} needsAttention a finding of severity error or warning
 */


/**
 * What the walk keeps of one folder; `envLinksOut`: its .env files that are symbolic links out of
 * the workspace (there, but not read); `importsSentry`: its source files that name a Sentry SDK.
 * @typedef {{files: string[], env: {file: string, vars: Record<string, string>}[], envLinksOut: string[], manifest: Record<string, unknown> | null, manifestError: string | null, initCalls: {file: string, call: InitCall}[], importsLogger: string[], importsSentry: string[], dsns: {file: string, value: string}[]}} Folder
 */

/** @param {string} rel a file's path in the workspace */
const dirOf = (rel) => path.posix.dirname(rel);

/** A test's file, or one under a folder of tests: no part of the app that runs. */
const TEST_FILE = /(?:^|\/)(?:tests?|e2e|__tests__|__mocks__|fixtures)\/|\.(?:test|spec)\.[cm]?[jt]sx?$/;

/** The folder itself, then each one above it up to the root ("."). @param {string} dir */
function upToRoot(dir) {
	const dirs = [dir];
	while (dir !== ".") {
		dir = path.posix.dirname(dir);
		dirs.push(dir);
	}
	return dirs;
}


/** @param {string} command @param {string} dir */
const inDir = (command, dir) => (dir === "." ? `\`${command}\` in the workspace folder` : `\`${command}\` in ${dir}`);

/**
 * Scans a workspace.
 * @param {string} root the workspace's real path
 * @param {() => Promise<Latest>} latestVersion the logger's latest version, asked once per scan (when a package lists it)
 * @returns {Promise<{packages: PackageHealth[], limits: ReturnType<BoundedReader["report"]>}>}
 */
export async function scanWorkspace(root, latestVersion) {
	const reader = new BoundedReader(root);
	/** @type {Map<string, Folder>} */
	const folders = new Map();
	/** @param {string} dir */
	const folder = (dir) => {
		let f = folders.get(dir);
		if (!f) {
			f = { files: [], env: [], envLinksOut: [], manifest: null, manifestError: null, initCalls: [], importsLogger: [], importsSentry: [], dsns: [] };
			folders.set(dir, f);
		}
		return f;
	};
	/** @type {string[]} */
	const packageDirs = [];

	await walk(reader, {
		wants: (name) => name === "package.json" || isWranglerConfig(name) || isEnvFile(name) || isSourceFile(name),
		onFile(rel, name, text) {
			const dir = dirOf(rel);
			folder(dir).files.push(name);
			if (text === null) {
				// A package whose package.json cannot be read is still a package, to be told about.
				if (name === "package.json" && reader.unreadable.has(rel)) packageDirs.push(dir);
				return;
			}
			if (name === "package.json") {
				packageDirs.push(dir);
				try {
					const manifest = /** @type {unknown} */ (JSON.parse(text));
					if (!isObject(manifest)) throw new Error("not a JSON object");
					folder(dir).manifest = manifest;
				} catch (err) {
					folder(dir).manifestError = err instanceof Error ? err.message : String(err);
				}
			} else if (isWranglerConfig(name)) {
				folder(dir).env.push({ file: rel, vars: readWranglerVars(name, text) });
			} else if (isEnvFile(name)) {
				folder(dir).env.push({ file: rel, vars: readEnvFile(text) });
			} else {
				for (const value of dsnLiterals(text)) folder(dir).dsns.push({ file: rel, value });
				if (/["'`]@sentry\//.test(text)) folder(dir).importsSentry.push(rel);
				const calls = findInitCalls(text, name);
				if (calls === null) return;
				folder(dir).importsLogger.push(rel);
				for (const call of calls) folder(dir).initCalls.push({ file: rel, call });
			}
		},
	});

	// A .env linked from out of the workspace is not read, but it is there: said as such, not as missing.
	for (const rel of reader.linksOut) if (isEnvFile(path.posix.basename(rel))) folder(dirOf(rel)).envLinksOut.push(rel);

	// Each source file belongs to the nearest package above it.
	const byDepth = [...packageDirs].sort((a, b) => b.length - a.length);
	/** @param {string} dir */
	const packageOf = (dir) => byDepth.find((p) => p === "." || dir === p || dir.startsWith(`${p}/`));
	/** @type {Map<string, {file: string, call: InitCall}[]>} */
	const initCalls = new Map();
	/** @type {Map<string, string[]>} */
	const importers = new Map();
	/** @type {Map<string, {file: string, value: string}[]>} */
	const dsnLiteralsOf = new Map();
	/** @type {Map<string, string[]>} */
	const sentryImporters = new Map();
	for (const [dir, f] of folders) {
		const pkg = packageOf(dir);
		if (pkg === undefined) continue;
		initCalls.set(pkg, [...(initCalls.get(pkg) ?? []), ...f.initCalls]);
		importers.set(pkg, [...(importers.get(pkg) ?? []), ...f.importsLogger]);
		dsnLiteralsOf.set(pkg, [...(dsnLiteralsOf.get(pkg) ?? []), ...f.dsns]);
		sentryImporters.set(pkg, [...(sentryImporters.get(pkg) ?? []), ...f.importsSentry]);
	}

	// A library of the workspace that another of its packages depends on: its errors are
	// thrown in that package, whose logger reports them.
	const manifests = packageDirs.flatMap((dir) => (folder(dir).manifest ? [{ dir, manifest: /** @type {Record<string, unknown>} */ (folder(dir).manifest) }] : []));
	/** @param {string} dir @param {string | null} name the dirs of the packages that list `name` */
	const dependents = (dir, name) => (name === null ? [] : manifests.filter((m) => m.dir !== dir && listedIn(m.manifest, name)).map((m) => m.dir));

	// What of each package could not be read, where an init call may be: its source files and
	// folders the walk could not open, each given to its package once.
	/** @type {Map<string, string[]>} */
	const unreadOf = new Map();
	for (const rel of reader.unreadable.keys()) {
		const pkg = reader.unreadableDirs.has(rel) ? packageOf(rel) : isSourceFile(path.posix.basename(rel)) ? packageOf(dirOf(rel)) : undefined;
		if (pkg === undefined) continue;
		const list = unreadOf.get(pkg) ?? [];
		list.push(rel);
		unreadOf.set(pkg, list);
	}

	/**
	 * Where a package starts the logger. A call in a test starts it for that test, not in the app
	 * that runs; `unread`: what of the package was not read, where a call may be (source files and
	 * folders it could not read; and `stopped`, everything after the walk stopped at a limit).
	 * @param {string} dir
	 */
	const readStarts = (dir) => {
		const inPackage = (/** @type {string} */ file) => (dir === "." ? file : file.slice(dir.length + 1));
		const [tests, calls] = partition(initCalls.get(dir) ?? [], (c) => TEST_FILE.test(inPackage(c.file)));
		return {
			calls,
			importers: (importers.get(dir) ?? []).filter((file) => !TEST_FILE.test(inPackage(file))),
			notRead: { unread: unreadOf.get(dir) ?? [], stopped: reader.stopped, tests: [...new Set(tests.map((c) => c.file))] },
		};
	};
	// Once per package: a monorepo's root asks it of every package below it, as well as each package of itself.
	const starts = new Map(packageDirs.map((dir) => [dir, readStarts(dir)]));
	/** @param {string} dir */
	const startsOf = (dir) => starts.get(dir) ?? readStarts(dir);

	/** @type {Latest | undefined} */
	let latest;
	/** @type {Omit<PackageHealth, "needsAttention">[]} */
	const packages = [];
	for (const dir of [...packageDirs].sort()) {
		const f = folder(dir);
		const chain = upToRoot(dir).map((d) => ({ dir: d, ...folder(d), packageManagerField: folder(d).manifest?.packageManager }));
		const pm = findPackageManager(chain);
		/** @type {Finding[]} */
		const findings = [];
		const manifest = f.manifest;
		if (!manifest) {
			const file = `${dir === "." ? "" : `${dir}/`}package.json`;
			const denied = reader.unreadable.get(file);
			findings.push({
				code: "package_json_unreadable",
				severity: "error",
				message: `package.json cannot be read: ${denied ?? f.manifestError}`,
				action: denied ? `Let the user svc-local runs as read ${file}, then scan again.` : `Fix the JSON of ${file} and scan again.`,
			});
			packages.push({ dir, name: null, packageManager: pm.manager, logger: { listed: false, installed: null, latest: null, configured: notConfigured() }, findings });
			continue;
		}
		const name = typeof manifest.name === "string" ? manifest.name : null;
		const loggerField = loggerListedIn(manifest);
		if (name === LOGGER_PACKAGE) {
			// The logger's own package: it does not depend on itself.
			findings.push({
				code: "logger_itself",
				severity: "info",
				message: `This package is ${LOGGER_PACKAGE} itself.`,
				action: "Nothing to do: the packages that use it list it.",
			});
			packages.push({ dir, name, packageManager: pm.manager, logger: { listed: false, installed: null, latest: null, configured: notConfigured() }, findings });
			continue;
		}
		if (!loggerField) {
			const starts = startsOf(dir);
			if (starts.calls.length > 0) {
				// Started without being listed: from a script the page loads, or installed by a package above.
				const provider = chain.slice(1).find((c) => c.manifest && loggerListedIn(c.manifest));
				findings.push(startedUnlisted(starts.calls, provider?.dir ?? null, inDir(updateCommand(pm.manager, "dependencies").join(" ").replace("@latest", ""), dir)));
				const configured = configuration(starts.calls, starts.importers, chain, findings, starts.notRead);
				packages.push({ dir, name, packageManager: pm.manager, logger: { listed: false, installed: null, latest: null, configured }, findings });
				continue;
			}
			const usedBy = dependents(dir, name);
			// A monorepo's root whose Sentry SDK only its tests import (svc's own repository tests
			// its Sentry compatibility so) has no app that reports with it.
			const monorepoRoot = isMonorepoRoot(manifest, f);
			const sentrySdk = monorepoRoot && (sentryImporters.get(dir) ?? []).every((rel) => TEST_FILE.test(rel)) ? null : sentrySdkOf(manifest);
			if (sentrySdk) {
				findings.push(sentryFinding(sentrySdk, dsnsOf(chain.flatMap((c) => c.env), dsnLiteralsOf.get(dir) ?? []), chain.flatMap((c) => c.envLinksOut)));
			} else if (usedBy.length > 0) {
				findings.push({
					code: "library_of_workspace",
					severity: "info",
					message: `A library of this workspace, used by ${usedBy.join(", ")}: its errors are reported by the logger of the package that uses it.`,
					action: `Nothing to do here; set the logger up in ${usedBy.join(", ")}.`,
				});
			} else if (!monorepoRoot) {
				findings.push({
					code: "logger_not_listed",
					severity: "warning",
					message: `${LOGGER_PACKAGE} is not a dependency of this package: its errors do not reach svc.`,
					action: `Add it with ${inDir(updateCommand(pm.manager, "dependencies").join(" ").replace("@latest", ""), dir)} and call init({ key, endpoint }) when it starts.`,
				});
			}
			packages.push({ dir, name, packageManager: pm.manager, logger: { listed: false, installed: null, latest: null, configured: notConfigured() }, findings });
			continue;
		}

		latest ??= await latestVersion();
		const range = /** @type {Record<string, unknown>} */ (manifest[loggerField])[LOGGER_PACKAGE];
		const installed = await installedVersion(reader, chain, pm, typeof range === "string" ? range : undefined);
		if (!installed) {
			findings.push({
				code: "logger_not_installed",
				severity: "error",
				message: `${LOGGER_PACKAGE} is listed but not installed (not in node_modules, nor in a lockfile).`,
				action: `Run ${inDir(`${pm.manager} install`, dir)}.`,
			});
		}
		if (!latest.ok) {
			// Nothing is wrong with the package for it: offline, or a registry without the logger,
			// it is not told it needs attention (nor does `svc-local health` exit 4).
			findings.push({
				code: "registry_unreachable",
				severity: "info",
				message: `The latest version of ${LOGGER_PACKAGE} is unknown: ${latest.error}.`,
				action: `Check that the registry (SVC_NPM_REGISTRY, else npm's configured registry) can be reached and serves ${LOGGER_PACKAGE}, then scan again.`,
			});
		} else if (installed && semver.valid(installed) && semver.lt(installed, latest.version)) {
			findings.push({
				code: "logger_outdated",
				severity: "warning",
				message: `${LOGGER_PACKAGE} ${installed} is installed; ${latest.version} is the latest.`,
				action: `Update it with the Update button or ${inDir(updateCommand(pm.manager, loggerField).join(" "), dir)}.`,
			});
		}
		const starts = startsOf(dir);
		// A monorepo's root that lists the logger for its packages, which start it themselves.
		const startedBelow = isMonorepoRoot(manifest, f) && starts.calls.length === 0 ? packageDirs.filter((d) => d !== dir && (dir === "." || d.startsWith(`${dir}/`)) && startsOf(d).calls.length > 0) : [];
		if (startedBelow.length > 0) findings.push(startedInPackages(startedBelow));
		const configured = startedBelow.length > 0 ? notConfigured() : configuration(starts.calls, starts.importers, chain, findings, starts.notRead);
		packages.push({ dir, name, packageManager: pm.manager, logger: { listed: true, installed, latest: latest.ok ? latest.version : null, configured }, findings });
	}
	return { packages: packages.map((p) => ({ ...p, needsAttention: p.findings.some((f) => f.severity !== "info") })), limits: reader.report() };
}


/**
 * The items `test` holds for, and the others.
 * @template T @param {T[]} items @param {(item: T) => boolean} test @returns {[T[], T[]]}
 */
function partition(items, test) {
	return [items.filter(test), items.filter((item) => !test(item))];
}

/**
 * A monorepo's root, which lists its packages rather than the logger.
 * @param {Record<string, unknown>} manifest @param {Folder} f
 */
function isMonorepoRoot(manifest, f) {
	return manifest.workspaces !== undefined || f.files.includes("pnpm-workspace.yaml");
}

/**
 * The installed version: node_modules of the package or a folder above it
 * (where it is hoisted) up to the folder of its lockfile, which is where it
 * was installed from; else the lockfile.
 * @param {BoundedReader} reader
 * @param {({dir: string} & Folder)[]} chain
 * @param {ReturnType<typeof findPackageManager>} pm
 * @param {string | undefined} range
 */
async function installedVersion(reader, chain, pm, range) {
	for (const { dir } of pm.lockfileIndex === -1 ? chain : chain.slice(0, pm.lockfileIndex + 1)) {
		const text = await reader.read(path.posix.join(dir, "node_modules", LOGGER_PACKAGE, "package.json"), { lookup: true });
		if (text === null) continue;
		try {
			const manifest = /** @type {unknown} */ (JSON.parse(text));
			if (isObject(manifest) && typeof manifest.version === "string") return manifest.version;
		} catch {
			// a damaged copy: try the next place
		}
	}
	if (pm.lockfile === null) return null;
	const lockDir = chain[pm.lockfileIndex].dir;
	const text = await reader.read(path.posix.join(lockDir, pm.lockfile), { lookup: true });
	if (text === null) return null;
	const dirFromLockfile = path.posix.relative(lockDir, chain[0].dir);
	return lockedVersion(pm.manager, text, { dirFromLockfile, range });
}
