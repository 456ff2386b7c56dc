// svc-local's arguments as real processes: --version, --help and help of every
// command, the repository's `npm run local`, start's options alone, and the
// errors of unknown options, commands and arguments.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, cliProcesses, payloads, started } from "./cliProcesses.js";
import { bootstrap, startTestServer, tempDir, until } from "./helpers.js";

const { spawnCli, runCli } = cliProcesses();

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

	it("`svc-local` alone is start, with start's options too: svc-local --no-clear --port 0 starts the server, and a LAN toggle says its new endpoint", async () => {
		const home = path.join(tempDir(), "desk");
		const server = spawnCli(["--no-clear", "--port", "0"], { SVC_HOME: home });
		await until(() => started(server.out.stdout), "the server to start");
		expect(server.out.stderr).toBe("");
		// LAN turned on from the page: its output (no terminal, so no code in it) says the new addresses at once.
		const { port } = JSON.parse(fs.readFileSync(path.join(home, "local-server.json"), "utf8"));
		const owner = { authorization: `Bearer ${fs.readFileSync(path.join(home, "owner-token"), "utf8").trim()}`, "content-type": "application/json" };
		const lan = await (await fetch(`http://127.0.0.1:${port}/api/pairing/lan`, { method: "PUT", headers: owner, body: '{"enabled":true}' })).json();
		await until(() => server.out.stdout.includes(`endpoint now: ${lan.baseUrls.join(", ")}`), "the new endpoint after LAN was turned on");
		expect(payloads(server.out.stdout)).toEqual([]);
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
			// Start's options alone are start's, their refusals too.
			[["--no-clear", "--bogus"], /unknown option --bogus for svc-local start/, "svc-local start --help"],
			[["workspace"], /missing command for svc-local workspace: one of add, list, remove/, "svc-local workspace --help"],
			[["workspace", "frob"], /unknown command "workspace frob"/, "svc-local workspace --help"],
			[["workspace", "add"], /missing argument <dir> for svc-local workspace add/, "svc-local workspace add --help"],
			[["workspace", "remove", "a", "b"], /unexpected argument "b" for svc-local workspace remove/, "svc-local workspace remove --help"],
			[["workspace", "list", "--bogus"], /unknown option --bogus for svc-local workspace list/, "svc-local workspace list --help"],
			[["health", "a", "b"], /unexpected argument "b" for svc-local health/, "svc-local health --help"],
			[["health", "--force=1"], /--force/, "svc-local health --help"],
			// A value start cannot use is wrong use too.
			[["start", "--port", "abc"], /--port must be a port number, 0 to 65535 \(got "abc"\)/, "svc-local start --help"],
			[["start", "--port", "65536"], /--port must be a port number, 0 to 65535 \(got "65536"\)/, "svc-local start --help"],
			[["--port", "-1"], /^svc-local: --port needs a value; one that starts with "-" is written --port=<value>$/m, "svc-local start --help"],
			[["start", "--port=-1"], /--port must be a port number, 0 to 65535 \(got "-1"\)/, "svc-local start --help"],
		];
		const results = await Promise.all(cases.map(([args]) => runCli(args, { SVC_HOME: path.join(tempDir(), "absent") })));
		results.forEach((r, i) => {
			const [args, message, hint] = cases[i];
			expect(r.code, args.join(" ")).toBe(2);
			expect(r.stderr, args.join(" ")).toMatch(message);
			expect(r.stderr, args.join(" ")).toContain(`\`${hint}\``);
		});
	});

	it("connect takes the owner's session from a file or standard input, kept out of ps; its help says --session-token is seen there", async () => {
		const t = await startTestServer();
		try {
			const tokenFile = path.join(tempDir(), "session");
			// In local mode a session sent with the code must be the owner's: a wrong one shows the file was read.
			fs.writeFileSync(tokenFile, "not-the-owner\n");
			const wrong = await runCli(["connect", JSON.stringify((await bootstrap(t)).payload), "--session-token-file", tokenFile], { SVC_HOME: path.join(tempDir(), "a") });
			expect(wrong.code).toBe(1);
			expect(wrong.stderr).toContain("401 owner session is not valid");

			fs.writeFileSync(tokenFile, `${t.token}\n`);
			for (const [args, input] of [[["--session-token-file", tokenFile], ""], [["--session-token-file", "-"], `${t.token}\n`]] as const) {
				const device = spawnCli(["connect", JSON.stringify((await bootstrap(t)).payload), ...args], { SVC_HOME: path.join(tempDir(), "b") });
				device.child.stdin.end(input);
				await until(() => /connected \(device /.test(device.out.stdout), `a device connected with ${args.join(" ")}`);
				device.child.kill("SIGTERM");
				expect(await device.exited).toBe(0);
			}
			const missing = await runCli(["connect", "--session-token-file", path.join(tempDir(), "none")], { SVC_HOME: path.join(tempDir(), "c") });
			expect(missing.stderr).toMatch(/cannot read --session-token-file .*none: no such file/);

			const help = await runCli(["connect", "--help"], {});
			expect(help.stdout).toMatch(/--session-token <token> .*other users of this computer can see it \(ps\): prefer SVC_SESSION_TOKEN or --session-token-file/);
			expect((await runCli(["login", "--help"], {})).stdout).toMatch(/--token <session token> .*other users of this computer can see it \(ps\)/);
		} finally {
			await t.close();
		}
	});
});
