// svc-local as real processes for the command-line tests: each started with
// only PATH and HOME from this process's environment, its output collected,
// and killed after its test if it is still running.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach } from "vitest";

export const BIN = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "bin", "svc-local.js");

/** The CLI's processes for one test file; registers their clean-up after each test. */
export function cliProcesses() {
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

	return { spawnCli, runCli };
}

/** The payloads printed after "svc-local connect '" in the output, in order. */
export function payloads(text: string) {
	return [...text.matchAll(/svc-local connect '([^']+)'/g)].map((m) => JSON.parse(m[1]));
}

/**
 * Whether a start whose output is not a terminal has got as far as saying how to pair (it prints
 * no code there): listening, with local-server.json written.
 */
export function started(text: string) {
	return text.includes("pairing code: not printed");
}
