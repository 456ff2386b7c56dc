// The logger update over real HTTP, run for real: the server runs the
// package's own package manager (npm; pnpm and yarn from the repository's
// devDependencies; bun when it is installed) against a local npm registry.
// Also: where an update is refused and that a refusal changes nothing, one
// update per package at a time, and the time limit ending the whole process
// tree (with a limit of seconds that only tests set).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closedAfterEachTest, ownerCall, tempDir, type TestServer, until } from "./helpers.js";
import { type LocalRegistry, startLocalRegistry } from "./localRegistry.js";

let registry: LocalRegistry;
const savedEnv = { ...process.env };
beforeAll(async () => {
	// The package managers the server starts inherit this process's environment: their caches
	// go to a folder of this run, so that nothing of the user's caches is read or changed.
	const caches = tempDir("svc-pm-caches-");
	process.env.npm_config_cache = path.join(caches, "npm");
	process.env.npm_config_store_dir = path.join(caches, "pnpm-store");
	process.env.YARN_CACHE_FOLDER = path.join(caches, "yarn");
	registry = await startLocalRegistry();
	registry.publish("1.0.0");
});
afterAll(async () => {
	process.env = savedEnv;
	await registry?.close();
});

const { server } = closedAfterEachTest();
const serverWithRegistry = (options: { updateTimeoutMs?: number } = {}) => server({ env: { SVC_NPM_REGISTRY: registry.url }, ...options });

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
const readJson = (file: string) => JSON.parse(fs.readFileSync(file, "utf8"));

function writeTree(root: string, files: Record<string, string>) {
	for (const [rel, text] of Object.entries(files)) {
		fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
		fs.writeFileSync(path.join(root, rel), text);
	}
}

/** Whether an executable of this name is on the PATH. */
function onPath(name: string) {
	return (process.env.PATH ?? "").split(path.delimiter).some((dir) => {
		try {
			fs.accessSync(path.join(dir, name), fs.constants.X_OK);
			return true;
		} catch {
			return false;
		}
	});
}

/** A process that is gone, or only a zombie waiting to be reaped. */
function gone(pid: number) {
	try {
		process.kill(pid, 0);
	} catch {
		return true;
	}
	try {
		return fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.startsWith("Z") ?? false;
	} catch {
		return true;
	}
}

async function addWorkspace(t: TestServer, dir: string) {
	const r = await ownerCall(t, "POST", "/api/workspaces", { path: dir });
	expect(r.status).toBe(201);
	return r.json.id as string;
}

const update = (t: TestServer, workspaceId: string, packageDir: string) => ownerCall(t, "POST", "/api/workspace/setup-health/update-logger", { workspaceId, packageDir });
const scan = (t: TestServer, id: string, force = false) => ownerCall(t, "GET", `/api/workspace/setup-health?workspaceId=${id}${force ? "&force=1" : ""}`);
const installed = (dir: string) => readJson(path.join(dir, "node_modules/@svcapp/logger/package.json")).version;

