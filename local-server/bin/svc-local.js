#!/usr/bin/env node
// svc-local: the svc desktop local server and its device client (see README.md).
// The version check comes before anything else is loaded, so an old Node gets
// this message rather than a syntax error.
const [major] = process.versions.node.split(".").map(Number);
if (major < 22) {
	process.stderr.write(`svc-local needs Node 22 or newer (this is ${process.version})\n`);
	process.exit(1);
}

const { main } = await import("../src/cli.js");
main(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }).then(
	(code) => process.exit(code),
	(/** @type {unknown} */ err) => {
		process.stderr.write(`svc-local: ${err instanceof Error ? err.stack : String(err)}\n`);
		process.exit(1);
	},
);
