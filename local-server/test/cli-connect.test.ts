// `svc-local connect -` as real processes against a real server: the pairing
// code read from standard input, so that it is never on the command line where
// `ps` shows it to every user of the computer until it is spent.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { STANDARD_INPUT_BYTES } from "../src/prompt.js";
import { cliProcesses, payloads, started } from "./cliProcesses.js";
import { tempDir, until } from "./helpers.js";

const { spawnCli, runCli } = cliProcesses();

/** A running server of its own, and a way to get a fresh code from it. */
async function desk() {
	const home = path.join(tempDir(), "desk");
	const server = spawnCli([], { SVC_HOME: home, SVC_PORT: "0" });
	await until(() => started(server.out.stdout), "the server to start");
	const pair = async () => (await runCli(["pair"], { SVC_HOME: home })).stdout;
	return { home, server, pair };
}

describe("svc-local connect - (the code from standard input)", () => {
	it("pairs with the JSON or with svc-local pair's whole output on standard input, and the code is never in the process's arguments", async () => {
		const { home, server, pair } = await desk();
		const printed = await pair();
		const [code] = payloads(printed);

		const laptop = spawnCli(["connect", "-", "--name", "Quiet Box"], { SVC_HOME: path.join(tempDir(), "laptop") });
		laptop.child.stdin.end(`${JSON.stringify(code)}\n`);
		await until(() => /connected \(device /.test(laptop.out.stdout), "the device to connect");
		// What ps shows of it: the arguments, without the code.
		const cmdline = fs.readFileSync(`/proc/${laptop.child.pid}/cmdline`, "utf8");
		expect(cmdline.split("\0")).toContain("-");
		expect(cmdline).not.toContain(code.pairToken);

		// `svc-local pair | svc-local connect -`: the line after the QR code is the code; here with
		// blank lines after it up to the most standard input may hold.
		const other = spawnCli(["connect", "-", "--name", "Piped Box"], { SVC_HOME: path.join(tempDir(), "other") });
		const output = await pair();
		other.child.stdin.end(output + "\n".repeat(STANDARD_INPUT_BYTES - Buffer.byteLength(output)));
		await until(() => /connected \(device /.test(other.out.stdout), "the second device to connect");

		const devices = (await runCli(["devices"], { SVC_HOME: home })).stdout;
		expect(devices).toContain("Quiet Box  Desktop  Online");
		expect(devices).toContain("Piped Box  Desktop  Online");
		for (const p of [laptop, other, server]) p.child.kill("SIGTERM");
		for (const p of [laptop, other, server]) expect(await p.exited).toBe(0);
	});

	it("says what is wrong with standard input: nothing on it, not a code, or read for two things at once", async () => {
		const deviceHome = path.join(tempDir(), "laptop");
		const empty = spawnCli(["connect", "-"], { SVC_HOME: deviceHome });
		empty.child.stdin.end("\n");
		expect(await empty.exited).toBe(1);
		expect(empty.out.stderr).toBe("svc-local: no pairing code on standard input (give the JSON that svc-local pair prints after svc-local connect)\n");

		const garbage = spawnCli(["connect", "-"], { SVC_HOME: deviceHome });
		garbage.child.stdin.end("not a code\n");
		expect(await garbage.exited).toBe(1);
		expect(garbage.out.stderr).toBe("svc-local: the pairing payload is not valid JSON\n");

		// A stream piped by mistake: refused once it passes the most standard input may hold.
		const flood = spawnCli(["connect", "-"], { SVC_HOME: deviceHome });
		flood.child.stdin.on("error", () => {}); // the process stops reading and ends first
		flood.child.stdin.end("\n".repeat(STANDARD_INPUT_BYTES + 1));
		expect(await flood.exited).toBe(1);
		expect(flood.out.stderr).toBe("svc-local: standard input holds more than 1 MiB: pipe only the pairing code or the token (or svc-local pair's output)\n");

		const both = await runCli(["connect", "-", "--session-token-file", "-"], { SVC_HOME: deviceHome });
		expect(both.code).toBe(2);
		expect(both.stderr).toBe(
			"svc-local: the payload and --session-token-file cannot both be read from standard input (-)\nRun `svc-local connect --help` for usage.\n",
		);
		expect(fs.existsSync(path.join(deviceHome, "device.json"))).toBe(false);

		const help = await runCli(["connect", "--help"], {});
		expect(help.stdout).toMatch(/^Usage: svc-local connect \[payload\|-\] \[options\]/);
		expect(help.stdout).toContain("with - for\nthe payload it is read from standard input instead");
	});
});
