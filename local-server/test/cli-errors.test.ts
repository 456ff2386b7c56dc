// What the command line says when the state directory cannot be used (a
// file, a read-only parent, another user's folder) or an address cannot be
// reached: the folder or address and the reason, in words, with exit code 1,
// rather than an errno and a system call or fetch's bare "fetch failed".
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BIN } from "./cliProcesses.js";
import { asRoot, canDrop, withoutFileRights } from "./fileRights.js";
import { tempDir } from "./helpers.js";

const restores: (() => void)[] = [];
afterEach(() => {
	for (const restore of restores.splice(0)) restore();
});

/** svc-local to its end, without the rights that bypass file modes; a server that did start is stopped by its timeout. */
function run(args: string[], env: NodeJS.ProcessEnv) {
	const [command, argv] = withoutFileRights([process.execPath, BIN, ...args]);
	const r = spawnSync(command, argv, { env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_PORT: "0", ...env }, encoding: "utf8", timeout: 10_000 });
	return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const FIX = "fix it, or set SVC_HOME to a folder of yours";

/** A port on this machine where nothing listens. */
async function closedPort() {
	const server = net.createServer().listen(0, "127.0.0.1");
	await new Promise((resolve) => server.once("listening", resolve));
	const { port } = server.address() as net.AddressInfo;
	await new Promise((resolve) => server.close(resolve));
	return port;
}

describe("a state directory that cannot be used", () => {
	it("a file, or under one: start and the owner's commands say so", () => {
		const file = path.join(tempDir(), "not-a-folder");
		fs.writeFileSync(file, "x");
		for (const [home, args] of [
			[file, []],
			[file, ["devices"]],
			[file, ["workspace", "list", "--json"]],
			[path.join(file, "svc"), []],
			[path.join(file, "svc"), ["pair"]],
		] as const) {
			const r = run([...args], { SVC_HOME: home });
			expect(r.code, `${home} ${args.join(" ")}`).toBe(1);
			expect(r.stdout).toBe("");
			expect(r.stderr).toBe(`svc-local: cannot use the state directory ${home}: it or a folder above it is a file, not a folder; ${FIX}\n`);
		}
	});

	it.skipIf(!canDrop)("under a read-only folder, and another user's folder: permission denied, nothing started", () => {
		const parent = path.join(tempDir(), "locked");
		fs.mkdirSync(parent, { mode: 0o500 });
		restores.push(() => fs.chmodSync(parent, 0o700));
		const home = path.join(parent, "svc");
		const r = run([], { SVC_HOME: home });
		expect(r.code).toBe(1);
		expect(r.stdout).toBe("");
		expect(r.stderr).toBe(`svc-local: cannot use the state directory ${home}: permission denied (it or a folder above it belongs to another user or is read-only); ${FIX}\n`);
		expect(fs.existsSync(home)).toBe(false);

		if (!asRoot) return; // only root can give a folder to another user
		const theirs = path.join(tempDir(), "theirs");
		fs.mkdirSync(theirs, { mode: 0o700 });
		fs.writeFileSync(path.join(theirs, "local-server.json"), "{}", { mode: 0o600 });
		fs.chownSync(theirs, 65534, 65534);
		for (const args of [[], ["devices"]]) {
			const r = run(args, { SVC_HOME: theirs });
			expect(r.code, args.join(" ")).toBe(1);
			expect(r.stderr).toBe(`svc-local: cannot use the state directory ${theirs}: permission denied (it or a folder above it belongs to another user or is read-only); ${FIX}\n`);
		}
	});
});

describe("an address that cannot be reached", () => {
	it("connect and login name the reason, not fetch's bare 'fetch failed'", async () => {
		const port = await closedPort();
		const payload = JSON.stringify({ v: 3, baseUrl: `http://127.0.0.1:${port}`, baseUrls: [`http://127.0.0.1:${port}`], pairToken: "x" });
		const connect = run(["connect", payload], { SVC_HOME: path.join(tempDir(), "laptop") });
		expect(connect.code).toBe(1);
		// Once, in one line: the address tried and why it failed.
		expect(connect.stderr).toBe(`svc-local: pairing failed: http://127.0.0.1:${port}/api/pairing/exchange unreachable: connect ECONNREFUSED 127.0.0.1:${port}\n`);
		// Each address of a code is named with its reason, each once.
		const other = await closedPort();
		const two = JSON.stringify({ v: 3, baseUrls: [`http://127.0.0.1:${port}`, `http://127.0.0.1:${other}`], pairToken: "x" });
		expect(run(["connect", two], { SVC_HOME: path.join(tempDir(), "laptop2") }).stderr).toBe(
			`svc-local: pairing failed: http://127.0.0.1:${port}/api/pairing/exchange unreachable: connect ECONNREFUSED 127.0.0.1:${port}; ` +
				`http://127.0.0.1:${other}/api/pairing/exchange unreachable: connect ECONNREFUSED 127.0.0.1:${other}\n`,
		);
		// Reconnecting with a saved credential: one line per attempt, with the reason, not one per address and another per attempt.
		const saved = path.join(tempDir(), "laptop3");
		fs.mkdirSync(saved);
		fs.writeFileSync(path.join(saved, "device.json"), JSON.stringify({ deviceId: "d", credential: "c", baseUrls: [`http://127.0.0.1:${port}`], pairedAt: "2026-01-01T00:00:00.000Z" }));
		const retrying = spawnSync(process.execPath, [BIN, "connect"], { env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_HOME: saved }, encoding: "utf8", timeout: 2_500 });
		const lines = retrying.stderr.trim().split("\n");
		expect(lines.length).toBeGreaterThanOrEqual(1);
		for (const line of lines) {
			expect(line).toMatch(
				new RegExp(`^svc-local connect: no connection ticket: http://127\\.0\\.0\\.1:${port}/api/pairing/ws-ticket unreachable: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}; retrying in \\d+ s$`),
			);
		}
		const login = run(["login", `http://127.0.0.1:${port}`, "--token", "t"], { SVC_HOME: path.join(tempDir(), "desk") });
		expect(login.code).toBe(1);
		expect(login.stderr).toBe(`svc-local: cannot reach http://127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}\n`);
	});
});
