// `svc-local connect`: this computer as a paired device, connected until it
// is stopped or revoked.
import path from "node:path";
import { CliError, stringOption, UsageError } from "./commandSpec.js";
import { stateDirFrom } from "./config.js";
import { CREDENTIAL_FILE, DeviceClient, PayloadError } from "./device.js";
import { fetchFailure } from "./fetchError.js";
import { readCloudSession } from "./owner.js";
import { readSecretFile, readStandardInput } from "./prompt.js";

/** @typedef {import("./commandSpec.js").Command} Command */

/** @type {Command} */
export const connect = {
	summary: "pair this computer as a device (platform Desktop) and stay connected",
	args: ["[payload|-]"],
	options: {
		name: { type: "string", value: "name", description: "the device name shown to the owner (default: the host name)" },
		"credential-file": { type: "string", value: "file", description: `where the credential is kept (default: ${CREDENTIAL_FILE} in SVC_HOME)` },
		"session-token": {
			type: "string",
			value: "token",
			description: "a session of the desktop's owner, needed when it runs in cloud mode; other users of this computer can see it (ps): prefer SVC_SESSION_TOKEN or --session-token-file",
		},
		"session-token-file": { type: "string", value: "file", description: "read that session from the file's first line (- : from standard input)" },
	},
	details:
		"payload: the pairing code's JSON, as printed by `svc-local pair`, in single quotes. Without it, it reconnects with the saved credential.\n" +
		"Until it is used the code pairs whoever holds it, and other users of this computer see the command line (ps): with - for\n" +
		"the payload it is read from standard input instead, asked for without echo on a terminal, else all of it (the JSON, or\n" +
		"svc-local pair's whole output): svc-local connect - < code.json, or svc-local pair | ssh laptop svc-local connect -.\n" +
		"A desktop in cloud mode also needs a session of its owner: SVC_SESSION_TOKEN=<token> svc-local connect ..., or --session-token-file\n" +
		"(else the session of svc-local login on this computer). --session-token works too, but shows the token to every user of the computer.\n" +
		"It exits 3 when the device is revoked or paired again elsewhere: only a new code brings it back.",
	async run({ args: [payload], options }, io) {
		const stateDir = stateDirFrom(io.env);
		const credentialFile = path.resolve(stringOption(options["credential-file"]) ?? path.join(stateDir, CREDENTIAL_FILE));
		const tokenFile = stringOption(options["session-token-file"]);
		if (payload === "-" && tokenFile === "-") throw new UsageError("the payload and --session-token-file cannot both be read from standard input (-)", "svc-local connect");
		const sessionToken =
			stringOption(options["session-token"]) ??
			(tokenFile === undefined ? undefined : await readSecretFile(io, tokenFile, "--session-token-file")) ??
			(io.env.SVC_SESSION_TOKEN || undefined) ??
			readCloudSession(stateDir)?.token;
		const client = new DeviceClient({
			credentialFile,
			name: stringOption(options.name),
			platform: "Desktop",
			sessionToken,
		});
		if (payload) {
			const code = payload === "-" ? pairingCodeIn(await readStandardInput(io, "Pairing code (the JSON after svc-local connect): ")) : payload;
			try {
				const saved = await client.pair(code);
				io.stdout.write(`paired as ${saved.deviceId}; credential saved in ${credentialFile}\n`);
			} catch (err) {
				if (err instanceof PayloadError) throw new CliError(err.message);
				throw new CliError(`pairing failed: ${fetchFailure(err)}`);
			}
		} else if (!client.pairing) {
			throw new CliError(`not paired yet: run svc-local connect '<qr payload JSON>' (no credential in ${credentialFile})`);
		}
		client.on("welcome", () => io.stdout.write(`connected (device ${client.deviceId})\n`));
		// Each failure once, with its reason: the URLs tried and why each failed, or the connection lost.
		client.on("reconnecting", (/** @type {{delayMs: number, reason: string}} */ r) => io.stderr.write(`svc-local connect: ${r.reason}; retrying in ${Math.round(r.delayMs / 1000)} s\n`));
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

/**
 * The pairing code in what standard input held: the payload's JSON, or the output of `svc-local pair`
 * (a QR code, then the line `svc-local connect '<payload>'`), whose last such line is taken.
 * @param {string} text
 */
function pairingCodeIn(text) {
	const lines = [...text.matchAll(/svc-local connect '([^'\n]+)'/g)];
	const code = lines.length > 0 ? lines[lines.length - 1][1] : text.trim();
	if (!code) throw new CliError("no pairing code on standard input (give the JSON that svc-local pair prints after svc-local connect)");
	return code;
}
