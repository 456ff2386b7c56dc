// The setup-health scan over real HTTP, of workspaces generated in temporary
// folders, with the latest logger version from a local npm registry: a
// monorepo whose packages use npm, pnpm, yarn and bun; each limit at its
// boundary and one past it (depth 8/9, 6,000/6,001 files, 512/513 KiB in a
// file, 48 MiB in all); symbolic links out of the workspace; keys in .env
// files never echoed; the hour-long caches; bad input.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomSecret } from "../src/secrets.js";
import { closedAfterEachTest, ownerCall, request, tempDir, type TestServer } from "./helpers.js";
import { type LocalRegistry, startLocalRegistry } from "./localRegistry.js";

const KIB = 1024;
const MIB = 1024 * KIB;
const HOUR = 3_600_000;

let registry: LocalRegistry;
beforeAll(async () => {
	registry = await startLocalRegistry();
	registry.publish("1.2.0");
});
afterAll(() => registry?.close());

const { server } = closedAfterEachTest();
const serverWithRegistry = (url = registry.url, log: (line: string) => void = () => {}) => server({ env: { SVC_NPM_REGISTRY: url }, log });

/** Writes files (relative path: content) under root. */
function writeTree(root: string, files: Record<string, string>) {
	for (const [rel, text] of Object.entries(files)) {
		fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
		fs.writeFileSync(path.join(root, rel), text);
	}
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** A file of `size` zero bytes that takes no room on disk. */
function sparseFile(file: string, size: number) {
	fs.writeFileSync(file, "");
	fs.truncateSync(file, size);
}

async function addWorkspace(t: TestServer, dir: string) {
	const r = await ownerCall(t, "POST", "/api/workspaces", { path: dir });
	expect(r.status).toBe(201);
	return r.json.id as string;
}

async function scan(t: TestServer, id: string, force = false) {
	const r = await ownerCall(t, "GET", `/api/workspace/setup-health?workspaceId=${id}${force ? "&force=1" : ""}`);
	if (r.status !== 200) throw new Error(`scan: ${r.status} ${r.text}`);
	return r;
}

const byDir = (answer: any) => Object.fromEntries(answer.packages.map((p: any) => [p.dir, p]));
const codes = (p: any) => p.findings.map((f: any) => f.code);

describe("setup-health scan", () => {
	it("reports every package of a monorepo: manager, installed and latest logger, init, key and endpoint, and what to do", async () => {
		const root = tempDir("svc-monorepo-");
		const outside = tempDir("svc-outside-");
		const npmKey = `svc_${randomSecret().replace(/-/g, "_")}`;
		const pnpmKey = `svc_${randomSecret().replace(/-/g, "_")}`;
		const outsideKey = `svc_${randomSecret().replace(/-/g, "_")}`;
		writeTree(outside, {
			"package.json": json({ name: "outside", dependencies: { "@svcapp/logger": "^1.0.0" } }),
			".env": `SVC_KEY=${outsideKey}\n`,
		});
		writeTree(root, {
			"package.json": json({ name: "shop", private: true, workspaces: ["packages/*"] }),
			".gitignore": "dist/\n/build\n*.log\n",
			".env": "SVC_ENDPOINT=https://svc.example.com\n",
			"package-lock.json": json({ lockfileVersion: 3, packages: { "": { name: "shop" }, "node_modules/@svcapp/logger": { version: "1.0.0" } } }),
			// Hoisted by npm to the root's node_modules, which the walk itself skips.
			"node_modules/@svcapp/logger/package.json": json({ name: "@svcapp/logger", version: "1.0.0" }),
			"node_modules/other/package.json": json({ name: "other", dependencies: { "@svcapp/logger": "^1.0.0" } }),
			".git/hooks/package.json": json({ name: "in-git" }),
			"dist/bundle/package.json": json({ name: "built", dependencies: { "@svcapp/logger": "^1.0.0" } }),
			"build/package.json": json({ name: "built-too" }),

			"packages/npm-app/package.json": json({ name: "npm-app", dependencies: { "@svcapp/logger": "^1.0.0" } }),
			"packages/npm-app/.env": `# the app's key\nSVC_KEY="${npmKey}"\n`,
			"packages/npm-app/src/server.js": `import * as logger from "@svcapp/logger";\nimport * as Sentry from "other";\nSentry.init({ dsn: "x" });\nlogger.init({\n  key: process.env.SVC_KEY,\n  endpoint: process.env.SVC_ENDPOINT,\n  release: "shop@1",\n});\n`,

			"packages/pnpm-app/package.json": json({ name: "pnpm-app", devDependencies: { "@svcapp/logger": "^1.2.0" } }),
			"packages/pnpm-app/pnpm-lock.yaml": `lockfileVersion: '9.0'\n\nimporters:\n\n  .:\n    devDependencies:\n      '@svcapp/logger':\n        specifier: ^1.2.0\n        version: 1.2.0\n\npackages:\n\n  '@svcapp/logger@1.2.0':\n    resolution: {integrity: sha512-x}\n`,
			"packages/pnpm-app/src/index.ts": `import { init as startLogger } from "@svcapp/logger";\nstartLogger({ key: "${pnpmKey}", endpoint: "https://svc.example.com" });\n`,

			"packages/yarn-app/package.json": json({ name: "yarn-app", dependencies: { "@svcapp/logger": "^1.1.0" } }),
			"packages/yarn-app/yarn.lock": `# yarn lockfile v1\n\n\n"@svcapp/logger@^1.0.0":\n  version "1.0.5"\n\n"@svcapp/logger@^1.1.0":\n  version "1.1.0"\n  resolved "http://127.0.0.1/logger-1.1.0.tgz"\n`,
			"packages/yarn-app/src/main.cjs": `const { init } = require("@svcapp/logger");\nconst Sentry = require("@sentry/node");\nSentry.init({ dsn: "https://k@o.example.com/1" });\ninit({ endpoint: "https://svc.example.com" });\n`,

			"packages/bun-app/package.json": json({ name: "bun-app", dependencies: { "@svcapp/logger": "latest" } }),
			"packages/bun-app/bun.lock": `{\n  "lockfileVersion": 1,\n  "packages": {\n    "@svcapp/logger": ["@svcapp/logger@1.2.0", "", {}, "sha512-x"],\n  }\n}\n`,
			"packages/bun-app/src/app.ts": `import { captureMessage } from "@svcapp/logger";\ncaptureMessage("hi");\n`,

			"packages/plain-lib/package.json": json({ name: "plain-lib" }),
			"packages/plain-lib/index.js": "export const x = 1;\n",
			"packages/broken/package.json": "{ oops",
			"packages/npm-app/debug.log": "not read",
		});
		fs.symlinkSync(outside, path.join(root, "linked"));
		fs.symlinkSync(path.join(outside, ".env"), path.join(root, "packages/plain-lib/.env"));
		fs.symlinkSync(path.join(root, "packages/plain-lib"), path.join(root, "alias"));

		const logged: string[] = [];
		const t = await serverWithRegistry(registry.url, (line) => logged.push(line));
		const id = await addWorkspace(t, root);
		const r = await scan(t, id);
		const answer = r.json;
		expect(answer).toMatchObject({ workspaceId: id, scannedAt: "2026-06-01T12:00:00.000Z", cached: false, access: "local" });
		expect(answer.limits).toMatchObject({ depth: 8, files: 6000, bytesPerFile: 512 * KIB, totalBytes: 48 * MIB, hit: [] });
		const packages = byDir(answer);
		expect(Object.keys(packages)).toEqual([".", "packages/broken", "packages/bun-app", "packages/npm-app", "packages/plain-lib", "packages/pnpm-app", "packages/yarn-app"]);

		// The monorepo's root lists its packages, not the logger: nothing to do there.
		expect(packages["."]).toMatchObject({ name: "shop", packageManager: "npm", logger: { listed: false }, findings: [], needsAttention: false });

		expect(packages["packages/npm-app"]).toMatchObject({
			name: "npm-app",
			packageManager: "npm",
			logger: {
				listed: true,
				installed: "1.0.0",
				latest: "1.2.0",
				configured: {
					ok: true,
					init: "packages/npm-app/src/server.js",
					key: `found in packages/npm-app/.env (…${npmKey.slice(-4)})`,
					endpoint: "found in .env (https://svc.example.com)",
				},
			},
			needsAttention: true,
		});
		expect(packages["packages/npm-app"].findings).toEqual([
			{
				code: "logger_outdated",
				severity: "warning",
				message: "@svcapp/logger 1.0.0 is installed; 1.2.0 is the latest.",
				action: "Update it with the Update button or `npm install @svcapp/logger@latest` in packages/npm-app.",
			},
		]);

		expect(packages["packages/pnpm-app"]).toMatchObject({
			packageManager: "pnpm",
			logger: { installed: "1.2.0", latest: "1.2.0", configured: { ok: true, key: `found in packages/pnpm-app/src/index.ts (…${pnpmKey.slice(-4)})` } },
			needsAttention: false,
		});
		expect(codes(packages["packages/pnpm-app"])).toEqual(["key_in_source"]);
		expect(packages["packages/pnpm-app"].findings[0].severity).toBe("info");

		// yarn: the lockfile entry of the range package.json asks for.
		expect(packages["packages/yarn-app"]).toMatchObject({ packageManager: "yarn", logger: { installed: "1.1.0", configured: { ok: false, key: null } }, needsAttention: true });
		expect(codes(packages["packages/yarn-app"])).toEqual(["logger_outdated", "key_missing"]);
		expect(packages["packages/yarn-app"].findings[0].action).toContain("`yarn add @svcapp/logger@latest` in packages/yarn-app");

		expect(packages["packages/bun-app"]).toMatchObject({ packageManager: "bun", logger: { installed: "1.2.0", configured: { ok: false, init: null } } });
		expect(packages["packages/bun-app"].findings).toEqual([
			expect.objectContaining({ code: "logger_not_initialised", severity: "error", message: "packages/bun-app/src/app.ts imports @svcapp/logger but no call to its init was found." }),
		]);

		expect(packages["packages/plain-lib"]).toMatchObject({ packageManager: "npm", logger: { listed: false }, needsAttention: true });
		expect(packages["packages/plain-lib"].findings).toEqual([
			{
				code: "logger_not_listed",
				severity: "warning",
				message: "@svcapp/logger is not a dependency of this package: its errors do not reach svc.",
				action: "Add it with `npm install @svcapp/logger` in packages/plain-lib and call init({ key, endpoint }) when it starts.",
			},
		]);
		expect(packages["packages/broken"]).toMatchObject({ name: null, needsAttention: true });
		expect(codes(packages["packages/broken"])).toEqual(["package_json_unreadable"]);

		// Never a whole key, anywhere: the answer, the log, the state directory.
		for (const key of [npmKey, pnpmKey, outsideKey]) {
			expect(r.text).not.toContain(key);
			expect(logged.join("\n")).not.toContain(key);
			for (const { file, text } of fs.readdirSync(t.home).map((f) => ({ file: f, text: fs.readFileSync(path.join(t.home, f), "utf8") }))) expect(text, file).not.toContain(key);
		}
		// Nothing behind the links out of the workspace was read.
		expect(r.text).not.toContain(outsideKey.slice(-4));
		expect(r.text).not.toContain("outside");
		// The latest version was asked for once.
		expect(registry.packumentRequests()).toBeGreaterThanOrEqual(1);
	});

	it("says what is missing from init's key and endpoint, and reads a browser page's svcLogger.init", async () => {
		const root = tempDir("svc-init-");
		const listing = (name: string) => json({ name, dependencies: { "@svcapp/logger": "^1.2.0" } });
		const installedCopy = json({ name: "@svcapp/logger", version: "1.2.0" });
		const packages: Record<string, string> = {
			unset: 'import * as logger from "@svcapp/logger";\nlogger.init({ key: process.env.MISSING_KEY, endpoint: import.meta.env.VITE_SVC_ENDPOINT });\n',
			expression: 'import { init } from "@svcapp/logger";\nimport { config } from "./config.js";\ninit(config.logger);\n',
			"bad-endpoint": 'import { init } from "@svcapp/logger";\ninit({ key: "svc_literal0123456789abcdef", endpoint: "svc.example.com" });\n',
			"no-endpoint": 'const logger = require("@svcapp/logger");\nlogger.init({ key: process.env.SVC_KEY });\n',
		};
		const files: Record<string, string> = {
			"unset/.env.example": "MISSING_KEY=svc_example0123456789abcdef\n",
			"no-endpoint/.env.local": "SVC_KEY=svc_local0123456789abcdefgh\n",
			"browser/package.json": listing("browser"),
			"browser/node_modules/@svcapp/logger/package.json": installedCopy,
			"browser/index.html": '<script src="/svc-logger.browser.js"></script>\n<script>\n  svcLogger.init({ key: "svc_page0123456789abcdefgh", endpoint: "https://svc.example.com" });\n</script>\n',
		};
		for (const [name, source] of Object.entries(packages)) {
			files[`${name}/package.json`] = listing(name);
			files[`${name}/node_modules/@svcapp/logger/package.json`] = installedCopy;
			files[`${name}/src/index.js`] = source;
		}
		writeTree(root, files);
		const t = await serverWithRegistry();
		const packagesByDir = byDir((await scan(t, await addWorkspace(t, root))).json);

		expect(packagesByDir.unset.logger.configured).toEqual({ ok: false, init: "unset/src/index.js", key: "MISSING_KEY (not set in any .env file)", endpoint: "VITE_SVC_ENDPOINT (not set in any .env file)" });
		expect(packagesByDir.unset.findings).toEqual([
			{
				code: "key_not_found",
				severity: "warning",
				message: "init in unset/src/index.js reads the key from MISSING_KEY, which no .env file of this package sets.",
				action: "Set MISSING_KEY=<your project key> in .env, or make sure the environment the app runs in sets it.",
			},
			expect.objectContaining({ code: "endpoint_not_found", severity: "warning" }),
		]);
		expect(packagesByDir.expression).toMatchObject({
			logger: { configured: { ok: true, key: "set in expression/src/index.js by an expression (not followed)" } },
			findings: [],
			needsAttention: false,
		});
		expect(codes(packagesByDir["bad-endpoint"])).toEqual(["key_in_source", "endpoint_invalid"]);
		expect(packagesByDir["no-endpoint"].logger.configured).toMatchObject({ ok: false, key: "found in no-endpoint/.env.local (…efgh)", endpoint: null });
		expect(codes(packagesByDir["no-endpoint"])).toEqual(["endpoint_missing"]);
		expect(packagesByDir.browser.logger.configured).toEqual({
			ok: true,
			init: "browser/index.html",
			key: "found in browser/index.html (…efgh)",
			endpoint: "found in browser/index.html (https://svc.example.com)",
		});
	});

	it("walks 8 folders deep and says where it stopped at the 9th", async () => {
		const root = tempDir("svc-depth-");
		const eight = "a1/a2/a3/a4/a5/a6/a7/a8";
		writeTree(root, {
			[`${eight}/package.json`]: json({ name: "depth-8" }),
			[`${eight}/a9/package.json`]: json({ name: "depth-9" }),
			[`${eight}/a9/a10/package.json`]: json({ name: "depth-10" }),
		});
		const t = await serverWithRegistry();
		const { json: answer } = await scan(t, await addWorkspace(t, root));
		expect(answer.packages.map((p: any) => p.name)).toEqual(["depth-8"]);
		expect(answer.limits.hit).toEqual([{ limit: "depth", count: 1, paths: [`${eight}/a9`], message: "folders more than 8 levels deep were not scanned" }]);
	});

	it("scans 6,000 files and stops at the 6,001st, saying where", async () => {
		const root = tempDir("svc-files-");
		writeTree(root, { "package.json": json({ name: "files-root" }), "z/package.json": json({ name: "last" }) });
		fs.mkdirSync(path.join(root, "f"));
		for (let i = 0; i < 5998; i++) fs.writeFileSync(path.join(root, "f", `${String(i).padStart(4, "0")}.txt`), "");
		const t = await serverWithRegistry();
		const id = await addWorkspace(t, root);

		const atLimit = (await scan(t, id)).json;
		expect(atLimit.limits.used.files).toBe(6000);
		expect(atLimit.limits.hit).toEqual([]);
		expect(atLimit.packages.map((p: any) => p.name)).toEqual(["files-root", "last"]);

		fs.writeFileSync(path.join(root, "f", "5998.txt"), "");
		const past = (await scan(t, id, true)).json;
		expect(past.limits.used.files).toBe(6000);
		expect(past.limits.hit).toEqual([{ limit: "files", count: 1, paths: ["z/package.json"], message: "the scan stopped here: at most 6,000 files are scanned" }]);
		expect(past.packages.map((p: any) => p.name)).toEqual(["files-root"]);
	});

	it("reads 512 KiB of a file: an init call at the end of a 512 KiB file is found, past it in a 513 KiB file it is not", async () => {
		const root = tempDir("svc-bytes-");
		const head = 'import * as logger from "@svcapp/logger";\n/*';
		const tail = '*/\nlogger.init({ key: process.env.SVC_KEY, endpoint: "https://svc.example.com" });\n';
		const source = (size: number) => head + "x".repeat(size - head.length - tail.length) + tail;
		const manifest = json({ name: "p", dependencies: { "@svcapp/logger": "^1.2.0" } });
		writeTree(root, {
			"at-limit/package.json": manifest,
			"at-limit/index.js": source(512 * KIB),
			"at-limit/.env": "SVC_KEY=svc_0123456789abcdefghij\n",
			"past-limit/package.json": manifest,
			"past-limit/index.js": source(513 * KIB),
			"past-limit/.env": "SVC_KEY=svc_0123456789abcdefghij\n",
		});
		expect(fs.statSync(path.join(root, "at-limit/index.js")).size).toBe(524_288);
		const t = await serverWithRegistry();
		const { json: answer } = await scan(t, await addWorkspace(t, root));
		const packages = byDir(answer);
		expect(packages["at-limit"].logger.configured).toMatchObject({ ok: true, init: "at-limit/index.js" });
		expect(packages["past-limit"].logger.configured).toMatchObject({ ok: false, init: null });
		expect(codes(packages["past-limit"])).toContain("logger_not_initialised");
		expect(answer.limits.hit).toEqual([{ limit: "bytesPerFile", count: 1, paths: ["past-limit/index.js"], message: "only the first 512 KiB of these files were read" }]);
	});

	it("reads 48 MiB in all and stops at the file that would pass it", async () => {
		const root = tempDir("svc-total-");
		const manifest = json({ name: "big" });
		writeTree(root, { "package.json": manifest, "z/package.json": json({ name: "after" }) });
		fs.mkdirSync(path.join(root, "src"));
		// Sparse files: 95 of 512 KiB and one that makes 48 MiB with package.json, read as zeros.
		for (let i = 0; i < 95; i++) sparseFile(path.join(root, "src", `${String(i).padStart(2, "0")}.js`), 512 * KIB);
		const zPackage = Buffer.byteLength(json({ name: "after" }));
		sparseFile(path.join(root, "src", "95.js"), 512 * KIB - Buffer.byteLength(manifest) - zPackage);
		const t = await serverWithRegistry();
		const id = await addWorkspace(t, root);

		const atLimit = (await scan(t, id)).json;
		expect(atLimit.limits.used.bytes).toBe(48 * MIB);
		expect(atLimit.limits.hit).toEqual([]);
		expect(atLimit.packages.map((p: any) => p.name)).toEqual(["big", "after"]);

		fs.writeFileSync(path.join(root, "src", "96.js"), "x");
		const past = (await scan(t, id, true)).json;
		expect(past.limits.used.bytes).toBe(48 * MIB - zPackage + 1);
		expect(past.limits.hit).toEqual([{ limit: "totalBytes", count: 1, paths: ["z/package.json"], message: "the scan stopped here: at most 48 MiB are read in all" }]);
		expect(past.packages.map((p: any) => p.name)).toEqual(["big"]);
	});

	it("answers a scan from the last hour unless forced, and asks the registry once an hour", async () => {
		const root = tempDir("svc-cache-");
		writeTree(root, { "package.json": json({ name: "app", dependencies: { "@svcapp/logger": "^1.0.0" } }) });
		const other = tempDir("svc-cache-other-");
		writeTree(other, { "package.json": json({ name: "other", dependencies: { "@svcapp/logger": "^1.0.0" } }) });
		const t = await serverWithRegistry();
		const id = await addWorkspace(t, root);
		const asked = registry.packumentRequests();

		const first = (await scan(t, id)).json;
		expect(registry.packumentRequests()).toBe(asked + 1);
		t.clock.advance(HOUR - 1);
		const cached = (await scan(t, id)).json;
		expect(cached).toEqual({ ...first, cached: true });
		// Another workspace on the same registry: the latest version from the cache.
		const otherAnswer = (await scan(t, await addWorkspace(t, other))).json;
		expect(otherAnswer).toMatchObject({ cached: false, packages: [{ logger: { latest: "1.2.0" } }] });
		expect(registry.packumentRequests()).toBe(asked + 1);

		t.clock.advance(1);
		const expired = (await scan(t, id)).json;
		expect(expired).toMatchObject({ cached: false, scannedAt: "2026-06-01T13:00:00.000Z" });
		expect(registry.packumentRequests()).toBe(asked + 2);

		// force=1 scans again and asks the registry again.
		const forced = (await scan(t, id, true)).json;
		expect(forced.cached).toBe(false);
		expect(registry.packumentRequests()).toBe(asked + 3);
		// A changed package shows at once when forced.
		writeTree(root, { "package.json": json({ name: "renamed", dependencies: { "@svcapp/logger": "^1.0.0" } }) });
		expect((await scan(t, id)).json.packages[0].name).toBe("app");
		expect((await scan(t, id, true)).json.packages[0].name).toBe("renamed");
	});

	it("says when the registry cannot be reached or does not have the logger", async () => {
		const root = tempDir("svc-registry-");
		writeTree(root, { "package.json": json({ name: "app", dependencies: { "@svcapp/logger": "^1.0.0" } }) });
		const closed = await startLocalRegistry();
		const closedUrl = closed.url;
		await closed.close();
		const down = await serverWithRegistry(closedUrl);
		const downAnswer = (await scan(down, await addWorkspace(down, root))).json;
		expect(downAnswer.packages[0].logger.latest).toBeNull();
		const unreachable = downAnswer.packages[0].findings.find((f: any) => f.code === "registry_unreachable");
		expect(unreachable).toMatchObject({ severity: "warning" });
		expect(unreachable.message).toContain(`${closedUrl} cannot be reached`);

		const empty = await startLocalRegistry();
		try {
			const t = await serverWithRegistry(empty.url);
			const answer = (await scan(t, await addWorkspace(t, root))).json;
			expect(answer.packages[0].findings.find((f: any) => f.code === "registry_unreachable").message).toContain(`${empty.url} has no @svcapp/logger (HTTP 404)`);
		} finally {
			await empty.close();
		}
	});

	it("uses npm's configured registry when SVC_NPM_REGISTRY is not set", async () => {
		const root = tempDir("svc-npmrc-");
		writeTree(root, { "package.json": json({ name: "app", dependencies: { "@svcapp/logger": "^1.0.0" } }), ".npmrc": `registry=${registry.url}\n` });
		const t = await server({ env: {} });
		const asked = registry.packumentRequests();
		const answer = (await scan(t, await addWorkspace(t, root))).json;
		expect(answer.packages[0].logger.latest).toBe("1.2.0");
		expect(registry.packumentRequests()).toBe(asked + 1);
	});

	it("refuses bad input with a 4xx that says why", async () => {
		const t = await serverWithRegistry();
		const root = tempDir("svc-bad-");
		writeTree(root, { "package.json": json({ name: "app" }) });
		const local = await addWorkspace(t, root);
		const ssh = (await ownerCall(t, "POST", "/api/workspaces", { path: "dev@box:code" })).json.id;
		const cases: [string, number, RegExp][] = [
			["", 400, /workspaceId is required/],
			["?workspaceId=", 400, /workspaceId is required/],
			["?workspaceId=../etc", 400, /workspaceId must be a workspace id/],
			["?workspaceId=0000aaaa", 404, /no workspace with id 0000aaaa/],
			[`?workspaceId=${ssh}`, 400, /is on another machine \(dev@box:code\): setup health checks local workspaces only/],
			[`?workspaceId=${local}&force=yes`, 400, /force must be 1/],
		];
		for (const [query, status, message] of cases) {
			const r = await ownerCall(t, "GET", `/api/workspace/setup-health${query}`);
			expect(r.status, query).toBe(status);
			expect(r.json.error, query).toMatch(message);
		}
		expect((await request(t.server.port, `/api/workspace/setup-health?workspaceId=${local}`)).status).toBe(401);
		expect((await ownerCall(t, "POST", `/api/workspace/setup-health?workspaceId=${local}`)).status).toBe(405);

		fs.rmSync(root, { recursive: true });
		const gone = await ownerCall(t, "GET", `/api/workspace/setup-health?workspaceId=${local}`);
		expect(gone.status).toBe(409);
		expect(gone.json.error).toMatch(/is gone or is not a folder; restore it or remove the workspace/);
	});
});
