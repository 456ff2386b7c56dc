// The setup-health scan over real HTTP, of workspaces generated in temporary
// folders, with the latest logger version from a local npm registry: a
// monorepo whose packages use npm, pnpm, yarn and bun; symbolic links out of
// the workspace; keys in .env files never echoed; bad input. Limits and caches
// are in setupHealth-limits.test.ts.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { randomSecret } from "../src/secrets.js";
import { ownerCall, request, tempDir } from "./helpers.js";
import { addWorkspace, byDir, codes, json, KIB, MIB, scan, scanningServers, writeTree } from "./setupHealthHelpers.js";

const { registry, serverWithRegistry } = scanningServers();

/** A key of a project key's shape (svc_ and 43 letters and digits) that ends in `tail`. */
const keyEndingIn = (tail: string) => `svc_${"K".repeat(43 - tail.length)}${tail}`;

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
		const t = await serverWithRegistry(registry().url, (line) => logged.push(line));
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
		// Not followed, but said: the owner learns why a linked package is missing.
		expect(answer.limits.linksOut).toEqual({ count: 2, paths: ["linked", "packages/plain-lib/.env"] });
		// The latest version was asked for once.
		expect(registry().packumentRequests()).toBeGreaterThanOrEqual(1);
	});

	it("says what is missing from init's key and endpoint, and reads a browser page's svcLogger.init", async () => {
		const root = tempDir("svc-init-");
		const listing = (name: string) => json({ name, dependencies: { "@svcapp/logger": "^1.2.0" } });
		const installedCopy = json({ name: "@svcapp/logger", version: "1.2.0" });
		const packages: Record<string, string> = {
			unset: 'import * as logger from "@svcapp/logger";\nlogger.init({ key: process.env.MISSING_KEY, endpoint: import.meta.env.VITE_SVC_ENDPOINT });\n',
			expression: 'import { init } from "@svcapp/logger";\nimport { config } from "./config.js";\ninit(config.logger);\n',
			// The options spread from an object this reading does not follow: they may well hold the key and endpoint.
			spread: 'import * as logger from "@svcapp/logger";\nimport { svc } from "./config.js";\nlogger.init({ ...svc, release: "shop@1", tags: { ...svc.tags } });\n',
			"nested-spread": 'import * as logger from "@svcapp/logger";\nlogger.init({ endpoint: "https://svc.example.com", initialScope: { ...scope } });\n',
			"bad-endpoint": `import { init } from "@svcapp/logger";\ninit({ key: "${keyEndingIn("cdef")}", endpoint: "svc.example.com" });\n`,
			"no-endpoint": 'const logger = require("@svcapp/logger");\nlogger.init({ key: process.env.SVC_KEY });\n',
			fallback: 'import { init } from "@svcapp/logger";\ninit({ key: process.env.SVC_KEY ?? "", endpoint: process.env.SVC_URL ?? "https://svc.example.com" });\n',
			commented:
				'import { init } from "@svcapp/logger";\nconst url = "https://svc.example.com"; // init({ key: process.env.SVC_KEY, endpoint: url });\n/* init({ key: "svc_block0123456789abcdefgh" }) */\n',
		};
		const files: Record<string, string> = {
			"unset/.env.example": "MISSING_KEY=svc_example0123456789abcdef\n",
			"no-endpoint/.env.local": `SVC_KEY=${keyEndingIn("efgh")}\n`,
			"browser/package.json": listing("browser"),
			"browser/node_modules/@svcapp/logger/package.json": installedCopy,
			"browser/index.html": `<script src="/svc-logger.browser.js"></script>\n<script>\n  svcLogger.init({ key: "${keyEndingIn("efgh")}", endpoint: "https://svc.example.com" });\n</script>\n`,
		};
		for (const [name, source] of Object.entries(packages)) {
			files[`${name}/package.json`] = listing(name);
			files[`${name}/node_modules/@svcapp/logger/package.json`] = installedCopy;
			files[`${name}/src/index.js`] = source;
		}
		// A manifest and a source file an editor began with a byte order mark: read as npm reads them.
		files["bom/package.json"] = `\ufeff${listing("bom")}`;
		files["bom/node_modules/@svcapp/logger/package.json"] = installedCopy;
		files["bom/src/index.js"] = '\ufeffimport { init } from "@svcapp/logger";\ninit({ key: process.env.SVC_KEY, endpoint: "https://svc.example.com" });\n';
		files["bom/.env"] = `\ufeffSVC_KEY=${keyEndingIn("ghij")}\n`;
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
		expect(packagesByDir.spread).toMatchObject({
			logger: {
				configured: {
					ok: true,
					key: "set in spread/src/index.js by an expression (not followed)",
					endpoint: "set in spread/src/index.js by an expression (not followed)",
				},
			},
			findings: [],
			needsAttention: false,
		});
		// A spread inside another option's value passes no key to init.
		expect(codes(packagesByDir["nested-spread"])).toEqual(["key_missing"]);
		expect(codes(packagesByDir["bad-endpoint"])).toEqual(["key_in_source", "endpoint_invalid"]);
		expect(packagesByDir["bad-endpoint"].logger.configured.ok).toBe(false);
		expect(packagesByDir["no-endpoint"].logger.configured).toMatchObject({ ok: false, key: "found in no-endpoint/.env.local (…efgh)", endpoint: null });
		expect(codes(packagesByDir["no-endpoint"])).toEqual(["endpoint_missing"]);
		expect(packagesByDir.bom).toMatchObject({ logger: { configured: { ok: true, key: "found in bom/.env (…ghij)" } }, findings: [] });
		// A variable with a literal fallback: the fallback stands when nothing sets it; an empty one stands for nothing.
		expect(packagesByDir.fallback.logger.configured).toMatchObject({ ok: false, endpoint: "SVC_URL is not set: the fallback in fallback/src/index.js (https://svc.example.com)" });
		expect(codes(packagesByDir.fallback)).toEqual(["key_not_found"]);
		// A call in a comment starts nothing.
		expect(packagesByDir.commented.logger.configured).toMatchObject({ ok: false });
		expect(codes(packagesByDir.commented)).toEqual(["logger_not_initialised"]);
		expect(packagesByDir.browser.logger.configured).toEqual({
			ok: true,
			init: "browser/index.html",
			key: "found in browser/index.html (…efgh)",
			endpoint: "found in browser/index.html (https://svc.example.com)",
		});
	});

	it("says when a key cannot be a project key, and shows nothing of a short one", async () => {
		const root = tempDir("svc-key-shape-");
		const current = `svc_${randomSecret().replace(/[-_]/g, "x")}`;
		// Keys created before they were letters and digits only may hold "-" and "_", and still work.
		const older = `svc_${randomSecret().slice(0, 41)}-_`;
		const unprefixed = randomSecret();
		const keys: Record<string, string> = { current, older, short: "abc123", unprefixed, "short-literal": "svc_0123" };
		const files: Record<string, string> = {};
		for (const [name, key] of Object.entries(keys)) {
			files[`${name}/package.json`] = json({ name, dependencies: { "@svcapp/logger": "^1.2.0" } });
			files[`${name}/node_modules/@svcapp/logger/package.json`] = json({ name: "@svcapp/logger", version: "1.2.0" });
			if (name === "short-literal") {
				files[`${name}/src/index.js`] = `import { init } from "@svcapp/logger";\ninit({ key: "${key}", endpoint: "https://svc.example.com" });\n`;
			} else {
				files[`${name}/.env`] = `SVC_KEY=${key}\n`;
				files[`${name}/src/index.js`] = 'import { init } from "@svcapp/logger";\ninit({ key: process.env.SVC_KEY, endpoint: "https://svc.example.com" });\n';
			}
		}
		writeTree(root, files);
		const t = await serverWithRegistry();
		const r = await scan(t, await addWorkspace(t, root));
		const packagesByDir = byDir(r.json);

		for (const name of ["current", "older"]) {
			expect(packagesByDir[name], name).toMatchObject({ logger: { configured: { ok: true, key: `found in ${name}/.env (…${keys[name].slice(-4)})` } }, findings: [], needsAttention: false });
		}
		expect(packagesByDir.short).toMatchObject({ logger: { configured: { ok: false, key: "found in short/.env (…)" } }, needsAttention: true });
		expect(packagesByDir.short.findings).toEqual([
			{
				code: "key_invalid",
				severity: "error",
				message: "SVC_KEY in short/.env is not a project key: a project key is svc_ and 43 letters and digits.",
				action: "Set SVC_KEY to the project key the console's Projects area showed when it was created; regenerate it there if it is lost.",
			},
		]);
		expect(packagesByDir.unprefixed).toMatchObject({ logger: { configured: { ok: false, key: `found in unprefixed/.env (…${unprefixed.slice(-4)})` } }, needsAttention: true });
		expect(codes(packagesByDir.unprefixed)).toEqual(["key_invalid"]);
		expect(packagesByDir["short-literal"]).toMatchObject({ logger: { configured: { ok: false, key: "found in short-literal/src/index.js (…)" } } });
		expect(codes(packagesByDir["short-literal"])).toEqual(["key_in_source", "key_invalid"]);
		expect(packagesByDir["short-literal"].findings[1]).toMatchObject({
			message: "The key written in short-literal/src/index.js is not a project key: a project key is svc_ and 43 letters and digits.",
			action: "Set it to the project key the console's Projects area showed when it was created; regenerate it there if it is lost.",
		});
		for (const key of Object.values(keys)) expect(r.text).not.toContain(key);
	});

	it("reads a lockfile's entry for the package only: another package's or another range's logger is not this one's", async () => {
		const root = tempDir("svc-locks-");
		writeTree(root, {
			// yarn: the package asks for ^2.0.0; the lockfile holds only a ^1.0.0 entry.
			"yarn-app/package.json": json({ name: "yarn-app", dependencies: { "@svcapp/logger": "^2.0.0" } }),
			"yarn-app/yarn.lock": `# yarn lockfile v1\n\n\n"@svcapp/logger@^1.0.0":\n  version "1.0.5"\n`,
			// pnpm: the package's importer does not list the logger; another importer does.
			"pnpm-repo/package.json": json({ name: "pnpm-repo", private: true }),
			"pnpm-repo/pnpm-workspace.yaml": "packages:\n  - apps/*\n",
			"pnpm-repo/pnpm-lock.yaml": `lockfileVersion: '9.0'\n\nimporters:\n\n  apps/api:\n    dependencies:\n      '@svcapp/logger':\n        specifier: ^1.0.0\n        version: 1.0.0\n\n  apps/web:\n    dependencies:\n      other:\n        specifier: ^1.0.0\n        version: 1.0.0\n`,
			"pnpm-repo/apps/web/package.json": json({ name: "web", dependencies: { "@svcapp/logger": "^1.0.0" } }),
		});
		const t = await serverWithRegistry();
		const packagesByDir = byDir((await scan(t, await addWorkspace(t, root))).json);
		expect(packagesByDir["yarn-app"].logger.installed).toBeNull();
		expect(codes(packagesByDir["yarn-app"])).toContain("logger_not_installed");
		expect(packagesByDir["pnpm-repo/apps/web"].logger.installed).toBeNull();
		expect(codes(packagesByDir["pnpm-repo/apps/web"])).toContain("logger_not_installed");
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
