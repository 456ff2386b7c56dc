// Which owner session the desktop uses: an svc cloud account (login) or the
// local owner token (logout).
import fs from "node:fs";
import path from "node:path";
import { CliError, stringOption } from "./commandSpec.js";
import { stateDirFrom } from "./config.js";
import { fetchFailure } from "./fetchError.js";
import { ensurePrivateDir } from "./fsutil.js";
import { isObject } from "./json.js";
import { CLOUD_SESSION_FILE, cloudWhoAmI, normalizeApiUrl, writeCloudSession } from "./owner.js";
import { prompt, readSecretFile } from "./prompt.js";

/** @typedef {import("./commandSpec.js").Command} Command */

/** @type {Command} */
export const login = {
	summary: "use your svc cloud account as the owner session (restart the server after)",
	args: ["<api_url>"],
	options: {
		email: { type: "string", value: "email", description: "the account's email (asked for when missing)" },
		token: {
			type: "string",
			value: "session token",
			description: "an existing session token instead of email and password; other users of this computer can see it (ps): prefer SVC_SESSION_TOKEN or --token-file",
		},
		"token-file": { type: "string", value: "file", description: "read that session token from the file's first line (- : from standard input)" },
	},
	details: "Without a token it asks for the email and the password (typed without echo), or reads the password from SVC_PASSWORD.",
	async run({ args: [url], options }, io) {
		let apiUrl;
		try {
			apiUrl = normalizeApiUrl(url);
		} catch {
			throw new CliError(`not an http(s) URL: ${url}`);
		}
		const tokenFile = stringOption(options["token-file"]);
		let token = stringOption(options.token) ?? (tokenFile === undefined ? undefined : await readSecretFile(io, tokenFile, "--token-file")) ?? (io.env.SVC_SESSION_TOKEN || undefined);
		if (!token) {
			const email = stringOption(options.email) ?? (await prompt(io, "Email: "));
			const password = io.env.SVC_PASSWORD ?? (await prompt(io, "Password: ", { hidden: true }));
			/** @type {Response} */
			let res;
			try {
				res = await fetch(`${apiUrl}/api/auth/login`, {
					method: "POST",
					headers: { "content-type": "application/json" },
					body: JSON.stringify({ email, password }),
					signal: AbortSignal.timeout(10_000),
				});
			} catch (err) {
				throw new CliError(`cannot reach ${apiUrl}: ${fetchFailure(err)}`);
			}
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
export const logout = {
	summary: "back to the local owner token",
	async run(_input, io) {
		fs.rmSync(path.join(stateDirFrom(io.env), CLOUD_SESSION_FILE), { force: true });
		io.stdout.write("signed out; svc-local uses the local owner token again (restart it if it is running)\n");
		return 0;
	},
};
