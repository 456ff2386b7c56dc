// `svc-local start`: the server in the foreground, with a pairing code on the
// terminal that a key press renews (to anything else, how to get one).
import fs from "node:fs";
import path from "node:path";
import { stringOption, UsageError } from "./commandSpec.js";
import { CLOUD_SESSION_FILE } from "./owner.js";
import { printCode } from "./pairingCommands.js";
import { CodeRefresher } from "./refresh.js";
import { startServer } from "./startServer.js";

/** @typedef {import("./commandSpec.js").Command} Command */

/** @type {Command} */
export const start = {
	summary: "start the server; prints the endpoint, the owner-token hint and (on a terminal) a pairing QR code",
	options: {
		"no-clear": { type: "boolean", description: "on a terminal, print each new code below the last instead of clearing the screen" },
		port: { type: "string", value: "port", description: "listen on this port and no other (0: any free port); paired devices that know another one must pair again" },
	},
	details:
		"Keys while it runs: n = a new code now, q (or Ctrl-C) = quit.\n" +
		"The pairing code is printed on a terminal only: to a log or a pipe it says to run svc-local pair, or open the page, for one.\n" +
		"Without --port it listens on SVC_PORT, else the port the paired devices know, else the mode's. When that port is taken it\n" +
		"takes another free one only while no device is paired: else it stops (exit 1) and says which port to free.",
	async run({ options }, io) {
		const port = portOption(stringOption(options.port));
		const server = await startServer({ env: io.env, log: (line) => io.stderr.write(`svc-local: ${line}\n`), ...(port === undefined ? {} : { port, exactPort: true }) });
		let shown = 0;
		// A pairing code goes only to a terminal, where it is shown and then gone. Anything else (a log
		// file, a service's journal) keeps what it is given and may be read by others, for whom a live
		// code pairs their device: there start says how to get one instead.
		const terminal = io.stdout.isTTY === true;
		const howToPair = `  pairing code: not printed, as this output is not a terminal and may be kept in a log; run svc-local pair, or open ${server.localUrl}, for one\n`;
		const refresher = new CodeRefresher({
			fetchCode: async () => server.createBootstrap(),
			show: async (b) => {
				if (stopping) return; // made as a stop came: nobody can pair with it
				// Each new code replaces the last one (the first keeps the header above it).
				if (shown++ > 0 && !options["no-clear"]) {
					io.stdout.write(`\x1b[2J\x1b[Hsvc-local listening on ${server.baseUrls.join(", ")}  (pairing page ${server.localUrl})\n`);
				}
				await printCode(io, b);
				if (io.stdin.isTTY) io.stdout.write("Press n for a new code, q to quit.\n"); // piped or run as a service, nobody can press them
			},
			onError: (err) => io.stderr.write(`svc-local: could not make a pairing code: ${err instanceof Error ? err.message : String(err)}\n`),
		});
		// Listening from here on, with local-server.json written: a signal from now (a service
		// manager's stop right after start) closes the server and removes the file, never kills it mid-way.
		let stopping = false;
		/** @type {(value?: unknown) => void} */
		let stopped = () => {};
		const done = new Promise((resolve) => (stopped = resolve));
		const stop = async () => {
			if (stopping) return;
			stopping = true;
			refresher.stop();
			if (io.stdin.isTTY && io.stdin.setRawMode) io.stdin.setRawMode(false);
			io.stdin.pause();
			await server.close();
			io.stdout.write("svc-local stopped\n");
			stopped();
		};
		process.once("SIGINT", () => void stop());
		process.once("SIGTERM", () => void stop());
		// The output's reader is gone (`svc-local | head -5` after its lines): where SIGPIPE would end
		// another program, stop as on a signal, rather than crash on the write and leave the files.
		io.stdout.on("error", (/** @type {NodeJS.ErrnoException} */ err) => {
			if (err.code === "EPIPE") void stop();
			else io.stderr.write(`svc-local: output failed: ${err.message}\n`);
		});

		const o = server.owner;
		io.stdout.write(`svc-local (${server.mode}) listening on ${server.host}:${server.port}\n`);
		io.stdout.write(`  endpoint: ${server.baseUrls.join(", ")}\n`);
		io.stdout.write(`  pairing page: ${server.localUrl}\n`);
		if (o.mode === "cloud") io.stdout.write(`  owner: ${o.ownerLabel} (cloud session; sign in to the page with your svc session token, saved in ${path.join(server.stateDir, CLOUD_SESSION_FILE)})\n`);
		else if (o.mintedToken && terminal) io.stdout.write(`  owner token (shown once; also saved in ${o.tokenFile}, mode 0600):\n    ${o.mintedToken}\n`);
		// A log keeps what a terminal shows once, readable by whoever may read the log: the owner
		// token opens every owner route (a logger update runs a package manager), so it stays in its file.
		else if (o.mintedToken) io.stdout.write(`  owner token: saved in ${o.tokenFile} (mode 0600); not printed, as this output is not a terminal and may be kept in a log\n`);
		else if (o.tokenSource === "env") io.stdout.write("  owner token: the value of SVC_OWNER_TOKEN\n");
		else if (o.tokenFile && fs.existsSync(o.tokenFile)) io.stdout.write(`  owner token: in ${o.tokenFile}\n`);
		// First started with SVC_OWNER_TOKEN (no file was written), or the file was deleted: the
		// token cannot be shown, and pointing at a missing file leaves the owner locked out.
		else io.stdout.write(`  owner token: not shown (no ${o.tokenFile}: it was set with SVC_OWNER_TOKEN, or the file was removed); start with SVC_OWNER_TOKEN=<a token of your choice> to sign in with that one\n`);

		if (terminal) await refresher.refresh();
		else io.stdout.write(howToPair);
		// Stopped while the first code was made: its refresh may have set a timer after stop() ran.
		if (stopping) refresher.stop();
		else {
			// LAN turned on or off (from the page): the code on screen names addresses that changed;
			// a log is told the new addresses.
			server.on("endpoints", () => (terminal ? void refresher.refresh() : io.stdout.write(`  endpoint now: ${server.baseUrls.join(", ")}\n`)));
			// A device paired: the code on screen may be the one it used, which works once.
			if (terminal) server.on("paired", () => void refresher.refresh());
			if (io.stdin.isTTY && io.stdin.setRawMode) io.stdin.setRawMode(true);
			io.stdin.on("data", (/** @type {Buffer | string} */ chunk) => {
				for (const ch of chunk.toString()) {
					if (ch === "q" || ch === "\u0003") return void stop();
					if (ch === "n" || ch === " " || ch === "\r") return void (terminal ? refresher.refresh() : io.stdout.write(howToPair));
				}
			});
			io.stdin.on("error", () => {});
			io.stdin.resume();
		}
		await done;
		return 0;
	},
};

/** @param {string | undefined} value */
function portOption(value) {
	if (value === undefined) return undefined;
	const port = /^\d{1,5}$/.test(value.trim()) ? Number(value) : Number.NaN;
	if (!(port <= 65535)) throw new UsageError(`--port must be a port number, 0 to 65535 (got ${JSON.stringify(value)})`, "svc-local start");
	return port;
}
