// The command line as real processes: `svc-local` (start, QR, key press,
// quit), `svc-local pair`, `svc-local devices`, `svc-local revoke`, and
// `svc-local connect` on a second "computer" (its own SVC_HOME).
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { mode, tempDir, until } from "./helpers.js";
import { startLocalRegistry } from "./localRegistry.js";

const BIN = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "bin", "svc-local.js");
const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
	for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
	children.length = 0;
});

function spawnCli(args: string[], env: NodeJS.ProcessEnv, cwd?: string) {
	const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, stdio: "pipe", cwd });
	children.push(child);
	const out = { stdout: "", stderr: "" };
	child.stdout.on("data", (c) => (out.stdout += c));
	child.stderr.on("data", (c) => (out.stderr += c));
	// "close", not "exit": output still in the pipes when the process exits arrives before close.
	const exited = new Promise<number>((resolve) => child.on("close", (code) => resolve(code ?? -1)));
	return { child, out, exited };
}

async function runCli(args: string[], env: NodeJS.ProcessEnv, cwd?: string) {
	const p = spawnCli(args, env, cwd);
	const code = await p.exited;
	return { code, ...p.out };
}

/** The payloads printed after "svc-local connect '" in the output, in order. */
function payloads(text: string) {
	return [...text.matchAll(/svc-local connect '([^']+)'/g)].map((m) => JSON.parse(m[1]));
}

