// `svc-local devices --json` and `svc-local workspace list --json` as real
// processes against a real server: the documented shape, and the same exit
// codes as the text output.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { cliProcesses, payloads, started } from "./cliProcesses.js";
import { tempDir, until } from "./helpers.js";

const { spawnCli, runCli } = cliProcesses();

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe("--json listings", () => {
	it("devices --json and workspace list --json print arrays of the fields the text shows", async () => {
		const home = path.join(tempDir(), "desk");
		const server = spawnCli([], { SVC_HOME: home, SVC_PORT: "0" });
		await until(() => started(server.out.stdout), "the server");

		// Nothing yet: an empty array, not the sentence.
		for (const args of [["devices", "--json"], ["workspace", "list", "--json"], ["workspace", "--json", "list"]]) {
			const empty = await runCli(args, { SVC_HOME: home });
			expect(empty, args.join(" ")).toMatchObject({ code: 0, stderr: "", stdout: "[]\n" });
		}

		// One device paired with a printed code; it never connected, so its address and last seen are unknown.
		const [code] = payloads((await runCli(["pair"], { SVC_HOME: home })).stdout);
		const res = await fetch(`${code.baseUrl}/api/pairing/exchange`, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ secret: code.pairToken, deviceId: "phone-1", name: "Ana's phone", platform: "ios" }),
		});
		expect(res.status).toBe(201);
		const devices = await runCli(["devices", "--json"], { SVC_HOME: home });
		expect(devices.code, devices.stderr).toBe(0);
		const list = JSON.parse(devices.stdout);
		expect(list).toEqual([
			{
				deviceId: "phone-1",
				name: "Ana's phone",
				platform: "iOS",
				state: "Offline",
				connecting: false,
				remoteAddress: "127.0.0.1",
				lastSeen: expect.stringMatching(ISO),
				pairedAt: expect.stringMatching(ISO),
			},
		]);
		expect(Object.keys(list[0])).toEqual(["deviceId", "name", "platform", "state", "connecting", "remoteAddress", "lastSeen", "pairedAt"]);
		// The text names the same values.
		const text = await runCli(["devices"], { SVC_HOME: home });
		expect(text.stdout).toBe(`phone-1  Ana's phone  iOS  Offline  127.0.0.1  last seen ${list[0].lastSeen}  paired ${list[0].pairedAt}\n`);

		// Connected but silent: Connecting, not Online, until the device says hello.
		const { credential } = await res.json();
		const ticket = await fetch(`${code.baseUrl}/api/pairing/ws-ticket`, { method: "POST", headers: { "x-svc-device-credential": credential } });
		const ws = new WebSocket(`${code.baseUrl.replace("http", "ws")}/api/pairing/ws?ticket=${(await ticket.json()).ticket}`);
		await new Promise((resolve, reject) => {
			ws.once("open", resolve);
			ws.once("error", reject);
		});
		const silent = JSON.parse((await runCli(["devices", "--json"], { SVC_HOME: home })).stdout)[0];
		expect(silent).toMatchObject({ state: "Online", connecting: true });
		expect((await runCli(["devices"], { SVC_HOME: home })).stdout).toMatch(/^phone-1 {2}Ana's phone {2}iOS {2}Connecting {2}127\.0\.0\.1/);
		const welcome = new Promise((resolve) => ws.once("message", resolve));
		ws.send(JSON.stringify({ type: "hello", data: { name: "Ana's phone", platform: "iOS" } }));
		await welcome;
		expect(JSON.parse((await runCli(["devices", "--json"], { SVC_HOME: home })).stdout)[0]).toMatchObject({ state: "Online", connecting: false });
		expect((await runCli(["devices"], { SVC_HOME: home })).stdout).toMatch(/^phone-1 {2}Ana's phone {2}iOS {2}Online {2}/);
		ws.terminate();

		const folder = fs.realpathSync(tempDir("svc-json-ws-"));
		expect((await runCli(["workspace", "add", folder], { SVC_HOME: home })).code).toBe(0);
		expect((await runCli(["workspace", "add", "me@build:src/app"], { SVC_HOME: home })).code).toBe(0);
		const workspaces = await runCli(["workspace", "list", "--json"], { SVC_HOME: home });
		expect(workspaces.code, workspaces.stderr).toBe(0);
		const rows = JSON.parse(workspaces.stdout);
		expect(rows).toEqual([
			{ id: expect.any(String), kind: "local", path: folder, addedAt: expect.stringMatching(ISO) },
			{ id: expect.any(String), kind: "ssh", path: "me@build:src/app", addedAt: expect.stringMatching(ISO) },
		]);
		expect(Object.keys(rows[0])).toEqual(["id", "kind", "path", "addedAt"]);
		const wsText = await runCli(["workspace", "list"], { SVC_HOME: home });
		expect(wsText.stdout).toContain(`${rows[0].id}  local  ${folder}  added ${rows[0].addedAt}\n`);

		server.child.kill("SIGTERM");
		expect(await server.exited).toBe(0);

		// Exit codes as without --json: the server not running is 1, on stderr, nothing on stdout.
		for (const args of [["devices", "--json"], ["workspace", "list", "--json"]]) {
			const down = await runCli(args, { SVC_HOME: home });
			expect(down.code, args.join(" ")).toBe(1);
			expect(down.stdout).toBe("");
			expect(down.stderr).toMatch(/not running/);
		}
	});

	it("health --json of a workspace of 400 packages reaches a pipe whole (over 64 KiB), and so does the text", async () => {
		const home = path.join(tempDir(), "desk");
		const root = tempDir("svc-json-big-");
		for (let i = 0; i < 400; i++) {
			fs.mkdirSync(path.join(root, `p${i}`));
			fs.writeFileSync(path.join(root, `p${i}`, "package.json"), JSON.stringify({ name: `package-${i}` }));
		}
		const server = spawnCli([], { SVC_HOME: home, SVC_PORT: "0" });
		await until(() => started(server.out.stdout), "the server");
		expect((await runCli(["workspace", "add", root], { SVC_HOME: home })).code).toBe(0);
		const json = await runCli(["health", "--json"], { SVC_HOME: home });
		expect(json.code, json.stderr).toBe(4);
		expect(json.stdout.length).toBeGreaterThan(64 * 1024);
		expect(JSON.parse(json.stdout)[0].packages).toHaveLength(400);
		const text = await runCli(["health"], { SVC_HOME: home });
		expect(text.code).toBe(4);
		expect(text.stdout.match(/ {2}npm {2}logger not listed\n/g)).toHaveLength(400);
		expect(text.stdout).toContain("  p99 (package-99)  npm  logger not listed");
		server.child.kill("SIGTERM");
		expect(await server.exited).toBe(0);
	});

	it("--help names --json, and a value given to it is a usage error", async () => {
		const home = path.join(tempDir(), "desk");
		for (const command of [["devices"], ["workspace", "list"]]) {
			const help = await runCli([...command, "--help"], { SVC_HOME: home });
			expect(help.code).toBe(0);
			expect(help.stdout).toMatch(/--json\s+print the \w+ as a JSON array/);
			const bad = await runCli([...command, "--json=yes"], { SVC_HOME: home });
			expect(bad.code).toBe(2);
			expect(bad.stderr).toContain(`Run \`svc-local ${command.join(" ")} --help\` for usage.`);
		}
	});
});
