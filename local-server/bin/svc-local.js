#!/usr/bin/env node
// svc-local: the svc desktop local server and its device client (see README.md).
import { main } from "../src/cli.js";

const [major] = process.versions.node.split(".").map(Number);
if (major < 22) {
	process.stderr.write(`svc-local needs Node 22 or newer (this is ${process.version})\n`);
	process.exit(1);
}

main(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }).then(
	(code) => process.exit(code),
	(err) => {
		process.stderr.write(`svc-local: ${err?.stack ?? err}\n`);
		process.exit(1);
	},
);