describe("logger update", () => {
	it("runs npm in the package: installs the latest logger, keeps a dev dependency a dev dependency, and drops the cached scan", async () => {
		const root = tempDir("svc-update-npm-");
		writeTree(root, {
			"app/package.json": json({ name: "app", version: "1.0.0", private: true, dependencies: { "@svcapp/logger": "^1.0.0" } }),
			"tools/package.json": json({ name: "tools", version: "1.0.0", private: true, devDependencies: { "@svcapp/logger": "^1.0.0" } }),
		});
		const t = await serverWithRegistry();
		const id = await addWorkspace(t, root);
		const before = (await scan(t, id)).json;
		expect(before.packages.find((p: any) => p.dir === "app").findings.map((f: any) => f.code)).toContain("logger_not_installed");

		const first = await update(t, id, "app");
		expect(first.status, first.text).toBe(200);
		expect(first.json).toMatchObject({ ok: true, packageManager: "npm", command: "npm install @svcapp/logger@latest", exitCode: 0, timedOut: false });
		expect(first.json.durationMs).toBeGreaterThanOrEqual(0);
		expect(first.json.outputTail).toMatch(/added 1 package/);
		expect(installed(path.join(root, "app"))).toBe("1.0.0");
		expect(fs.existsSync(path.join(root, "app/package-lock.json"))).toBe(true);

		// The cached scan was dropped: the next one, not forced, sees the install.
		const after = (await scan(t, id)).json;
		expect(after.cached).toBe(false);
		expect(after.packages.find((p: any) => p.dir === "app")).toMatchObject({ packageManager: "npm", logger: { installed: "1.0.0", latest: "1.0.0" } });

		// A new version: the scan (forced, so it asks the registry again) says so; the update takes it.
		registry.publish("1.1.0");
		const outdated = (await scan(t, id, true)).json.packages.find((p: any) => p.dir === "app");
		expect(outdated.findings.map((f: any) => f.code)).toEqual(["logger_outdated", "logger_not_initialised"]);
		expect((await update(t, id, `${root}/app/`)).json).toMatchObject({ ok: true, exitCode: 0 });
		expect(installed(path.join(root, "app"))).toBe("1.1.0");
		expect(readJson(path.join(root, "app/package.json")).dependencies).toEqual({ "@svcapp/logger": "^1.1.0" });

		const dev = await update(t, id, "./tools");
		expect(dev.json).toMatchObject({ ok: true, command: "npm install @svcapp/logger@latest --save-dev" });
		expect(readJson(path.join(root, "tools/package.json"))).toMatchObject({ devDependencies: { "@svcapp/logger": "^1.1.0" } });
		expect(readJson(path.join(root, "tools/package.json")).dependencies).toBeUndefined();
		expect(installed(path.join(root, "tools"))).toBe("1.1.0");
	});

	it("reads the workspace's own registries: the logger from its scoped registry, every other package from its default one", async () => {
		// Without SVC_NPM_REGISTRY: a private registry serves @svcapp, another is the default.
		const defaults = await startLocalRegistry();
		try {
			defaults.publishOther("left-pad-svc", "1.0.0");
			const root = tempDir("svc-update-scoped-");
			writeTree(root, {
				".npmrc": `@svcapp:registry=${registry.url}\nregistry=${defaults.url}\n`,
				"package.json": json({ name: "app", version: "1.0.0", private: true, dependencies: { "@svcapp/logger": "^1.0.0", "left-pad-svc": "^1.0.0" } }),
			});
			const t = await server();
			const id = await addWorkspace(t, root);
			const r = await update(t, id, ".");
			expect(r.json, r.text).toMatchObject({ ok: true, exitCode: 0 });
			expect(installed(root)).toBe(registry.latest());
			expect(readJson(path.join(root, "node_modules/left-pad-svc/package.json")).version).toBe("1.0.0");
			expect(defaults.requests.some((url) => url.startsWith("/left-pad-svc"))).toBe(true);
			expect(defaults.requests.some((url) => url.toLowerCase().startsWith("/@svcapp"))).toBe(false);
		} finally {
			await defaults.close();
		}
	});

	for (const [manager, lockfile] of [
		["pnpm", "pnpm-lock.yaml"],
		["yarn", "yarn.lock"],
		["bun", "bun.lock"],
	] as const) {
		it(`runs ${manager} in a package that uses ${manager}`, async (ctx) => {
			ctx.skip(!onPath(manager), `${manager} is not installed (not on the PATH), so its update cannot run here`);
			const root = tempDir(`svc-update-${manager}-`);
			const version = execFileSync(manager, ["--version"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
			writeTree(root, { "package.json": json({ name: `${manager}-app`, version: "1.0.0", private: true, packageManager: `${manager}@${version}`, dependencies: { "@svcapp/logger": "^1.0.0" } }) });
			const t = await serverWithRegistry();
			const id = await addWorkspace(t, root);
			const r = await update(t, id, ".");
			expect(r.json, r.text).toMatchObject({ ok: true, packageManager: manager, command: `${manager} add @svcapp/logger@latest`, exitCode: 0 });
			expect(installed(root)).toBe(registry.latest());
			expect(fs.existsSync(path.join(root, lockfile))).toBe(true);
			const health = (await scan(t, id)).json.packages[0];
			expect(health).toMatchObject({ packageManager: manager, logger: { installed: registry.latest(), latest: registry.latest() } });
		});
	}

	it("refuses a package outside the workspace, through a link, inside node_modules or without the logger, and changes nothing", async () => {
		const root = tempDir("svc-update-refused-");
		const outside = tempDir("svc-update-outside-");
		const listing = json({ name: "x", version: "1.0.0", dependencies: { "@svcapp/logger": "^1.0.0" } });
		writeTree(outside, { "package.json": listing });
		writeTree(root, {
			"app/package.json": listing,
			"lib/package.json": json({ name: "lib", version: "1.0.0", dependencies: { other: "^1.0.0" } }),
			"empty/.keep": "",
			"bad/package.json": "[1, 2]",
			"node_modules/dep/package.json": listing,
		});
		fs.symlinkSync(outside, path.join(root, "linked"));
		const t = await serverWithRegistry();
		const id = await addWorkspace(t, root);
		const ssh = (await ownerCall(t, "POST", "/api/workspaces", { path: "ssh://dev@box/code" })).json.id;
		const asked = registry.requests.length;

		const cases: [unknown, number, RegExp][] = [
			[{ workspaceId: id, packageDir: `../${path.basename(outside)}` }, 400, /is outside the workspace/],
			[{ workspaceId: id, packageDir: outside }, 400, /is outside the workspace/],
			[{ workspaceId: id, packageDir: "app/../.." }, 400, /is outside the workspace/],
			[{ workspaceId: id, packageDir: "linked" }, 400, /leads out of the workspace through a symbolic link/],
			[{ workspaceId: id, packageDir: "node_modules/dep" }, 400, /is inside node_modules/],
			[{ workspaceId: id, packageDir: "lib" }, 400, /the package\.json of "lib" does not list @svcapp\/logger/],
			[{ workspaceId: id, packageDir: "empty" }, 400, /"empty" has no package\.json/],
			[{ workspaceId: id, packageDir: "bad" }, 400, /is not a JSON object/],
			[{ workspaceId: id, packageDir: "missing" }, 400, /"missing" does not exist/],
			[{ workspaceId: id, packageDir: "app/package.json" }, 400, /is not a folder/],
			[{ workspaceId: id, packageDir: "" }, 400, /packageDir must be a non-empty string/],
			[{ workspaceId: id }, 400, /packageDir must be a non-empty string/],
			[{ workspaceId: id, packageDir: "app\u0000" }, 400, /control characters/],
			[{ workspaceId: id, packageDir: "a".repeat(4097) }, 400, /at most 4096 characters/],
			[{ packageDir: "app" }, 400, /workspaceId is required/],
			[{ workspaceId: 7, packageDir: "app" }, 400, /workspaceId must be a workspace id/],
			[{ workspaceId: "0000aaaa", packageDir: "app" }, 404, /no workspace with id 0000aaaa/],
			[{ workspaceId: ssh, packageDir: "app" }, 400, /on another machine/],
			["app", 400, /request body must be a JSON object/],
		];
		for (const [body, status, message] of cases) {
			const r = await ownerCall(t, "POST", "/api/workspace/setup-health/update-logger", body);
			expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(status);
			expect(r.json.error, JSON.stringify(body).slice(0, 80)).toMatch(message);
		}
		expect(registry.requests.length).toBe(asked); // no package manager ran
		for (const dir of [outside, path.join(root, "app"), path.join(root, "lib")]) {
			expect(fs.readdirSync(dir)).toEqual(["package.json"]);
		}
		expect(fs.readFileSync(path.join(outside, "package.json"), "utf8")).toBe(listing);
	});

	it("runs one update per package at a time and ends one that passes the time limit", async () => {
		const root = tempDir("svc-update-busy-");
		writeTree(root, { "package.json": json({ name: "busy", version: "1.0.0", dependencies: { "@svcapp/logger": "^1.0.0" } }) });
		const t = await serverWithRegistry({ updateTimeoutMs: 3000 });
		const id = await addWorkspace(t, root);
		registry.hold(true);
		try {
			const asked = registry.packumentRequests();
			const first = update(t, id, ".");
			await until(() => registry.packumentRequests() > asked, "npm to ask the registry");
			const second = await update(t, id, root);
			expect(second.status).toBe(409);
			expect(second.json.error).toMatch(/the logger of \. is being updated already/);
			const ended = await first;
			expect(ended.json).toMatchObject({ ok: false, packageManager: "npm", exitCode: null, timedOut: true });
			expect(ended.json.outputTail).toContain("[svc-local: stopped after 3000 ms]");
		} finally {
			registry.hold(false);
		}
		// Once it has ended, the package can be updated again.
		expect((await update(t, id, ".")).json).toMatchObject({ ok: true });
	});

	it("ends the whole process tree at the time limit: the package manager, its install script and what that started", async () => {
		const root = tempDir("svc-update-tree-");
		const pids = tempDir("svc-update-pids-");
		// An install script that starts a child and then never ends, like a hung build.
		const hang = `
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const dir = process.env.SVC_TEST_PID_DIR;
const child = spawn(process.execPath, ["-e", "require('node:fs').writeFileSync(process.argv[1] + '/grandchild', String(process.pid)); setInterval(() => {}, 1e6);", dir], { stdio: "ignore" });
fs.writeFileSync(dir + "/script", String(process.pid));
setInterval(() => {}, 1e6);
`;
		writeTree(root, {
			"package.json": json({ name: "tree", version: "1.0.0", dependencies: { "@svcapp/logger": "^1.0.0" }, allowScripts: { "@svcapp/logger": true } }),
		});
		process.env.SVC_TEST_PID_DIR = pids;
		const t = await serverWithRegistry({ updateTimeoutMs: 10_000 });
		const id = await addWorkspace(t, root);
		const previous = registry.latest()!;
		registry.publish("2.0.0-hang", { scripts: { postinstall: "node hang.cjs" }, files: { "hang.cjs": hang } });
		try {
			const r = await update(t, id, ".");
			expect(r.json).toMatchObject({ ok: false, exitCode: null, timedOut: true });
			expect(fs.readdirSync(pids).sort(), "the install script did not start within the 10 s limit").toEqual(["grandchild", "script"]);
			const started = ["script", "grandchild"].map((f) => Number(fs.readFileSync(path.join(pids, f), "utf8")));
			await until(() => started.every(gone), "the install script and its child to end");
		} finally {
			registry.tag(previous);
			delete process.env.SVC_TEST_PID_DIR;
			// Should the server not have ended them, this test does (they would run on forever).
			for (const file of fs.readdirSync(pids)) {
				try {
					process.kill(Number(fs.readFileSync(path.join(pids, file), "utf8")), "SIGKILL");
				} catch {
					// ended
				}
			}
		}
	});
});
