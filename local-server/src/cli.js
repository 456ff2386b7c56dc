// The `svc-local` command line. Every command is a function of its argv and
// streams, so tests can run them as real processes or in-process.
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { stateDirFrom } from "./config.js";
import { CREDENTIAL_FILE, DeviceClient, PayloadError } from "./device.js";
import { ensurePrivateDir, readJsonFile } from "./fsutil.js";
import { isObject } from "./json.js";
import { CLOUD_SESSION_FILE, OWNER_TOKEN_FILE, cloudWhoAmI, normalizeApiUrl, readCloudSession, writeCloudSession } from "./owner.js";
import { payloadText, terminalQr } from "./qr.js";
import { CodeRefresher } from "./refresh.js";
import { SERVER_FILE, startServer } from "./server.js";

const HELP = `svc-local: the svc desktop local server (QR pairing and live device connections)

Usage:
  svc-local [start]              start the server; prints the endpoint, the owner-token hint and a pairing QR code
                                 (keys: n = new code, q = quit)
  svc-local pair                 print a fresh pairing code from the running server
  svc-local devices              list paired devices
  svc-local revoke <deviceId>    revoke a paired device
  svc-local login <api_url> [--email <email>] [--token <session token>]
                                 use your svc cloud account as the owner session (restart the server after)
  svc-local logout               back to the local owner token
  svc-local connect ['<qr payload JSON>'] [--name <name>] [--credential-file <file>] [--session-token <token>]
                                 pair this computer as a device (platform Desktop) and stay connected;
                                 without a payload, reconnects with the saved credential

Environment: SVC_HOME (state directory, default ~/.svc), SVC_MODE (production | isolated | preview),
SVC_PORT, SVC_SERVER_HOST, SVC_ALLOW_LAN, SVC_OWNER_TOKEN, SVC_SESSION_TOKEN.
`;

/**
 * @typedef {object} Io
 * @property {NodeJS.ProcessEnv} env
 * @property {NodeJS.WritableStream & {isTTY?: boolean}} stdout
 * @property {NodeJS.WritableStream} stderr
 * @property {NodeJS.ReadableStream & {isTTY?: boolean, setRawMode?: (mode: boolean) => void}} stdin
 */

/**
 * Splits argv into positionals and --flag value pairs.
 * @param {string[]} argv
 */
function parseArgs(argv) {
	/** @type {string[]} */
	const positional = [];
	/** @type {Record<string, string>} */
	const flags = {};
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		if (a.startsWith("--")) {
			const eq = a.indexOf("=");
			if (eq > 0) flags[a.slice(2, eq)] = a.slice(eq + 1);
			else if (i + 1 < argv.length && !argv[i + 1].startsWith("--")) flags[a.slice(2)] = argv[++i];
			else flags[a.slice(2)] = "true";
		} else positional.push(a);
	}
	return { positional, flags };
}

class CliError extends Error {}

/**
 * The bearer the owner's own commands use: the cloud session after a login,
 * else SVC_OWNER_TOKEN, else the owner-token file.
 * @param {string} stateDir @param {NodeJS.ProcessEnv} env
 */
function ownerBearer(stateDir, env) {
	const cloud = readCloudSession(stateDir);
	if (cloud) return cloud.token;
	if (env.SVC_OWNER_TOKEN?.trim()) return env.SVC_OWNER_TOKEN.trim();
	try {
		return fs.readFileSync(path.join(stateDir, OWNER_TOKEN_FILE), "utf8").trim();
	} catch {
		throw new CliError(`no owner token: set SVC_OWNER_TOKEN or start svc-local once to create ${path.join(stateDir, OWNER_TOKEN_FILE)}`);
	}
}

/** @param {number} pid */
function alive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch (err) {
		return /** @type {NodeJS.ErrnoException} */ (err).code === "EPERM";
	}
}

