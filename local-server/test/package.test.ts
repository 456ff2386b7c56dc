// The package as a user gets it: `npm pack`, installed into a fresh project
// outside this repository (dependencies from the npm cache), then run through
// its bin: --help, --version, and a real start that serves the pairing page.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir, until } from "./helpers.js";

const PACKAGE_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const manifest = JSON.parse(fs.readFileSync(path.join(PACKAGE_DIR, "package.json"), "utf8"));

/**
 * The environment of a child npm: the npm running this test (npm test) sets
 * npm_config_local_prefix and others that would point the child at this
 * repository; only where the cache and the user's config are stays.
 */
function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
	const keep = new Set(["npm_config_cache", "npm_config_userconfig", "npm_config_registry"]);
	const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith("npm_") || keep.has(k.toLowerCase())));
	// This Node first on PATH, for npm and for the bin's `#!/usr/bin/env node`.
	return { ...env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}`, ...extra };
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
	const r = spawnSync(command, args, { cwd, env: cleanEnv(env), encoding: "utf8", timeout: 120_000 });
	if (r.error) throw r.error;
	return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Relative files and bare packages a source file refers to (imports and `new URL("...", import.meta.url)`). */
function references(file: string) {
	const code = fs
		.readFileSync(file, "utf8")
		.replace(/\/\*[\s\S]*?\*\//g, "")
		.replace(/^\s*\/\/.*$/gm, "");
	const specifiers = [
		...[...code.matchAll(/\bfrom\s+["']([^"']+)["']/g)].map((m) => m[1]),
		...[...code.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]),
		...[...code.matchAll(/new URL\(\s*["']([^"']+)["']\s*,\s*import\.meta\.url\s*\)/g)].map((m) => m[1]),
	];
	return {
		files: specifiers.filter((s) => s.startsWith(".")).map((s) => path.relative(PACKAGE_DIR, path.resolve(path.dirname(file), s))),
		// "/refresh.js" in the page is a URL the server answers, not a package.
		packages: specifiers.filter((s) => !/^(\.|\/|node:)/.test(s)).map((s) => s.split("/")[0]),
	};
}

let work: string;
let packed: { filename: string; files: { path: string; mode: number }[] };
let project: string;

beforeAll(() => {
	work = tempDir("svc-local-package-");
	const pack = run("npm", ["pack", "--json", "--pack-destination", work], PACKAGE_DIR);
	expect(pack.code, pack.stderr).toBe(0);
	packed = JSON.parse(pack.stdout)[0];
	project = path.join(work, "project");
	fs.mkdirSync(project);
	fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "svc-local-user", private: true }));
	const install = run("npm", ["install", "--prefer-offline", "--ignore-scripts", "--no-audit", "--no-fund", path.join(work, packed.filename)], project);
	expect(install.code, install.stderr).toBe(0);
});

afterAll(() => {
	if (work) fs.rmSync(work, { recursive: true, force: true });
});

describe("the packed svc-local", () => {
	it("holds every file its code refers to, and depends on every package it imports", () => {
		const inPack = new Set(packed.files.map((f) => f.path));
		expect(inPack).toContain(manifest.bin["svc-local"]);
		for (const target of Object.values(manifest.exports as Record<string, string>)) expect(inPack).toContain(path.normalize(target));
		// Walk from the bin and the module entry points through every reference.
		const seen = new Set<string>();
		const queue = [manifest.bin["svc-local"], ...Object.values(manifest.exports as Record<string, string>)].map((p: string) => path.normalize(p));
		const imported = new Set<string>();
		while (queue.length > 0) {
			const file = queue.pop()!;
			if (seen.has(file)) continue;
			seen.add(file);
			expect(inPack, `${file} is needed but not packed`).toContain(file);
			if (!file.endsWith(".js")) continue;
			const refs = references(path.join(PACKAGE_DIR, file));
			queue.push(...refs.files);
			for (const p of refs.packages) imported.add(p);
		}
		expect(seen).toContain("public/pair.js");
		expect(seen).toContain("src/refresh.js");
		expect([...imported].sort()).toEqual(Object.keys(manifest.dependencies).sort());
		// The bin is executable and starts with the shebang npx needs.
		const bin = packed.files.find((f) => f.path === manifest.bin["svc-local"])!;
		expect(bin.mode & 0o111).not.toBe(0);
		expect(fs.readFileSync(path.join(PACKAGE_DIR, bin.path), "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
	});

	it("runs through npx in a fresh project: --help and --version", () => {
		const help = run("npx", ["--no-install", "svc-local", "--help"], project);
		expect(help.code, help.stderr).toBe(0);
		expect(help.stdout).toContain(`svc-local ${manifest.version}:`);
		expect(help.stdout).toContain("svc-local connect [payload|-]");
		const version = run("npx", ["--no-install", "svc-local", "--version"], project);
		expect(version.code, version.stderr).toBe(0);
		expect(version.stdout).toBe(`${manifest.version}\n`);
		const pairHelp = run("npx", ["--no-install", "svc-local", "pair", "--help"], project);
		expect(pairHelp.code, pairHelp.stderr).toBe(0);
		expect(pairHelp.stdout).toMatch(/^Usage: svc-local pair/);
	});

	it("starts from the installed copy and serves the pairing page and its assets", async () => {
		const home = path.join(work, "home");
		const bin = path.join(project, "node_modules", ".bin", "svc-local");
		const child = spawn(bin, [], { cwd: project, env: cleanEnv({ SVC_HOME: home, SVC_PORT: "0", SVC_MODE: "isolated" }), stdio: ["pipe", "pipe", "pipe"] });
		let stderr = "";
		child.stderr.on("data", (c) => (stderr += c));
		const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
		try {
			const serverFile = path.join(home, "local-server.json");
			await until(() => fs.existsSync(serverFile) || child.exitCode !== null, "the packed server to start");
			expect(child.exitCode, stderr).toBeNull();
			const { port, pid } = JSON.parse(fs.readFileSync(serverFile, "utf8"));
			expect(pid).toBe(child.pid);
			for (const [pathname, type] of [
				["/", "text/html"],
				["/pair.js", "text/javascript"],
				["/pair.css", "text/css"],
				["/refresh.js", "text/javascript"],
				["/api/health", "application/json"],
			]) {
				const res = await fetch(`http://127.0.0.1:${port}${pathname}`);
				expect(res.status, pathname).toBe(200);
				expect(res.headers.get("content-type"), pathname).toContain(type);
				expect((await res.text()).length, pathname).toBeGreaterThan(0);
			}
		} finally {
			child.kill("SIGTERM");
		}
		expect(await exited, stderr).toBe(0);
	});
});
