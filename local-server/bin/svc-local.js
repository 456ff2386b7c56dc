#!/usr/bin/env node
// svc-local: the svc desktop local server and its device client (see README.md).
// The version check comes before anything else is loaded, so an old Node gets
// this message rather than a syntax error.
const [major] = process.versions.node.split(".").map(Number);
if (major < 22) {
	process.stderr.write(`svc-local needs Node 22 or newer (this is ${process.version})\n`);
	process.exit(1);
}

/**
 * Exits once what was written has left: to a pipe, output is written asynchronously, and an exit
 * at once cut `svc-local health --json | jq` at the pipe's 64 KiB.
 * @param {number} code
 */
function exitAfterOutput(code) {
	let pending = 2;
	const done = () => {
		if (--pending === 0) process.exit(code);
	};
	// An empty write's callback runs after the writes before it (or with the stream's error).
	process.stdout.write("", done);
	process.stderr.write("", done);
}

const { main } = await import("../src/cli.js");
main(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }).then(exitAfterOutput, (/** @type {unknown} */ err) => {
	process.stderr.write(`svc-local: ${err instanceof Error ? err.stack : String(err)}\n`);
	exitAfterOutput(1);
});
