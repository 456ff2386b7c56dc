// What each `svc-local` command does. Each one declares its arguments and
// options (cli.js parses them and prints its --help) and runs with them.
import fs from "node:fs";
import path from "node:path";
import { stateDirFrom } from "./config.js";
import { CREDENTIAL_FILE, DeviceClient, PayloadError } from "./device.js";
import { ensurePrivateDir, readJsonFile } from "./fsutil.js";
import { isObject } from "./json.js";
import { CLOUD_SESSION_FILE, OWNER_TOKEN_FILE, cloudWhoAmI, normalizeApiUrl, readCloudSession, writeCloudSession } from "./owner.js";
import { prompt } from "./prompt.js";
import { payloadText, terminalQr } from "./qr.js";
import { CodeRefresher } from "./refresh.js";
import { healthText } from "./healthReport.js";
import { SERVER_FILE, startServer } from "./server.js";
import { isSshLocation } from "./workspaces.js";

/**
 * @typedef {object} Io
 * @property {NodeJS.ProcessEnv} env
 * @property {NodeJS.WritableStream & {isTTY?: boolean}} stdout
 * @property {NodeJS.WritableStream} stderr
 * @property {NodeJS.ReadableStream & {isTTY?: boolean, setRawMode?: (mode: boolean) => void}} stdin
 */

/**
 * @typedef {object} OptionSpec
 * @property {"string" | "boolean"} type
 * @property {string} [short] one letter, as -x
 * @property {string} [value] what a string option takes, for the help
 * @property {string} description
 */

/** @typedef {Record<string, string | boolean | undefined>} OptionValues */

/**
 * @typedef {object} Command
 * @property {string} summary one line, for the list of commands and the command's help
 * @property {string[]} [args] positional arguments: "<name>" required, "[name]" optional
 * @property {Record<string, OptionSpec>} [options]
 * @property {string} [details] more text for the command's help
 * @property {(input: {args: string[], options: OptionValues}, io: Io) => Promise<number>} run
 */

/**
 * Commands under one name: `svc-local workspace add <dir>`.
 * @typedef {object} CommandGroup
 * @property {string} summary
 * @property {Record<string, Command>} subcommands
 */

/** A failure to report in one line (exit 1). */
class CliError extends Error {}

/** @param {string | boolean | undefined} value */
function stringOption(value) {
	return typeof value === "string" ? value : undefined;
}

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
	if (!isObject(info) || typeof info.port !== "number" || typeof info.pid !== "number" || !alive(info.pid)) {
		throw new CliError("svc-local is not running (start it with `svc-local`)");
	}
	const host = typeof info.host === "string" && info.host !== "0.0.0.0" && info.host !== "::" ? info.host : "127.0.0.1";
	return `http://${host.includes(":") ? `[${host}]` : host}:${info.port}`;
}

/**
 * Calls the running server's API as its owner; answers the JSON body.
 * @param {NodeJS.ProcessEnv} env @param {string} method @param {string} pathname @param {unknown} [body] sent as JSON
 * @returns {Promise<unknown>}
 */
