// The command line as real processes: `svc-local` (start, QR, key press,
// quit), `svc-local pair`, `svc-local devices`, `svc-local revoke`, and
// `svc-local connect` on a second "computer" (its own SVC_HOME).
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, cliProcesses, payloads, started } from "./cliProcesses.js";
import { mode, tempDir, until } from "./helpers.js";
import { startLocalRegistry } from "./localRegistry.js";

const { spawnCli, runCli } = cliProcesses();
const hasScript = spawnSync("script", ["--version"]).status === 0;


describe("svc-local command line", () => {
	it("start, pair, connect, devices, revoke, quit; to output that is not a terminal, no pairing code", async () => {
		const home = path.join(tempDir(), "desk");
		const deviceHome = path.join(tempDir(), "laptop");
		const server = spawnCli([], { SVC_HOME: home, SVC_PORT: "0", SVC_MODE: "isolated" });
		await until(() => started(server.out.stdout), "the start");

		const info = JSON.parse(fs.readFileSync(path.join(home, "local-server.json"), "utf8"));
		expect(info).toMatchObject({ pid: server.child.pid, host: "127.0.0.1", mode: "isolated" });
		const token = fs.readFileSync(path.join(home, "owner-token"), "utf8").trim();
		expect(mode(path.join(home, "owner-token"))).toBe(0o600);
		const out = server.out.stdout;
		expect(out).toContain(`svc-local (isolated) listening on 127.0.0.1:${info.port}`);
		expect(out).toContain(`pairing page: http://127.0.0.1:${info.port}/`);
		// To a pipe (a log, a service's journal), the token stays in its file: a log would keep it.
		expect(out).not.toContain(token);
		expect(out).toContain(`owner token: saved in ${path.join(home, "owner-token")} (mode 0600); not printed, as this output is not a terminal`);
		// Nor a live pairing code, which whoever reads the log could pair with: how to get one instead.
		const howToPair = `pairing code: not printed, as this output is not a terminal and may be kept in a log; run svc-local pair, or open http://127.0.0.1:${info.port}/, for one`;
		expect(out).toContain(howToPair);
		expect(payloads(out)).toEqual([]);
		expect(out).not.toContain("pairToken");
		expect(out).not.toMatch(/\u2584|\u2580|\u2588/); // no QR code (block characters)
		expect(out).not.toContain("\x1b["); // to a pipe: plain text, no colour codes
		// Its stdin is a pipe, not a terminal: nobody there can press n or q, so they are not offered.
		expect(out).not.toContain("Press n");

		// A key press there says again how to get a code, and prints none.
		server.child.stdin.write("n");
		await until(() => server.out.stdout.split(howToPair).length === 3, "the hint again after the key press");
		expect(payloads(server.out.stdout)).toEqual([]);

		// `svc-local pair` against the running server: asked for, it prints one.
		const pair = await runCli(["pair"], { SVC_HOME: home });
		expect(pair.code).toBe(0);
		const [code] = payloads(pair.stdout);
		expect(code).toMatchObject({ v: 3, baseUrl: `http://127.0.0.1:${info.port}`, baseUrls: [`http://127.0.0.1:${info.port}`] });
		expect(code.pairToken).toMatch(/^[A-Za-z0-9_-]{43}$/);

		// Another computer connects with it, and stays connected.
		const connect = spawnCli(["connect", JSON.stringify(code), "--name", "Build Box"], { SVC_HOME: deviceHome });
		await until(() => /connected \(device /.test(connect.out.stdout), "the device to connect");
		expect(mode(path.join(deviceHome, "device.json"))).toBe(0o600);
		const deviceId = JSON.parse(fs.readFileSync(path.join(deviceHome, "device.json"), "utf8")).deviceId;

		// A token that is not the server's: the command says where the one it sent came from.
		const wrong = await runCli(["devices"], { SVC_HOME: home, SVC_OWNER_TOKEN: "not-this-servers-token" });
		expect(wrong.code).toBe(1);
		expect(wrong.stderr).toBe("svc-local: owner session is not valid (HTTP 401): SVC_OWNER_TOKEN is not the running server's owner token\n");

		const devices = await runCli(["devices"], { SVC_HOME: home });
		expect(devices.stdout).toMatch(new RegExp(`${deviceId}  Build Box  Desktop  Online  127\\.0\\.0\\.1`));

		// A used code is refused with a clear message.
		const reused = await runCli(["connect", JSON.stringify(code)], { SVC_HOME: path.join(tempDir(), "other") });
		expect(reused.code).toBe(1);
		expect(reused.stderr).toMatch(/pairing failed: .*401 pairing code is invalid, expired or already used/);
		const garbage = await runCli(["connect", "{not json"], { SVC_HOME: path.join(tempDir(), "other") });
		expect(garbage.code).toBe(1);
		expect(garbage.stderr).toMatch(/not valid JSON/);

		// Revoking ends the device's process: it must pair again.
		const revoke = await runCli(["revoke", deviceId], { SVC_HOME: home });
		expect(revoke.code).toBe(0);
		expect(await connect.exited).toBe(3);
		expect(connect.out.stderr).toMatch(/device revoked; pair again with a new code/);
		expect((await runCli(["devices"], { SVC_HOME: home })).stdout).toContain("no paired devices");

		// q quits cleanly and removes local-server.json.
		server.child.stdin.write("q");
		expect(await server.exited).toBe(0);
		expect(fs.existsSync(path.join(home, "local-server.json"))).toBe(false);
		expect((await runCli(["pair"], { SVC_HOME: home })).stderr).toMatch(/not running/);

		// A second start does not show the token again.
		const again = spawnCli([], { SVC_HOME: home, SVC_PORT: "0" });
		await until(() => started(again.out.stdout), "the second start");
		expect(again.out.stdout).not.toContain(token);
		expect(again.out.stdout).toContain(`owner token: in ${path.join(home, "owner-token")}`);
		again.child.kill("SIGTERM");
		expect(await again.exited).toBe(0);
		// From start to stop, no code went to the log.
		expect(payloads(server.out.stdout + again.out.stdout)).toEqual([]);
		expect(server.out.stdout + again.out.stdout).not.toContain(code.pairToken);
	});

	it.skipIf(!hasScript)("on a terminal the first start shows the owner token once, and a pairing code it renews on a key press and once a device paired", async () => {
		const home = path.join(tempDir(), "desk");
		// script(1) runs it on a pseudo-terminal, as a person starting it would.
		const term = spawn("script", ["-qec", `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} start --no-clear`, "/dev/null"], {
			env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_HOME: home, SVC_PORT: "0" },
			stdio: "pipe",
		});
		let out = "";
		term.stdout.on("data", (c) => (out += c));
		const exited = new Promise((resolve) => term.on("close", resolve));
		try {
			await until(() => out.includes("Press n for a new code"), "the start on a terminal");
			const token = fs.readFileSync(path.join(home, "owner-token"), "utf8").trim();
			expect(out).toContain(`owner token (shown once; also saved in ${path.join(home, "owner-token")}, mode 0600):`);
			expect(out).toContain(token);
			// The code, as a QR code and as the line for another computer, shown where it is not kept.
			expect(out).not.toContain("pairing code: not printed");
			expect(out).toMatch(/\u2584|\u2580|\u2588/);
			await until(() => payloads(out).length === 1, "the first code");
			const [first] = payloads(out);
			expect(first.baseUrls).toEqual([JSON.parse(fs.readFileSync(path.join(home, "local-server.json"), "utf8")).baseUrl]);

			// A key press prints a new code.
			term.stdin.write("n");
			await until(() => payloads(out).length === 2, "a new code after the key press");
			expect(payloads(out)[1].pairToken).not.toBe(first.pairToken);

			// A device paired: the code on the terminal may be the one it used, which works once, so a new one shows.
			const [code] = payloads((await runCli(["pair"], { SVC_HOME: home })).stdout);
			const connect = spawnCli(["connect", JSON.stringify(code)], { SVC_HOME: path.join(tempDir(), "laptop") });
			await until(() => /connected \(device /.test(connect.out.stdout), "the device to connect");
			await until(() => payloads(out).length === 3, "a new code once a device paired");
			connect.child.kill("SIGTERM");
			await connect.exited;
		} finally {
			term.stdin.write("q");
			await exited;
		}
	});

	it("a start without SVC_OWNER_TOKEN after one with it does not point at an owner-token file that is not there", async () => {
		const home = path.join(tempDir(), "desk");
		const chosen = spawnCli([], { SVC_HOME: home, SVC_PORT: "0", SVC_OWNER_TOKEN: "chosen-owner-token-0123456789" });
		await until(() => started(chosen.out.stdout), "the start with SVC_OWNER_TOKEN");
		expect(chosen.out.stdout).toContain("owner token: the value of SVC_OWNER_TOKEN");
		chosen.child.kill("SIGTERM");
		expect(await chosen.exited).toBe(0);
		expect(fs.existsSync(path.join(home, "owner-token"))).toBe(false);

		const plain = spawnCli([], { SVC_HOME: home, SVC_PORT: "0" });
		await until(() => started(plain.out.stdout), "the start without it");
		expect(plain.out.stdout).not.toContain(`owner token: in ${path.join(home, "owner-token")}`);
		expect(plain.out.stdout).toContain(`owner token: not shown (no ${path.join(home, "owner-token")}`);
		expect(plain.out.stdout).toContain("SVC_OWNER_TOKEN=<a token of your choice>");
		plain.child.kill("SIGTERM");
		expect(await plain.exited).toBe(0);
	});

	it("a stop the moment it says it is listening (a service manager's) closes it cleanly, before its first code", async () => {
		const home = path.join(tempDir(), "stopped-early");
		const server = spawnCli([], { SVC_HOME: home, SVC_PORT: "0", SVC_MODE: "isolated" });
		let signalled = false;
		server.child.stdout.on("data", () => {
			if (!signalled && server.out.stdout.includes("listening on")) signalled = server.child.kill("SIGTERM");
		});
		expect(await server.exited).toBe(0);
		expect(server.out.stdout.trimEnd().endsWith("svc-local stopped")).toBe(true);
		expect(fs.existsSync(path.join(home, "local-server.json"))).toBe(false);
	});

	it("its output's reader gone (svc-local | head -5) stops it cleanly, with no stack trace and no local-server.json left", async () => {
		const home = path.join(tempDir(), "piped");
		const server = spawnCli([], { SVC_HOME: home, SVC_PORT: "0", SVC_MODE: "isolated" });
		// The pipe closed before anything was read: the first write finds no reader.
		server.child.stdout.destroy();
		expect(await server.exited).toBe(0);
		expect(server.out.stderr).not.toMatch(/EPIPE|Error/);
		expect(fs.existsSync(path.join(home, "local-server.json"))).toBe(false);
	});

	it("with a device paired and its port taken, start stops (exit 1) saying so; start --port starts elsewhere, saying the device must pair again", async () => {
		const home = path.join(tempDir(), "desk");
		const first = spawnCli([], { SVC_HOME: home, SVC_PORT: "0" });
		await until(() => started(first.out.stdout), "the first server");
		const { port } = JSON.parse(fs.readFileSync(path.join(home, "local-server.json"), "utf8"));
		const [code] = payloads((await runCli(["pair"], { SVC_HOME: home })).stdout);
		const connect = spawnCli(["connect", JSON.stringify(code)], { SVC_HOME: path.join(tempDir(), "laptop") });
		await until(() => /connected \(device /.test(connect.out.stdout), "the device to connect");
		// The device is paired; it need not look for the server while the port is taken.
		connect.child.kill("SIGTERM");
		await connect.exited;
		first.child.kill("SIGTERM");
		expect(await first.exited).toBe(0);

		// Another program takes the port while svc-local is stopped.
		const blocker = net.createServer();
		await new Promise<void>((r) => blocker.listen(port, "127.0.0.1", () => r()));
		try {
			const refused = await runCli([], { SVC_HOME: home });
			expect(refused.code).toBe(1);
			expect(refused.stdout).not.toContain("listening");
			expect(refused.stderr).toContain(`svc-local: port ${port} is taken by another program`);
			expect(refused.stderr).toContain("svc-local start --port <port>");
			expect(refused.stderr.trim().split("\n")).toHaveLength(1);

			const moved = spawnCli(["start", "--port", "0"], { SVC_HOME: home });
			await until(() => started(moved.out.stdout), "the start with --port");
			expect(moved.out.stderr).toContain(`not ${port} where the paired device knows this server: pair again (svc-local pair), or start on port ${port} to be found there again`);
			moved.child.kill("SIGTERM");
			expect(await moved.exited).toBe(0);
			expect((await runCli(["start", "--port", "65536"], { SVC_HOME: home })).stderr).toContain("--port must be a port number, 0 to 65535");
		} finally {
			await new Promise((r) => blocker.close(r));
		}
	});

	it("a second start on the same state directory is refused, and the running one keeps its local-server.json", async () => {
		const home = path.join(tempDir(), "desk");
		const first = spawnCli([], { SVC_HOME: home, SVC_PORT: "0" });
		await until(() => started(first.out.stdout), "the first server");
		const info = JSON.parse(fs.readFileSync(path.join(home, "local-server.json"), "utf8"));

		// Same state, even asked for the same port: it stops at once and says why, before listening.
		const second = await runCli([], { SVC_HOME: home, SVC_PORT: String(info.port) });
		expect(second.code).toBe(1);
		expect(second.stderr).toContain(`svc-local: svc-local is already running for ${home} (pid ${first.child.pid}, http://127.0.0.1:${info.port}); stop it first, or give this one its own SVC_HOME`);
		expect(second.stdout).not.toContain("listening");
		expect(JSON.parse(fs.readFileSync(path.join(home, "local-server.json"), "utf8"))).toEqual(info);
		const devices = await runCli(["devices"], { SVC_HOME: home });
		expect(devices.code, devices.stderr).toBe(0);

		// Another state directory on that port is another server: it takes another free port.
		const other = spawnCli([], { SVC_HOME: path.join(tempDir(), "other"), SVC_PORT: String(info.port) });
		await until(() => started(other.out.stdout), "the server of another state directory");
		expect(other.out.stderr).toContain(`port ${info.port} is taken`);
		other.child.kill("SIGTERM");
		expect(await other.exited).toBe(0);

		// A stale local-server.json (a process that died without removing it, its pid now another program's) is no obstacle.
		first.child.kill("SIGKILL");
		await first.exited;
		fs.writeFileSync(path.join(home, "local-server.json"), JSON.stringify({ ...info, pid: process.pid }));
		const after = spawnCli([], { SVC_HOME: home, SVC_PORT: "0" });
		await until(() => started(after.out.stdout), "a start after a crash");
		after.child.kill("SIGTERM");
		expect(await after.exited).toBe(0);
	});

	it("workspace add, list and remove, and health with its exit code", async () => {
		const registry = await startLocalRegistry();
		registry.publish("1.2.0");
		const home = path.join(tempDir(), "desk");
		const code = tempDir("svc-cli-code-");
		const write = (rel: string, text: string) => {
			fs.mkdirSync(path.dirname(path.join(code, rel)), { recursive: true });
			fs.writeFileSync(path.join(code, rel), text);
		};
		const key = "svc_cli0123456789abcdefghijklmnopqrstuvwxyzABCD";
		write("good/package.json", JSON.stringify({ name: "good", dependencies: { "@svcapp/logger": "^1.2.0" } }));
		write("good/node_modules/@svcapp/logger/package.json", JSON.stringify({ name: "@svcapp/logger", version: "1.2.0" }));
		write("good/.env", `SVC_KEY=${key}\n`);
		write("good/index.js", 'import * as logger from "@svcapp/logger";\nlogger.init({ key: process.env.SVC_KEY, endpoint: "https://svc.example.com" });\n');
		write("bad/package.json", JSON.stringify({ name: "bad", dependencies: { "@svcapp/logger": "^1.0.0" } }));
		const env = { SVC_HOME: home, SVC_NPM_REGISTRY: registry.url };
		const server = spawnCli(["start", "--no-clear"], { ...env, SVC_PORT: "0" });
		try {
			await until(() => started(server.out.stdout), "the server to start");
			expect((await runCli(["workspace", "list"], env)).stdout).toBe("no workspaces (add one with svc-local workspace add <dir>)\n");

			// A relative folder is taken from the current directory.
			const good = await runCli(["workspace", "add", "good"], env, code);
			expect(good.code, good.stderr).toBe(0);
			const goodId = /^workspace ([0-9a-f]{8}): (.+) \(local\)\n$/.exec(good.stdout)!;
			expect(goodId[2]).toBe(fs.realpathSync(path.join(code, "good")));
			const bad = await runCli(["workspace", "add", path.join(code, "bad")], env);
			const badId = /^workspace ([0-9a-f]{8})/.exec(bad.stdout)![1];
			const ssh = await runCli(["workspace", "add", "dev@box:code/app"], env);
			expect(ssh.stdout).toMatch(/^workspace [0-9a-f]{8}: dev@box:code\/app \(ssh\)\n$/);
			const missing = await runCli(["workspace", "add", "nowhere"], env, code);
			expect(missing.code).toBe(1);
			expect(missing.stderr).toContain(`${path.join(code, "nowhere")} does not exist`);

			const list = (await runCli(["workspace", "list"], env)).stdout.trim().split("\n");
			expect(list).toHaveLength(3);
			expect(list[0]).toMatch(new RegExp(`^${goodId[1]}  local  ${goodId[2]}  added \\d{4}-`));

			// One workspace that is set up: exit 0.
			const healthy = await runCli(["health", goodId[1]], env);
			expect(healthy.code, healthy.stderr).toBe(0);
			expect(healthy.stdout).toContain(`workspace ${goodId[1]}  ${goodId[2]}`);
			expect(healthy.stdout).toContain(". (good)  npm  logger 1.2.0, latest 1.2.0");
			expect(healthy.stdout).toContain(`key: found in .env (…${key.slice(-4)})`);
			expect(healthy.stdout).toContain("every package is set up");
			expect(healthy.stdout).not.toContain(key);

			// By its folder, one that needs attention: exit 4, with what to do.
			const unhealthy = await runCli(["health", "."], env, path.join(code, "bad"));
			expect(unhealthy.code).toBe(4);
			expect(unhealthy.stdout).toContain("error: @svcapp/logger is listed but not installed");
			expect(unhealthy.stdout).toContain("-> Run `npm install` in the workspace folder.");
			expect(unhealthy.stdout).toContain("1 of 1 packages need attention");

			// All local workspaces (the SSH one is not scanned), as JSON, rescanned.
			const all = await runCli(["health", "--json", "--force"], env);
			expect(all.code).toBe(4);
			const answers = JSON.parse(all.stdout);
			expect(answers.map((a: any) => [a.workspaceId, a.path, a.cached])).toEqual([
				[goodId[1], fs.realpathSync(path.join(code, "good")), false],
				[badId, fs.realpathSync(path.join(code, "bad")), false],
			]);

			const sshHealth = await runCli(["health", "dev@box:code/app"], env);
			expect(sshHealth.code).toBe(1);
			expect(sshHealth.stderr).toMatch(/^svc-local: workspace [0-9a-f]{8} is on another machine.* \(HTTP 400\)\n$/);
			const unknown = await runCli(["health", "0000aaaa"], env);
			expect(unknown.code).toBe(1);
			expect(unknown.stderr).toContain("no workspace is registered with id or folder 0000aaaa");

			expect((await runCli(["workspace", "remove", badId], env)).stdout).toBe(`removed workspace ${badId}\n`);
			const again = await runCli(["workspace", "remove", badId], env);
			expect(again.code).toBe(1);
			expect(again.stderr).toContain(`no workspace with id ${badId}`);
			expect(again.stderr).toContain("(HTTP 404)");
			expect(again.stderr).not.toContain("/api/");
			expect(await runCli(["health"], env)).toMatchObject({ code: 0 });

			// A folder without a package: said so, and nothing called set up.
			const empty = path.join(code, "empty");
			fs.mkdirSync(empty);
			expect((await runCli(["workspace", "add", empty], env)).code).toBe(0);
			const none = await runCli(["health", "."], env, empty);
			expect(none.stdout).toContain("no package.json found");
			expect(none.stdout).not.toContain("set up");

			// One folder gone: the others are still scanned and printed; the gone one is named, exit 1.
			const emptyId = (await runCli(["workspace", "list"], env)).stdout.split("\n").find((l) => l.includes(fs.realpathSync(empty)))!.split("  ")[0];
			fs.rmdirSync(empty);
			const partial = await runCli(["health"], env);
			expect(partial.code).toBe(1);
			expect(partial.stdout).toContain(`workspace ${goodId[1]}  ${goodId[2]}`);
			expect(partial.stderr).toBe(`svc-local: workspace ${emptyId} (${fs.realpathSync(code)}/empty) not scanned: the folder of workspace ${emptyId} (${fs.realpathSync(code)}/empty) is gone or is not a folder; restore it or remove the workspace (HTTP 409)\n`);
			expect(JSON.parse((await runCli(["health", "--json"], env)).stdout).map((a: any) => a.workspaceId)).toEqual([goodId[1]]);
		} finally {
			server.child.kill("SIGTERM");
			await server.exited;
			await registry.close();
		}
	});

	it("help and unknown commands", async () => {
		const help = await runCli(["help"], {});
		expect(help.code).toBe(0);
		expect(help.stdout).toContain("svc-local connect");
		const unknown = await runCli(["frobnicate"], {});
		expect(unknown.code).toBe(2);
		expect(unknown.stderr).toContain('unknown command "frobnicate"');
	});
});
