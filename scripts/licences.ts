/**
 * The licences of what the project ships: the production dependencies (transitively) of the
 * Worker (the root package) and of every workspace package (the console, svc-local, clients/*),
 * read from the installed packages' package.json files. Development dependencies are not shipped
 * and not walked.
 */
import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import satisfies from "spdx-satisfies";

/** Licences that let anyone use, change and serve the project without taking on other terms. */
const PERMISSIVE = ["MIT", "ISC", "BSD-2-Clause", "BSD-3-Clause", "Apache-2.0", "Unlicense", "0BSD", "CC0-1.0"];

/**
 * Whether an SPDX expression can be met with permissive licences alone: "(MIT OR GPL-3.0)" can,
 * "(MIT AND GPL-3.0)" cannot. No licence, or one that is not an SPDX expression, is not permissive.
 */
export function isPermissive(expression: string | undefined): boolean {
	if (!expression) return false;
	try {
		return satisfies(expression, PERMISSIVE);
	} catch {
		return false;
	}
}

interface Manifest {
	name?: string;
	version?: string;
	license?: string | { type?: string };
	/** The form before SPDX expressions: a list of licences to choose from. */
	licenses?: { type?: string }[];
	workspaces?: string[];
	dependencies?: Record<string, string>;
	optionalDependencies?: Record<string, string>;
	peerDependencies?: Record<string, string>;
	peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

export interface InstalledPackage {
	name: string;
	version: string;
	/** As the package declares it, as one SPDX expression ("" when it declares none). */
	license: string;
	/** The workspace package whose production dependencies brought it in first. */
	requiredBy: string;
}

function readManifest(dir: string): Manifest {
	return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
}

function declaredLicense(manifest: Manifest): string {
	if (typeof manifest.license === "string") return manifest.license;
	if (manifest.license?.type) return manifest.license.type;
	const choices = (manifest.licenses ?? []).map((l) => l.type).filter(Boolean);
	return choices.length > 1 ? `(${choices.join(" OR ")})` : (choices[0] ?? "");
}

/** The root package and its workspaces ("dir" or "dir/*" patterns), as directories. */
function projectPackages(root: string): string[] {
	const patterns = readManifest(root).workspaces ?? [];
	const dirs = patterns.flatMap((pattern) => {
		if (!pattern.endsWith("/*")) return [join(root, pattern)];
		const parent = join(root, pattern.slice(0, -2));
		return readdirSync(parent, { withFileTypes: true })
			.filter((entry) => entry.isDirectory())
			.map((entry) => join(parent, entry.name));
	});
	return [root, ...dirs.filter((dir) => existsSync(join(dir, "package.json")))];
}

/** Where Node would load `name` from when required from `dir`: the nearest node_modules up. */
function resolvePackage(name: string, dir: string, root: string): string | null {
	for (let at = dir; ; at = join(at, "..")) {
		const candidate = join(at, "node_modules", name);
		if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate);
		if (at === root || at === join(at, "..")) return null;
	}
}

/**
 * Every package that a production install of the project's packages would carry: each one's
 * `dependencies`, `optionalDependencies` (when installed) and `peerDependencies`, transitively.
 * Throws when a required dependency is not installed: the answer would be incomplete.
 */
export function productionDependencies(root: string): InstalledPackage[] {
	const found = new Map<string, InstalledPackage>();
	for (const workspace of projectPackages(root)) {
		const requiredBy = readManifest(workspace).name ?? workspace;
		const pending = [workspace];
		while (pending.length > 0) {
			const dir = pending.pop() as string; // the loop runs only while one is pending
			const manifest = readManifest(dir);
			const optional = new Set([
				...Object.keys(manifest.optionalDependencies ?? {}),
				...Object.entries(manifest.peerDependenciesMeta ?? {})
					.filter(([, meta]) => meta.optional)
					.map(([name]) => name),
			]);
			const names = new Set([
				...Object.keys(manifest.dependencies ?? {}),
				...Object.keys(manifest.optionalDependencies ?? {}),
				...Object.keys(manifest.peerDependencies ?? {}),
			]);
			for (const name of names) {
				const at = resolvePackage(name, dir, root);
				if (!at) {
					if (optional.has(name)) continue;
					throw new Error(`${name}, a dependency of ${manifest.name ?? dir}, is not installed: run npm install`);
				}
				if (found.has(at)) continue;
				const dependency = readManifest(at);
				found.set(at, {
					name: dependency.name ?? name,
					version: dependency.version ?? "",
					license: declaredLicense(dependency),
					requiredBy,
				});
				pending.push(at);
			}
		}
	}
	return [...found.values()];
}