/** The running server's local URL, from local-server.json. @param {string} stateDir */
function runningServerUrl(stateDir) {
	const info = readJsonFile(path.join(stateDir, SERVER_FILE));
	if (!isObject(info) || typeof info.port !== "number" || typeof info.pid !== "number" || !alive(info.pid)) throw new CliError("svc-local is not running (start it with `svc-local`)");
	const host = typeof info.host === "string" && info.host !== "0.0.0.0" && info.host !== "::" ? info.host : "127.0.0.1";
	return `http://${host.includes(":") ? `[${host}]` : host}:${info.port}`;
}

/**
 * @param {string} stateDir @param {NodeJS.ProcessEnv} env @param {string} method @param {string} pathname
 */
async function ownerRequest(stateDir, env, method, pathname) {
	const base = runningServerUrl(stateDir);
	const res = await fetch(`${base}${pathname}`, { method, headers: { authorization: `Bearer ${ownerBearer(stateDir, env)}` } });
	const body = /** @type {any} */ (await res.json().catch(() => ({})));
	if (!res.ok) throw new CliError(`${method} ${pathname}: ${res.status} ${body?.error ?? res.statusText}`);
	return body;
}

/** @param {Io} io @param {{secret: string, expiresAt: string, payload: object}} b */
async function printCode(io, b) {
	const qr = await terminalQr(b.payload);
	const expires = new Date(b.expiresAt).toLocaleTimeString();
	io.stdout.write(`\nScan with the svc app to pair (code expires at ${expires}):\n${qr}\n`);
	io.stdout.write(`Or on another computer: svc-local connect '${payloadText(b.payload)}'\n`);
}

/** @param {string[]} argv @param {Io} io */
async function cmdStart(argv, io) {
	const { flags } = parseArgs(argv);
	const server = await startServer({ env: io.env, log: (line) => io.stderr.write(`svc-local: ${line}\n`) });
	const o = server.owner;
	io.stdout.write(`svc-local (${server.mode}) listening on ${server.host}:${server.port}\n`);
	io.stdout.write(`  endpoint: ${server.baseUrls.join(", ")}\n`);
	io.stdout.write(`  pairing page: ${server.localUrl}\n`);
	if (o.mode === "cloud") io.stdout.write(`  owner: ${o.ownerLabel} (cloud session; sign in to the page with your svc session token, saved in ${path.join(server.stateDir, CLOUD_SESSION_FILE)})\n`);
	else if (o.mintedToken) io.stdout.write(`  owner token (shown once; also saved in ${o.tokenFile}, mode 0600):\n    ${o.mintedToken}\n`);
	else if (o.tokenSource === "env") io.stdout.write("  owner token: the value of SVC_OWNER_TOKEN\n");
	else io.stdout.write(`  owner token: in ${o.tokenFile}\n`);

	let shown = 0;
	const refresher = new CodeRefresher({
		fetchCode: async () => server.createBootstrap(),
		show: async (b) => {
			// On a terminal each new code replaces the last one (the first keeps the header above it).
			if (shown++ > 0 && io.stdout.isTTY && flags["no-clear"] === undefined) {
				io.stdout.write(`\x1b[2J\x1b[Hsvc-local listening on ${server.baseUrls.join(", ")}  (pairing page ${server.localUrl})\n`);
			}
			await printCode(io, b);
			io.stdout.write("Press n for a new code, q to quit.\n");
		},
		onError: (err) => io.stderr.write(`svc-local: could not make a pairing code: ${/** @type {Error} */ (err)?.message ?? err}\n`),
	});
	await refresher.refresh();

	let stopping = false;
	const stop = async () => {
		if (stopping) return;
		stopping = true;
		refresher.stop();
		if (io.stdin.isTTY && io.stdin.setRawMode) io.stdin.setRawMode(false);
		io.stdin.pause();
		await server.close();
		io.stdout.write("svc-local stopped\n");
	};
	const done = new Promise((resolve) => {
		process.once("SIGINT", () => void stop().then(resolve));
		process.once("SIGTERM", () => void stop().then(resolve));
		if (io.stdin.isTTY && io.stdin.setRawMode) io.stdin.setRawMode(true);
		io.stdin.on("data", (chunk) => {
			for (const ch of chunk.toString()) {
				if (ch === "q" || ch === "\u0003") return void stop().then(resolve);
				if (ch === "n" || ch === " " || ch === "\r") return void refresher.refresh();
			}
		});
		io.stdin.on("error", () => {});
		io.stdin.resume();
	});
	await done;
	return 0;
}

