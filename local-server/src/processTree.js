// Runs a command as the leader of its own process group, so that everything
// it starts (a package manager's install scripts and their children) can be
// ended together: at the timeout, when the command itself has exited, or when
// svc-local stops. POSIX process groups; the output is kept as a tail only.
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { stripVTControlCharacters } from "node:util";

const OUTPUT_TAIL_CHARS = 4000;

/**
 * @typedef {object} TreeOutcome
 * @property {number | null} exitCode null when it did not exit by itself (timeout, stop, could not start)
 * @property {boolean} timedOut
 * @property {number} durationMs
 * @property {string} outputTail the last 4,000 characters of stdout and stderr, interleaved, without terminal escapes
 */

/**
 * The last `n` UTF-16 units of `text`, less a half of a character the cut would leave at the start
 * (an emoji's low surrogate alone), so the tail is well-formed text to print or send as JSON.
 * @param {string} text @param {number} n
 */
function lastChars(text, n) {
	const tail = text.slice(-n);
	return /^[\uDC00-\uDFFF]/.test(tail) ? tail.slice(1) : tail;
}

/** @param {number} pid */
function killGroup(pid) {
	try {
		process.kill(-pid, "SIGKILL");
	} catch {
		// the group is gone already
	}
}

/**
 * @param {string[]} argv
 * @param {{cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number}} options
 * @returns {{done: Promise<TreeOutcome>, kill: () => void}}
 */
export function runProcessTree([command, ...args], { cwd, env, timeoutMs }) {
	const started = performance.now();
	let output = "";
	let timedOut = false;
	/** @param {string} text */
	const keep = (text) => {
		output = lastChars(output + text, OUTPUT_TAIL_CHARS * 2);
	};
	const child = spawn(command, args, { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
	const kill = () => child.pid !== undefined && killGroup(child.pid);
	const timer = setTimeout(() => {
		timedOut = true;
		keep(`\n[svc-local: stopped after ${timeoutMs} ms]\n`);
		kill();
	}, timeoutMs);
	child.stdout.setEncoding("utf8").on("data", keep);
	child.stderr.setEncoding("utf8").on("data", keep);
	// What the command started ends with it (a child left behind would hold the output open).
	child.on("exit", kill);

	/** @type {Promise<TreeOutcome>} */
	const done = new Promise((resolve) => {
		/** @param {number | null} exitCode */
		const finish = (exitCode) => {
			clearTimeout(timer);
			resolve({
				exitCode: timedOut ? null : exitCode,
				timedOut,
				durationMs: Math.round(performance.now() - started),
				outputTail: lastChars(stripVTControlCharacters(output), OUTPUT_TAIL_CHARS),
			});
		};
		child.on("error", (err) => {
			keep(`svc-local: could not run ${command}: ${err.message}${/** @type {NodeJS.ErrnoException} */ (err).code === "ENOENT" ? ` (is ${command} installed and on the PATH?)` : ""}\n`);
			finish(null);
		});
		child.on("close", (code) => finish(code));
	});
	return { done, kill };
}