describe("svc-local command line", () => {
	it("start, pair, connect, devices, new code on a key press, revoke, quit", async () => {
		const home = path.join(tempDir(), "desk");
		const deviceHome = path.join(tempDir(), "laptop");
		const server = spawnCli([], { SVC_HOME: home, SVC_PORT: "0", SVC_MODE: "isolated" });
		await until(() => payloads(server.out.stdout).length === 1, "the first pairing code");

		const info = JSON.parse(fs.readFileSync(path.join(home, "local-server.json"), "utf8"));
		expect(info).toMatchObject({ pid: server.child.pid, host: "127.0.0.1", mode: "isolated" });
		const token = fs.readFileSync(path.join(home, "owner-token"), "utf8").trim();
		expect(mode(path.join(home, "owner-token"))).toBe(0o600);
		const out = server.out.stdout;
		expect(out).toContain(`svc-local (isolated) listening on 127.0.0.1:${info.port}`);
		expect(out).toContain(`pairing page: http://127.0.0.1:${info.port}/`);
		expect(out).toContain(token); // shown once, on the first start
		expect(out).toMatch(/\u2584|\u2580|\u2588/); // a terminal QR code (block characters)
		expect(out).not.toContain("\x1b["); // to a pipe: plain text, no colour codes
		const first = payloads(out)[0];
		expect(first).toMatchObject({ v: 3, baseUrl: `http://127.0.0.1:${info.port}`, baseUrls: [`http://127.0.0.1:${info.port}`] });
		// Its stdin is a pipe, not a terminal: nobody there can press n or q, so they are not offered.
		expect(out).not.toContain("Press n");

		// A key press prints a new code.
		server.child.stdin.write("n");
		await until(() => payloads(server.out.stdout).length === 2, "a new code after the key press");
		expect(payloads(server.out.stdout)[1].pairToken).not.toBe(first.pairToken);
		expect(server.out.stdout).not.toContain("Press n");

		// `svc-local pair` against the running server.
		const pair = await runCli(["pair"], { SVC_HOME: home });
		expect(pair.code).toBe(0);
		const [code] = payloads(pair.stdout);
		expect(code.pairToken).toMatch(/^[A-Za-z0-9_-]{43}$/);

		// Another computer connects with it, and stays connected.
		const connect = spawnCli(["connect", JSON.stringify(code), "--name", "Build Box"], { SVC_HOME: deviceHome });
		await until(() => /connected \(device /.test(connect.out.stdout), "the device to connect");
		expect(mode(path.join(deviceHome, "device.json"))).toBe(0o600);
		const deviceId = JSON.parse(fs.readFileSync(path.join(deviceHome, "device.json"), "utf8")).deviceId;

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
		await until(() => payloads(again.out.stdout).length === 1, "the second start");
		expect(again.out.stdout).not.toContain(token);
		expect(again.out.stdout).toContain(`owner token: in ${path.join(home, "owner-token")}`);
		again.child.kill("SIGTERM");
		expect(await again.exited).toBe(0);
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

	it("a second start on the same state directory is refused, and the running one keeps its local-server.json", async () => {
		const home = path.join(tempDir(), "desk");
		const first = spawnCli([], { SVC_HOME: home, SVC_PORT: "0" });
		await until(() => payloads(first.out.stdout).length === 1, "the first server");
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
		await until(() => payloads(other.out.stdout).length === 1, "the server of another state directory");
		expect(other.out.stderr).toContain(`port ${info.port} is taken`);
		other.child.kill("SIGTERM");
		expect(await other.exited).toBe(0);

		// A stale local-server.json (a process that died without removing it, its pid now another program's) is no obstacle.
		first.child.kill("SIGKILL");
		await first.exited;
		fs.writeFileSync(path.join(home, "local-server.json"), JSON.stringify({ ...info, pid: process.pid }));
		const after = spawnCli([], { SVC_HOME: home, SVC_PORT: "0" });
		await until(() => payloads(after.out.stdout).length === 1, "a start after a crash");
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
			await until(() => payloads(server.out.stdout).length === 1, "the server to start");
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

describe("svc-local arguments", () => {
	const VERSION = JSON.parse(fs.readFileSync(path.join(path.dirname(BIN), "..", "package.json"), "utf8")).version;
	const COMMANDS = ["start", "pair", "devices", "revoke", "login", "logout", "connect", "workspace add", "workspace list", "workspace remove", "health"];

	it("--version and -v print the package version, for the program and for any command", async () => {
		expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
		for (const args of [["--version"], ["-v"], ["pair", "--version"], ["start", "-v"]]) {
			const r = await runCli(args, {});
			expect(r, args.join(" ")).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
		}
	});

	it("--help, -h and help list every command", async () => {
		for (const args of [["--help"], ["-h"], ["help"]]) {
			const r = await runCli(args, {});
			expect(r.code, args.join(" ")).toBe(0);
			expect(r.stderr).toBe("");
			for (const command of COMMANDS) expect(r.stdout).toContain(`svc-local ${command}`);
			expect(r.stdout).toContain(VERSION);
		}
		const before = await runCli(["--help", "revoke"], {});
		expect(before.code).toBe(0);
		expect(before.stdout).toMatch(/^Usage: svc-local revoke <deviceId>/);
	});

	it("the repository's `npm run local` passes its arguments on to svc-local", async () => {
		const root = path.join(path.dirname(BIN), "..", "..");
		const npm = spawn("npm", ["run", "--silent", "local", "--", "health", "--help"], { cwd: root, env: process.env, stdio: "pipe" });
		let stdout = "";
		npm.stdout.on("data", (c) => (stdout += c));
		const code = await new Promise<number>((resolve) => npm.on("close", (c) => resolve(c ?? -1)));
		expect(code).toBe(0);
		expect(stdout).toMatch(/^Usage: svc-local health \[workspace\]/m);
	});

	it("every command has --help, which prints its usage and does nothing else", async () => {
		// A state directory with a cloud session in it: `logout --help` must leave it, `start --help`
		// must not start (no local-server.json, no owner token, and the process ends).
		const home = path.join(tempDir(), "home");
		fs.mkdirSync(home, { mode: 0o700 });
		const session = JSON.stringify({ apiUrl: "http://127.0.0.1:9", token: "t", user: { id: "u" } });
		fs.writeFileSync(path.join(home, "cloud-session.json"), session, { mode: 0o600 });
		const results = await Promise.all(
			COMMANDS.flatMap((command) => [
				runCli([...command.split(" "), "--help"], { SVC_HOME: home }).then((r) => ({ args: `${command} --help`, command, r })),
				runCli(["help", ...command.split(" ")], { SVC_HOME: home }).then((r) => ({ args: `help ${command}`, command, r })),
			]),
		);
		for (const { args, command, r } of results) {
			expect(r.code, args).toBe(0);
			expect(r.stderr, args).toBe("");
			expect(r.stdout, args).toMatch(new RegExp(`^Usage: svc-local ${command}\\b`));
			expect(r.stdout, args).toContain("--help");
		}
		expect(results.find((x) => x.command === "login")!.r.stdout).toContain("--email <email>");
		expect(results.find((x) => x.command === "connect")!.r.stdout).toContain("--credential-file <file>");
		expect(results.find((x) => x.command === "start")!.r.stdout).toContain("--no-clear");
		expect(results.find((x) => x.command === "health")!.r.stdout).toContain("--force");
		// A group's help lists its commands.
		for (const args of [["workspace", "--help"], ["help", "workspace"], ["workspace", "-h"]]) {
			const group = await runCli(args, { SVC_HOME: home });
			expect(group.code, args.join(" ")).toBe(0);
			expect(group.stdout).toMatch(/^Usage: svc-local workspace <command>/);
			for (const sub of ["add <dir>", "list", "remove <id>"]) expect(group.stdout).toContain(`svc-local workspace ${sub}`);
		}
		expect(fs.readdirSync(home)).toEqual(["cloud-session.json"]);
		expect(fs.readFileSync(path.join(home, "cloud-session.json"), "utf8")).toBe(session);
		// -h is --help too, after other arguments as well.
		const short = await runCli(["revoke", "some-device", "-h"], { SVC_HOME: home });
		expect(short.code).toBe(0);
		expect(short.stdout).toMatch(/^Usage: svc-local revoke <deviceId>/);
	});

	it("`svc-local` alone is start, with start's options too: svc-local --no-clear starts the server, and a LAN toggle renews its code", async () => {
		const home = path.join(tempDir(), "desk");
		const server = spawnCli(["--no-clear"], { SVC_HOME: home, SVC_PORT: "0" });
		await until(() => payloads(server.out.stdout).length === 1, "the server to start");
		expect(server.out.stderr).toBe("");
		// LAN turned on from the page: the terminal shows a new code with the new addresses at once.
		const { port } = JSON.parse(fs.readFileSync(path.join(home, "local-server.json"), "utf8"));
		const owner = { authorization: `Bearer ${fs.readFileSync(path.join(home, "owner-token"), "utf8").trim()}`, "content-type": "application/json" };
		const lan = await (await fetch(`http://127.0.0.1:${port}/api/pairing/lan`, { method: "PUT", headers: owner, body: '{"enabled":true}' })).json();
		await until(() => payloads(server.out.stdout).length === 2, "a new code after LAN was turned on");
		expect(payloads(server.out.stdout)[1].baseUrls).toEqual(lan.baseUrls);
		server.child.kill("SIGTERM");
		expect(await server.exited).toBe(0);
		expect(server.out.stdout).toContain("svc-local stopped");
	});

	it("unknown options are errors that name the option and point at --help, and nothing runs", async () => {
		const home = path.join(tempDir(), "absent");
		const cases: [string[], string, string][] = [
			[["start", "--bogus"], "--bogus", "svc-local start --help"],
			[["pair", "--frobnicate=1"], "--frobnicate", "svc-local pair --help"],
			[["logout", "-x"], "-x", "svc-local logout --help"],
			[["connect", "{}", "--nmae", "Box"], "--nmae", "svc-local connect --help"],
			[["--bogus"], "--bogus", "svc-local --help"],
		];
		const results = await Promise.all(cases.map(([args]) => runCli(args, { SVC_HOME: home })));
		results.forEach((r, i) => {
			const [args, option, hint] = cases[i];
			expect(r.code, args.join(" ")).toBe(2);
			expect(r.stdout, args.join(" ")).toBe("");
			expect(r.stderr, args.join(" ")).toContain(`unknown option ${option}`);
			expect(r.stderr, args.join(" ")).toContain(`\`${hint}\``);
		});
		expect(fs.existsSync(home)).toBe(false); // start did not start, logout did not run
	});

	it("unknown commands, missing and extra arguments, and missing option values are errors with a hint", async () => {
		const cases: [string[], RegExp, string][] = [
			[["frobnicate"], /unknown command "frobnicate"/, "svc-local --help"],
			[["help", "frobnicate"], /unknown command "frobnicate"/, "svc-local --help"],
			[["revoke"], /missing argument <deviceId> for svc-local revoke/, "svc-local revoke --help"],
			[["revoke", "a", "b"], /unexpected argument "b" for svc-local revoke/, "svc-local revoke --help"],
			[["pair", "now"], /unexpected argument "now" for svc-local pair/, "svc-local pair --help"],
			[["login"], /missing argument <api_url> for svc-local login/, "svc-local login --help"],
			[["connect", "--name"], /--name/, "svc-local connect --help"],
			[["start", "--no-clear=yes"], /--no-clear/, "svc-local start --help"],
			[["workspace"], /missing command for svc-local workspace: one of add, list, remove/, "svc-local workspace --help"],
			[["workspace", "frob"], /unknown command "workspace frob"/, "svc-local workspace --help"],
			[["workspace", "add"], /missing argument <dir> for svc-local workspace add/, "svc-local workspace add --help"],
			[["workspace", "remove", "a", "b"], /unexpected argument "b" for svc-local workspace remove/, "svc-local workspace remove --help"],
			[["workspace", "list", "--bogus"], /unknown option --bogus for svc-local workspace list/, "svc-local workspace list --help"],
			[["health", "a", "b"], /unexpected argument "b" for svc-local health/, "svc-local health --help"],
			[["health", "--force=1"], /--force/, "svc-local health --help"],
		];
		const results = await Promise.all(cases.map(([args]) => runCli(args, { SVC_HOME: path.join(tempDir(), "absent") })));
		results.forEach((r, i) => {
			const [args, message, hint] = cases[i];
			expect(r.code, args.join(" ")).toBe(2);
			expect(r.stderr, args.join(" ")).toMatch(message);
			expect(r.stderr, args.join(" ")).toContain(`\`${hint}\``);
		});
	});
});
