// One server per state directory, even for two starts at the same instant:
// real `svc-local` processes racing on one SVC_HOME, and the lock file left by
// a process that died (or whose pid another program now has) taken over.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cliProcesses, started } from "./cliProcesses.js";
import { tempDir, until } from "./helpers.js";

const { spawnCli } = cliProcesses();

const LOCK = "local-server.lock";

/** A pid that no process has now: a process that ran and ended. */
function deadPid() {
	const { pid } = spawnSync(process.execPath, ["-e", ""]);
	return pid;
}

function lockPid(home: string) {
	return JSON.parse(fs.readFileSync(path.join(home, LOCK), "utf8")).pid;
}

describe("one server per state directory", () => {
	it("of two starts at the same instant, exactly one serves and the other is refused naming it (5 rounds)", async () => {
		for (let round = 0; round < 5; round++) {
			const home = path.join(tempDir(), "desk");
			const env = { SVC_HOME: home, SVC_PORT: "0", SVC_MODE: "isolated" };
			const both = [spawnCli([], env), spawnCli([], env)].map((p) => ({ ...p, code: null as number | null }));
			for (const p of both) void p.exited.then((code) => (p.code = code));
			await until(() => both.every((p) => p.code !== null || started(p.out.stdout)), `round ${round}: both to serve or stop`);
			const serving = both.filter((p) => p.code === null);
			expect(serving.length, `round ${round}: how many serve`).toBe(1);
			const [winner] = serving;
			const loser = both.find((p) => p !== winner)!;
			const info = JSON.parse(fs.readFileSync(path.join(home, "local-server.json"), "utf8"));
			expect(info.pid, `round ${round}`).toBe(winner.child.pid);
			expect(loser.code, `round ${round}: ${loser.out.stderr}`).toBe(1);
			expect(loser.out.stderr).toBe(
				`svc-local: svc-local is already running for ${home} (pid ${winner.child.pid}, http://127.0.0.1:${info.port}); stop it first, or give this one its own SVC_HOME\n`,
			);
			expect(loser.out.stdout).toBe("");
			// Only the winner minted the owner token, and says where it saved it (to a pipe it is not printed).
			expect(fs.readFileSync(path.join(home, "owner-token"), "utf8").trim()).toMatch(/^[A-Za-z0-9_-]{43}$/);
			expect(winner.out.stdout).toContain(`owner token: saved in ${path.join(home, "owner-token")}`);
			expect(lockPid(home)).toBe(winner.child.pid);

			winner.child.kill("SIGTERM");
			expect(await winner.exited).toBe(0);
			expect(fs.readdirSync(home).sort()).toEqual(["owner-token", "pairing.json"]);
		}
	});

	it("takes over a lock whose process is gone, and one that is old with no svc-local answering", async () => {
		const home = path.join(tempDir(), "desk");
		fs.mkdirSync(home, { mode: 0o700 });
		const env = { SVC_HOME: home, SVC_PORT: "0" };

		// Left by a process that was killed: its pid is no process now.
		const dead = deadPid();
		fs.writeFileSync(path.join(home, LOCK), JSON.stringify({ pid: dead }), { mode: 0o600 });
		const first = spawnCli([], env);
		await until(() => started(first.out.stdout), "a start over a dead process's lock");
		expect(lockPid(home)).toBe(first.child.pid);
		first.child.kill("SIGTERM");
		expect(await first.exited).toBe(0);
		expect(fs.existsSync(path.join(home, LOCK))).toBe(false);

		// Left before a reboot, its pid now another program's (this test's): old, and nothing answers.
		fs.writeFileSync(path.join(home, LOCK), JSON.stringify({ pid: process.pid }), { mode: 0o600 });
		const longAgo = new Date(Date.now() - 60_000);
		fs.utimesSync(path.join(home, LOCK), longAgo, longAgo);
		const second = spawnCli([], env);
		await until(() => started(second.out.stdout), "a start over an old lock of another program's pid");
		expect(lockPid(home)).toBe(second.child.pid);

		// A server killed outright leaves its lock: the next start takes it over at once.
		second.child.kill("SIGKILL");
		await second.exited;
		expect(lockPid(home)).toBe(second.child.pid);
		const third = spawnCli([], env);
		await until(() => started(third.out.stdout), "a start after a crash");
		expect(third.out.stderr).toBe("");
		third.child.kill("SIGTERM");
		expect(await third.exited).toBe(0);
	});
});
