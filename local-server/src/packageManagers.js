// What svc-local knows of npm, pnpm, yarn and bun: which lockfile each
// writes, how to read the logger's locked version from it, and the command
// that updates the logger.
import semver from "semver";

export const LOGGER_PACKAGE = "@svcapp/logger";

/** @typedef {"npm" | "pnpm" | "yarn" | "bun"} PackageManager */

/** Lockfiles and who writes them, in the order they are looked for. @type {ReadonlyMap<string, PackageManager>} */
const LOCKFILES = new Map([
	["package-lock.json", "npm"],
	["npm-shrinkwrap.json", "npm"],
	["pnpm-lock.yaml", "pnpm"],
	["yarn.lock", "yarn"],
	["bun.lock", "bun"],
	["bun.lockb", "bun"],
]);

/**
 * The package manager of a package: the first lockfile found in its folder
 * or a folder above it, else the `packageManager` field ("pnpm@9.1.0") of its
 * package.json or one above, else npm.
 * @param {{files: string[], packageManagerField: unknown}[]} folders the package's folder first, then each one up to the workspace root, with the names of their files
 * @returns {{manager: PackageManager, lockfileIndex: number, lockfile: string | null}} lockfileIndex: which folder holds the lockfile
 */
export function findPackageManager(folders) {
	for (const [index, { files }] of folders.entries()) {
		const lockfile = [...LOCKFILES.keys()].find((name) => files.includes(name));
		if (lockfile) return { manager: /** @type {PackageManager} */ (LOCKFILES.get(lockfile)), lockfileIndex: index, lockfile };
	}
	for (const { packageManagerField } of folders) {
		const name = typeof packageManagerField === "string" ? packageManagerField.split("@")[0] : "";
		if (name === "npm" || name === "pnpm" || name === "yarn" || name === "bun") return { manager: name, lockfileIndex: -1, lockfile: null };
	}
	return { manager: "npm", lockfileIndex: -1, lockfile: null };
}

/** @param {string} s */
const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const LOGGER = escapeRegExp(LOGGER_PACKAGE);
/** A resolved version after "@svcapp/logger@" (pnpm 9, bun, yarn berry's "npm:") or "/@svcapp/logger/" (pnpm 5). */
const ANY_LOCKED = new RegExp(`${LOGGER}[@/](?:npm:)?(\\d+\\.\\d+\\.\\d+[\\w.+-]*)`, "g");

/** @param {Iterable<string>} versions the highest valid one, or null */
function highest(versions) {
	const valid = [...versions].filter((v) => semver.valid(v));
	return valid.sort(semver.rcompare)[0] ?? null;
}

/**
 * The logger's version in a lockfile's text (possibly cut at 512 KiB),
 * for the package `dirFromLockfile` away from the lockfile's folder.
 * @param {PackageManager} manager @param {string} text
 * @param {{dirFromLockfile: string, range: string | undefined}} pkg dirFromLockfile: "" for the lockfile's own folder
 * @returns {string | null}
 */
export function lockedVersion(manager, text, { dirFromLockfile, range }) {
	if (manager === "npm") {
		// lockfileVersion 2 and 3: "packages/api/node_modules/@svcapp/logger": {"version": ...}, else the hoisted copy; 1: "dependencies".
		for (const key of [`${dirFromLockfile ? `${dirFromLockfile}/` : ""}node_modules/${LOGGER_PACKAGE}`, `node_modules/${LOGGER_PACKAGE}`, LOGGER_PACKAGE]) {
			const m = new RegExp(`"${escapeRegExp(key)}"\\s*:\\s*\\{[^{}]*?"version"\\s*:\\s*"([^"]+)"`).exec(text);
			if (m) return m[1];
		}
		return null;
	}
	if (manager === "pnpm") {
		// importers: <dir>: dependencies: '@svcapp/logger': {specifier, version}. A package the
		// lockfile lists without the logger has none locked, whatever other packages have.
		const importer = new RegExp(`\\n  ${escapeRegExp(dirFromLockfile || ".")}:\\n((?:    .*\\n|\\n)*)`).exec(text);
		const m = importer && new RegExp(`'?${LOGGER}'?:\\n\\s+specifier: .*\\n\\s+version: (\\d[^\\s(]*)`).exec(importer[1]);
		if (importer) return m ? m[1] : null;
	}
	if (manager === "yarn") {
		// "@svcapp/logger@^1.0.0": version "1.0.0" (yarn 1), or "@svcapp/logger@npm:^1.0.0": version: 1.0.0 (yarn 2+).
		// With the package's range, only its own entry: another range's is another package's.
		const entries = [...text.matchAll(new RegExp(`^"?(${LOGGER}@[^\\n]*):\\n\\s+version:? "?([^"\\s]+)"?`, "gm"))];
		if (entries.length > 0) {
			if (!range) return entries[0][2];
			const mine = entries.find(([, header]) => header.split(/,\s*/).some((h) => h.replace(/"/g, "").replace("@npm:", "@") === `${LOGGER_PACKAGE}@${range}`));
			return mine ? mine[2] : null;
		}
	}
	return highest([...text.matchAll(ANY_LOCKED)].map((m) => m[1]));
}

/** How each one adds a package, and keeps it a dev or optional dependency. */
const ADD = {
	npm: { verb: "install", devDependencies: "--save-dev", optionalDependencies: "--save-optional" },
	pnpm: { verb: "add", devDependencies: "--save-dev", optionalDependencies: "--save-optional" },
	yarn: { verb: "add", devDependencies: "--dev", optionalDependencies: "--optional" },
	bun: { verb: "add", devDependencies: "--dev", optionalDependencies: "--optional" },
};

/**
 * The command that updates the logger to its latest version, keeping it in
 * the same kind of dependency.
 * @param {PackageManager} manager @param {"dependencies" | "devDependencies" | "optionalDependencies"} listedIn
 */
export function updateCommand(manager, listedIn) {
	const { verb, ...kinds } = ADD[manager];
	return [manager, verb, `${LOGGER_PACKAGE}@latest`, ...(listedIn === "dependencies" ? [] : [kinds[listedIn]])];
}

/**
 * The environment that points a package manager at a registry: npm, pnpm and
 * yarn 1 read npm_config_registry, yarn 2+ and bun their own.
 * @param {string} registry
 */
export function registryEnv(registry) {
	return { npm_config_registry: registry, YARN_NPM_REGISTRY_SERVER: registry, BUN_CONFIG_REGISTRY: registry };
}

/**
 * Where package.json lists the logger, if it does.
 * @param {Record<string, unknown>} manifest
 * @returns {"dependencies" | "devDependencies" | "optionalDependencies" | null}
 */
export function loggerListedIn(manifest) {
	return listedIn(manifest, LOGGER_PACKAGE);
}

/**
 * Where a manifest lists a package: dependencies, devDependencies or optionalDependencies, else null.
 * @param {Record<string, unknown>} manifest @param {string} name
 */
export function listedIn(manifest, name) {
	for (const field of /** @type {const} */ (["dependencies", "devDependencies", "optionalDependencies"])) {
		const deps = manifest[field];
		if (typeof deps === "object" && deps !== null && Object.hasOwn(deps, name)) return field;
	}
	return null;
}