/** @param {string[]} _argv @param {Io} io */
async function cmdPair(_argv, io) {
	const stateDir = stateDirFrom(io.env);
	const b = await ownerRequest(stateDir, io.env, "POST", "/api/pairing/bootstrap");
	await printCode(io, b);
	return 0;
}

/** @param {string[]} _argv @param {Io} io */
async function cmdDevices(_argv, io) {
	const { devices } = await ownerRequest(stateDirFrom(io.env), io.env, "GET", "/api/pairing/devices");
	if (devices.length === 0) io.stdout.write("no paired devices\n");
	for (const d of devices) {
		io.stdout.write(`${d.deviceId}  ${d.name}  ${d.platform}  ${d.state}  ${d.remoteAddress ?? "-"}  last seen ${d.lastSeen ?? "-"}  paired ${d.pairedAt}\n`);
	}
	return 0;
}

/** @param {string[]} argv @param {Io} io */
async function cmdRevoke(argv, io) {
	const id = parseArgs(argv).positional[0];
	if (!id) throw new CliError("usage: svc-local revoke <deviceId>");
	await ownerRequest(stateDirFrom(io.env), io.env, "DELETE", `/api/pairing/devices/${encodeURIComponent(id)}`);
	io.stdout.write(`revoked ${id}\n`);
	return 0;
}

/**
 * Prompts for one line; hidden input for passwords on a terminal.
 * @param {Io} io @param {string} question @param {boolean} hidden
 * @returns {Promise<string>}
 */
function prompt(io, question, hidden) {
	return new Promise((resolve) => {
		const rl = readline.createInterface({ input: io.stdin, output: io.stdout, terminal: !!io.stdin.isTTY });
		if (hidden && io.stdin.isTTY) {
			/** @type {any} */ (rl)._writeToOutput = (/** @type {string} */ s) => {
				if (s.startsWith(question)) io.stdout.write(question);
			};
		}
		rl.question(question, (answer) => {
			rl.close();
			if (hidden && io.stdin.isTTY) io.stdout.write("\n");
			resolve(answer.trim());
		});
	});
}

/** @param {string[]} argv @param {Io} io */
async function cmdLogin(argv, io) {
	const { positional, flags } = parseArgs(argv);
	if (!positional[0]) throw new CliError("usage: svc-local login <api_url> [--email <email>] [--token <session token>]");
	let apiUrl;
	try {
		apiUrl = normalizeApiUrl(positional[0]);
	} catch {
		throw new CliError(`not an http(s) URL: ${positional[0]}`);
	}
	let token = flags.token ?? io.env.SVC_SESSION_TOKEN;
	if (!token) {
		const email = flags.email ?? (await prompt(io, "Email: ", false));
		const password = io.env.SVC_PASSWORD ?? (await prompt(io, "Password: ", true));
		const res = await fetch(`${apiUrl}/api/auth/login`, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ email, password }),
			signal: AbortSignal.timeout(10_000),
		});
		const body = /** @type {any} */ (await res.json().catch(() => ({})));
		if (!res.ok || typeof body?.token !== "string") throw new CliError(`sign-in failed: ${res.status} ${body?.error ?? res.statusText}`);
		token = body.token;
	}
	const who = await cloudWhoAmI(apiUrl, /** @type {string} */ (token));
	if (who.status === "invalid") throw new CliError("the session token is not valid");
	if (who.status === "unreachable") throw new CliError(`cannot reach ${apiUrl}: ${who.error}`);
	const stateDir = stateDirFrom(io.env);
	ensurePrivateDir(stateDir);
	writeCloudSession(stateDir, { apiUrl, token: /** @type {string} */ (token), user: who.user });
	io.stdout.write(`signed in as ${who.user.email ?? who.user.id}; the desktop owner session is now your svc cloud session.\n`);
	io.stdout.write("Devices are tied to their owner: devices paired under the local owner token must pair again. Restart svc-local if it is running.\n");
	return 0;
}

