// The setup-health scan's limits, each at its boundary and one past it (depth
// 8/9, 6,000/6,001 files read, 512/513 KiB in a file, 48 MiB in all), and its
// hour-long caches of scans and of the registry's latest logger version.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "./helpers.js";
import { startLocalRegistry } from "./localRegistry.js";
import { addWorkspace, byDir, codes, json, KIB, MIB, scan, scanningServers, sparseFile, writeTree } from "./setupHealthHelpers.js";

const HOUR = 3_600_000;

const { registry, server, serverWithRegistry } = scanningServers();

describe("setup-health scan: limits and caches", () => {
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

	it("reads 6,000 files and stops at the 6,001st, saying where", async () => {
		const root = tempDir("svc-files-");
		writeTree(root, { "package.json": json({ name: "files-root" }), "z/package.json": json({ name: "last" }) });
		fs.mkdirSync(path.join(root, "f"));
		// Source files, which the scan reads: each one counts.
		for (let i = 0; i < 5998; i++) fs.writeFileSync(path.join(root, "f", `${String(i).padStart(4, "0")}.js`), "");
		const t = await serverWithRegistry();
		const id = await addWorkspace(t, root);

		const atLimit = (await scan(t, id)).json;
		expect(atLimit.limits.used.files).toBe(6000);
		expect(atLimit.limits.hit).toEqual([]);
		expect(atLimit.packages.map((p: any) => p.name)).toEqual(["files-root", "last"]);

		fs.writeFileSync(path.join(root, "f", "5998.js"), "");
		const past = (await scan(t, id, true)).json;
		expect(past.limits.used.files).toBe(6000);
		expect(past.limits.hit).toEqual([{ limit: "files", count: 1, paths: ["z/package.json"], message: "the scan stopped here: at most 6,000 files are read" }]);
		expect(past.packages.map((p: any) => p.name)).toEqual(["files-root"]);
	});

	it("counts only the files it reads: 6,001 images, fonts and archives before the sources do not stop it", async () => {
		const root = tempDir("svc-files-unread-");
		const key = `svc_${"K".repeat(39)}unrd`;
		writeTree(root, {
			"package.json": json({ name: "gallery", dependencies: { "@svcapp/logger": "^1.2.0" } }),
			"node_modules/@svcapp/logger/package.json": json({ name: "@svcapp/logger", version: "1.2.0" }),
			".env": `SVC_KEY=${key}\n`,
			// Walked after assets/: read, since nothing there is.
			"src/index.js": 'import { init } from "@svcapp/logger";\ninit({ key: process.env.SVC_KEY, endpoint: "https://svc.example.com" });\n',
		});
		fs.mkdirSync(path.join(root, "assets"));
		const kinds = [".png", ".woff2", ".zip", ".txt"];
		for (let i = 0; i < 6001; i++) fs.writeFileSync(path.join(root, "assets", `${String(i).padStart(4, "0")}${kinds[i % kinds.length]}`), "\u0000\u0001");
		const t = await serverWithRegistry();
		const answer = (await scan(t, await addWorkspace(t, root))).json;
		expect(answer.limits.hit).toEqual([]);
		// package.json, .env and src/index.js; the installed logger's package.json is looked up after the walk.
		expect(answer.limits.used.files).toBe(3);
		const [pkg] = answer.packages;
		expect(pkg.logger.configured).toMatchObject({ ok: true, init: "src/index.js" });
		expect(pkg.findings).toEqual([]);
	});

	it("past 6,000 files still finds the installed logger, and does not assert a missing init it may not have read", async () => {
		const root = tempDir("svc-files-stop-");
		writeTree(root, {
			"package.json": json({ name: "icons", dependencies: { "@svcapp/logger": "^1.0.0" } }),
			"node_modules/@svcapp/logger/package.json": json({ name: "@svcapp/logger", version: "1.0.0" }),
			// Walked after the 6,001 scripts of assets/, so never read.
			"src/index.js": 'import { init } from "@svcapp/logger";\ninit({ key: process.env.SVC_KEY, endpoint: "https://svc.example.com" });\n',
		});
		fs.mkdirSync(path.join(root, "assets"));
		for (let i = 0; i < 6001; i++) fs.writeFileSync(path.join(root, "assets", `${String(i).padStart(4, "0")}.js`), "");
		const t = await serverWithRegistry();
		const answer = (await scan(t, await addWorkspace(t, root))).json;
		expect(answer.limits.hit.map((h: any) => h.limit)).toEqual(["files"]);
		const [pkg] = answer.packages;
		expect(pkg.logger.installed).toBe("1.0.0");
		expect(codes(pkg)).not.toContain("logger_not_installed");
		const notInit = pkg.findings.find((f: any) => f.code === "logger_not_initialised");
		expect(notInit.message).toBe(
			"No source file of this package imports @svcapp/logger and calls its init. The scan stopped at a limit before reading every file (see the limits reached): the call may be in a file it did not read.",
		);
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
			"at-limit/.env": "SVC_KEY=svc_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG\n",
			"past-limit/package.json": manifest,
			"past-limit/index.js": source(513 * KIB),
			"past-limit/.env": "SVC_KEY=svc_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG\n",
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
		const asked = registry().packumentRequests();

		const first = (await scan(t, id)).json;
		expect(registry().packumentRequests()).toBe(asked + 1);
		t.clock.advance(HOUR - 1);
		const cached = (await scan(t, id)).json;
		expect(cached).toEqual({ ...first, cached: true });
		// Another workspace on the same registry: the latest version from the cache.
		const otherAnswer = (await scan(t, await addWorkspace(t, other))).json;
		expect(otherAnswer).toMatchObject({ cached: false, packages: [{ logger: { latest: "1.2.0" } }] });
		expect(registry().packumentRequests()).toBe(asked + 1);

		t.clock.advance(1);
		const expired = (await scan(t, id)).json;
		expect(expired).toMatchObject({ cached: false, scannedAt: "2026-06-01T13:00:00.000Z" });
		expect(registry().packumentRequests()).toBe(asked + 2);

		// force=1 scans again and asks the registry again.
		const forced = (await scan(t, id, true)).json;
		expect(forced.cached).toBe(false);
		expect(registry().packumentRequests()).toBe(asked + 3);
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
		expect(unreachable).toMatchObject({ severity: "info" });
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
		writeTree(root, { "package.json": json({ name: "app", dependencies: { "@svcapp/logger": "^1.0.0" } }), ".npmrc": `registry=${registry().url}\n` });
		const t = await server({ env: {} });
		const asked = registry().packumentRequests();
		const answer = (await scan(t, await addWorkspace(t, root))).json;
		expect(answer.packages[0].logger.latest).toBe("1.2.0");
		expect(registry().packumentRequests()).toBe(asked + 1);
	});
});