async function ownerRequest(env, method, pathname, body) {
	const stateDir = stateDirFrom(env);
	const base = runningServerUrl(stateDir);
	/** @type {Record<string, string>} */
	const headers = { authorization: `Bearer ${ownerBearer(stateDir, env)}` };
	if (body !== undefined) headers["content-type"] = "application/json";
	const res = await fetch(`${base}${pathname}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
	const answer = /** @type {unknown} */ (await res.json().catch(() => ({})));
	if (!res.ok) throw new CliError(`${method} ${pathname}: ${res.status} ${isObject(answer) && typeof answer.error === "string" ? answer.error : res.statusText}`);
	return answer;
}

/** @typedef {ReturnType<import("./server.js").LocalServer["createBootstrap"]>} Bootstrap */
/** @typedef {ReturnType<import("./pairing.js").PairingService["describe"]>} DeviceListing */

/** @param {Io} io @param {Bootstrap} b */
async function printCode(io, b) {
	const qr = await terminalQr(b.payload);
	const expires = new Date(b.expiresAt).toLocaleTimeString();
	io.stdout.write(`\nScan with the svc app to pair (code expires at ${expires}):\n${qr}\n`);
	io.stdout.write(`Or on another computer: svc-local connect '${payloadText(b.payload)}'\n`);
}

/** @type {Command} */
const start = {
	summary: "start the server; prints the endpoint, the owner-token hint and a pairing QR code",
	options: { "no-clear": { type: "boolean", description: "on a terminal, print each new code below the last instead of clearing the screen" } },
	details: "Keys while it runs: n = a new code now, q (or Ctrl-C) = quit.",
	async run({ options }, io) {
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
				if (shown++ > 0 && io.stdout.isTTY && !options["no-clear"]) {
					io.stdout.write(`\x1b[2J\x1b[Hsvc-local listening on ${server.baseUrls.join(", ")}  (pairing page ${server.localUrl})\n`);
				}
				await printCode(io, b);
				if (io.stdin.isTTY) io.stdout.write("Press n for a new code, q to quit.\n"); // piped or run as a service, nobody can press them
			},
			onError: (err) => io.stderr.write(`svc-local: could not make a pairing code: ${err instanceof Error ? err.message : String(err)}\n`),
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
		await new Promise((resolve) => {
			process.once("SIGINT", () => void stop().then(resolve));
			process.once("SIGTERM", () => void stop().then(resolve));
			if (io.stdin.isTTY && io.stdin.setRawMode) io.stdin.setRawMode(true);
			io.stdin.on("data", (/** @type {Buffer | string} */ chunk) => {
				for (const ch of chunk.toString()) {
					if (ch === "q" || ch === "\u0003") return void stop().then(resolve);
					if (ch === "n" || ch === " " || ch === "\r") return void refresher.refresh();
				}
			});
			io.stdin.on("error", () => {});
			io.stdin.resume();
		});
		return 0;
	},
};

/** @type {Command} */
const pair = {
	summary: "print a fresh pairing code from the running server",
	async run(_input, io) {
		const b = /** @type {Bootstrap} */ (await ownerRequest(io.env, "POST", "/api/pairing/bootstrap"));
		await printCode(io, b);
		return 0;
	},
};

/** @type {Command} */
const devices = {
	summary: "list paired devices",
	async run(_input, io) {
		const { devices } = /** @type {{devices: DeviceListing[]}} */ (await ownerRequest(io.env, "GET", "/api/pairing/devices"));
		if (devices.length === 0) io.stdout.write("no paired devices\n");
		for (const d of devices) {
			io.stdout.write(`${d.deviceId}  ${d.name}  ${d.platform}  ${d.state}  ${d.remoteAddress ?? "-"}  last seen ${d.lastSeen ?? "-"}  paired ${d.pairedAt}\n`);
		}
		return 0;
	},
};

/** @type {Command} */
const revoke = {
	summary: "revoke a paired device: its credential stops working and its connections end",
	args: ["<deviceId>"],
	async run({ args: [id] }, io) {
		await ownerRequest(io.env, "DELETE", `/api/pairing/devices/${encodeURIComponent(id)}`);
		io.stdout.write(`revoked ${id}\n`);
		return 0;
	},
};

/** @type {Command} */
const login = {
	summary: "use your svc cloud account as the owner session (restart the server after)",
	args: ["<api_url>"],
	options: {
		email: { type: "string", value: "email", description: "the account's email (asked for when missing)" },
		token: { type: "string", value: "session token", description: "an existing session token instead of email and password (or SVC_SESSION_TOKEN)" },
	},
	details: "Without a token it asks for the email and the password (typed without echo), or reads the password from SVC_PASSWORD.",
	async run({ args: [url], options }, io) {
		let apiUrl;
		try {
			apiUrl = normalizeApiUrl(url);
		} catch {
			throw new CliError(`not an http(s) URL: ${url}`);
		}
		let token = stringOption(options.token) ?? io.env.SVC_SESSION_TOKEN;
		if (!token) {
			const email = stringOption(options.email) ?? (await prompt(io, "Email: "));
			const password = io.env.SVC_PASSWORD ?? (await prompt(io, "Password: ", { hidden: true }));
			const res = await fetch(`${apiUrl}/api/auth/login`, {
				method: "POST",
				headers: { "content-type": "application/json" },
				body: JSON.stringify({ email, password }),
				signal: AbortSignal.timeout(10_000),
			});
			const body = /** @type {unknown} */ (await res.json().catch(() => ({})));
			if (!res.ok || !isObject(body) || typeof body.token !== "string") {
				throw new CliError(`sign-in failed: ${res.status} ${isObject(body) && typeof body.error === "string" ? body.error : res.statusText}`);
			}
			token = body.token;
		}
		const who = await cloudWhoAmI(apiUrl, token);
		if (who.status === "invalid") throw new CliError("the session token is not valid");
		if (who.status === "unreachable") throw new CliError(`cannot reach ${apiUrl}: ${who.error}`);
		const stateDir = stateDirFrom(io.env);
		ensurePrivateDir(stateDir);
		writeCloudSession(stateDir, { apiUrl, token, user: who.user });
		io.stdout.write(`signed in as ${who.user.email ?? who.user.id}; the desktop owner session is now your svc cloud session.\n`);
		io.stdout.write("Devices are tied to their owner: devices paired under the local owner token must pair again. Restart svc-local if it is running.\n");
		return 0;
	},
};

/** @type {Command} */
const logout = {
	summary: "back to the local owner token",
	async run(_input, io) {
		fs.rmSync(path.join(stateDirFrom(io.env), CLOUD_SESSION_FILE), { force: true });
		io.stdout.write("signed out; svc-local uses the local owner token again (restart it if it is running)\n");
		return 0;
	},
};

/** @type {Command} */
const connect = {
	summary: "pair this computer as a device (platform Desktop) and stay connected",
	args: ["[payload]"],
	options: {
		name: { type: "string", value: "name", description: "the device name shown to the owner (default: the host name)" },
		"credential-file": { type: "string", value: "file", description: `where the credential is kept (default: ${CREDENTIAL_FILE} in SVC_HOME)` },
		"session-token": { type: "string", value: "token", description: "a session of the desktop's owner, needed when it runs in cloud mode (or SVC_SESSION_TOKEN)" },
	},
	details:
		"payload: the pairing code's JSON, as printed by `svc-local pair`, in single quotes. Without it, it reconnects with the saved credential.\n" +
		"It exits 3 when the device is revoked or paired again elsewhere: only a new code brings it back.",
	async run({ args: [payload], options }, io) {
		const stateDir = stateDirFrom(io.env);
		const credentialFile = path.resolve(stringOption(options["credential-file"]) ?? path.join(stateDir, CREDENTIAL_FILE));
		const sessionToken = stringOption(options["session-token"]) ?? io.env.SVC_SESSION_TOKEN ?? readCloudSession(stateDir)?.token;
		const client = new DeviceClient({
			credentialFile,
			name: stringOption(options.name),
			platform: "Desktop",
			sessionToken,
			log: (line) => io.stderr.write(`svc-local connect: ${line}\n`),
		});
		if (payload) {
			try {
				const saved = await client.pair(payload);
				io.stdout.write(`paired as ${saved.deviceId}; credential saved in ${credentialFile}\n`);
			} catch (err) {
				if (err instanceof PayloadError) throw new CliError(err.message);
				throw new CliError(`pairing failed: ${err instanceof Error ? err.message : String(err)}`);
			}
		} else if (!client.pairing) {
			throw new CliError(`not paired yet: run svc-local connect '<qr payload JSON>' (no credential in ${credentialFile})`);
		}
		client.on("welcome", () => io.stdout.write(`connected (device ${client.deviceId})\n`));
		client.on("reconnecting", (/** @type {{delayMs: number}} */ r) => io.stderr.write(`svc-local connect: connection lost; retrying in ${Math.round(r.delayMs / 1000)} s\n`));
		/** @type {Promise<number>} */
		const ended = new Promise((resolve) => {
			client.on("revoked", (/** @type {{reason: string}} */ r) => {
				io.stderr.write(`svc-local connect: ${r.reason}; pair again with a new code\n`);
				resolve(3);
			});
			const stop = () => void client.stop().then(() => resolve(0));
			process.once("SIGINT", stop);
			process.once("SIGTERM", stop);
		});
		client.connect().catch(() => {});
		return ended;
	},
};

/** @typedef {import("./workspaces.js").Workspace} Workspace */
/** @typedef {import("./healthReport.js").HealthAnswer} HealthAnswer */

/** @type {CommandGroup} */
const workspace = {
	summary: "the folders whose setup health svc-local checks",
	subcommands: {
		add: {
			summary: "register a workspace: a local folder, or ssh://… or user@host:path (listed, not scanned)",
			args: ["<dir>"],
			async run({ args: [dir] }, io) {
				const where = isSshLocation(dir) ? dir : path.resolve(dir);
				const w = /** @type {Workspace} */ (await ownerRequest(io.env, "POST", "/api/workspaces", { path: where }));
				io.stdout.write(`workspace ${w.id}: ${w.path} (${w.kind})\n`);
				return 0;
			},
		},
		list: {
			summary: "list the registered workspaces",
			async run(_input, io) {
				const { workspaces } = /** @type {{workspaces: Workspace[]}} */ (await ownerRequest(io.env, "GET", "/api/workspaces"));
				if (workspaces.length === 0) io.stdout.write("no workspaces (add one with svc-local workspace add <dir>)\n");
				for (const w of workspaces) io.stdout.write(`${w.id}  ${w.kind}  ${w.path}  added ${w.addedAt}\n`);
				return 0;
			},
		},
		remove: {
			summary: "forget a workspace (its folder is left alone)",
			args: ["<id>"],
			async run({ args: [id] }, io) {
				await ownerRequest(io.env, "DELETE", `/api/workspaces/${encodeURIComponent(id)}`);
				io.stdout.write(`removed workspace ${id}\n`);
				return 0;
			},
		},
	},
};

/** Exit code of `svc-local health` when a package needs attention. */
const NEEDS_ATTENTION = 4;

/** @type {Command} */
const health = {
	summary: "scan the setup health of a workspace (all local ones without an argument)",
	args: ["[workspace]"],
	options: {
		force: { type: "boolean", description: "scan again now instead of answering the scan of the last hour" },
		json: { type: "boolean", description: "print the scan answers as a JSON array" },
	},
	details: `workspace: its id or its folder. Exits ${NEEDS_ATTENTION} when a package needs attention (a finding of severity error or warning), so that a script can stop on it.`,
	async run({ args: [which], options }, io) {
		const { workspaces } = /** @type {{workspaces: Workspace[]}} */ (await ownerRequest(io.env, "GET", "/api/workspaces"));
		const chosen = which === undefined ? workspaces.filter((w) => w.kind === "local") : [findWorkspace(workspaces, which)];
		if (chosen.length === 0) throw new CliError("no local workspace is registered: add one with svc-local workspace add <dir>");
		/** @type {HealthAnswer[]} */
		const answers = [];
		for (const w of chosen) {
			const query = `workspaceId=${w.id}${options.force ? "&force=1" : ""}`;
			answers.push(/** @type {HealthAnswer} */ (await ownerRequest(io.env, "GET", `/api/workspace/setup-health?${query}`)));
		}
		if (options.json) io.stdout.write(`${JSON.stringify(answers, null, 2)}\n`);
		else for (const [i, answer] of answers.entries()) io.stdout.write(healthText(answer, chosen[i]));
		return answers.some((a) => a.packages.some((p) => p.needsAttention)) ? NEEDS_ATTENTION : 0;
	},
};

/**
 * A registered workspace by its id or its folder.
 * @param {Workspace[]} workspaces @param {string} which
 */
function findWorkspace(workspaces, which) {
	const byId = workspaces.find((w) => w.id === which);
	if (byId) return byId;
	/** @type {string} */
	let real;
	try {
		real = fs.realpathSync(path.resolve(which));
	} catch {
		real = path.resolve(which);
	}
	const byPath = workspaces.find((w) => w.path === real || w.path === which);
	if (!byPath) throw new CliError(`no workspace is registered with id or folder ${which} (svc-local workspace list shows them; svc-local workspace add <dir> adds one)`);
	return byPath;
}

/** Every command, in the order the help lists them. @type {Record<string, Command | CommandGroup>} */
export const COMMANDS = { start, pair, devices, revoke, login, logout, connect, workspace, health };