/** @param {string[]} _argv @param {Io} io */
async function cmdLogout(_argv, io) {
	const stateDir = stateDirFrom(io.env);
	fs.rmSync(path.join(stateDir, CLOUD_SESSION_FILE), { force: true });
	io.stdout.write("signed out; svc-local uses the local owner token again (restart it if it is running)\n");
	return 0;
}

/** @param {string[]} argv @param {Io} io */
async function cmdConnect(argv, io) {
	const { positional, flags } = parseArgs(argv);
	const stateDir = stateDirFrom(io.env);
	const credentialFile = path.resolve(flags["credential-file"] ?? path.join(stateDir, CREDENTIAL_FILE));
	const sessionToken = flags["session-token"] ?? io.env.SVC_SESSION_TOKEN ?? readCloudSession(stateDir)?.token;
	const client = new DeviceClient({
		credentialFile,
		name: flags.name,
		platform: "Desktop",
		sessionToken,
		log: (line) => io.stderr.write(`svc-local connect: ${line}\n`),
	});
	if (positional[0]) {
		try {
			const saved = await client.pair(positional[0]);
			io.stdout.write(`paired as ${saved.deviceId}; credential saved in ${credentialFile}\n`);
		} catch (err) {
			if (err instanceof PayloadError) throw new CliError(err.message);
			throw new CliError(`pairing failed: ${/** @type {Error} */ (err).message}`);
		}
	} else if (!client.pairing) {
		throw new CliError(`not paired yet: run svc-local connect '<qr payload JSON>' (no credential in ${credentialFile})`);
	}
	client.on("welcome", () => io.stdout.write(`connected (device ${client.deviceId})\n`));
	client.on("reconnecting", (r) => io.stderr.write(`svc-local connect: connection lost; retrying in ${Math.round(r.delayMs / 1000)} s\n`));
	const ended = new Promise((resolve) => {
		client.on("revoked", (r) => {
			io.stderr.write(`svc-local connect: ${r.reason}; pair again with a new code\n`);
			resolve(3);
		});
		const stop = () => void client.stop().then(() => resolve(0));
		process.once("SIGINT", stop);
		process.once("SIGTERM", stop);
	});
	client.connect().catch(() => {});
	return /** @type {Promise<number>} */ (ended);
}

/**
 * Runs one command; answers the exit code.
 * @param {string[]} argv
 * @param {Io} io
 */
export async function main(argv, io) {
	const [command = "start", ...rest] = argv;
	/** @type {Record<string, (argv: string[], io: Io) => Promise<number>>} */
	const commands = { start: cmdStart, pair: cmdPair, devices: cmdDevices, revoke: cmdRevoke, login: cmdLogin, logout: cmdLogout, connect: cmdConnect };
	if (command === "help" || command === "--help" || command === "-h") {
		io.stdout.write(HELP);
		return 0;
	}
	const run = commands[command];
	if (!run) {
		io.stderr.write(`svc-local: unknown command ${JSON.stringify(command)}\n\n${HELP}`);
		return 2;
	}
	try {
		return await run(rest, io);
	} catch (err) {
		if (err instanceof CliError) {
			io.stderr.write(`svc-local: ${err.message}\n`);
			return 1;
		}
		io.stderr.write(`svc-local: ${/** @type {Error} */ (err)?.message ?? err}\n`);
		return 1;
	}
}
