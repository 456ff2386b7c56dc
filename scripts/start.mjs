// `npm start`: build the console, apply the D1 migrations to the local database, then serve the
// API and the console on the embedded local runtime at http://127.0.0.1:$PORT (default 8787).
// State persists in .wrangler/state between runs, or in the directory STATE_DIR names.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const port = process.env.PORT || "8787";

function run(command, args) {
	const result = spawnSync(command, args, { cwd: root, stdio: "inherit", env: { ...process.env, CI: "1" } });
	if (result.status !== 0) process.exit(result.status ?? 1);
}

const persistTo = process.env.STATE_DIR ? ["--persist-to", process.env.STATE_DIR] : [];

run("npm", ["run", "build", "--silent"]);
run("wrangler", ["d1", "migrations", "apply", "DB", "--local", ...persistTo]);

const args = ["dev", "--ip", "127.0.0.1", "--port", port, "--show-interactive-dev-session=false", ...persistTo];

// Retention settings from the environment override wrangler.toml's [vars].
for (const name of ["ANALYTICS_RETENTION_DAYS", "CRAWLER_RETENTION_DAYS", "LOG_RETENTION_DAYS"]) {
	if (process.env[name] !== undefined) args.push("--var", `${name}:${process.env[name]}`);
}

// ADMIN_TOKEN reaches the Worker as a secret through a private env file rather than the
// command line, where any local user could read it in the process list.
const envFile = join(root, ".wrangler", "start-secrets.env");
rmSync(envFile, { force: true });
if (process.env.ADMIN_TOKEN) {
	mkdirSync(join(root, ".wrangler"), { recursive: true });
	writeFileSync(envFile, `ADMIN_TOKEN=${JSON.stringify(process.env.ADMIN_TOKEN)}\n`, { mode: 0o600 });
	args.push("--env-file", envFile);
}

// Wrangler would fetch a `request.cf` object from Cloudflare at start: the machine's own location,
// which no visitor has, and a failed fetch and an error in the log on a machine without a network
// (or a three-second wait behind a firewall). A self-hosted service does not call out at start: every
// visitor takes the runtime's placeholder (README, "Running locally"), the same online or not.
const devEnv = { CLOUDFLARE_CF_FETCH_ENABLED: "false", ...process.env };
const dev = spawn("wrangler", args, { cwd: root, stdio: "inherit", env: devEnv });

// The local runtime fires no cron triggers: run the clean-up of expired data (the Worker's
// scheduled handler) every 15 minutes, as wrangler.toml schedules it, through its local trigger.
const cleanUp = setInterval(() => {
	fetch(`http://127.0.0.1:${port}/cdn-cgi/local/scheduled`).catch((err) => console.warn(`clean-up not triggered: ${err.message}`));
}, 15 * 60 * 1000);

const stop = (signal) => dev.kill(signal);
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
dev.on("exit", (code) => {
	clearInterval(cleanUp);
	rmSync(envFile, { force: true });
	process.exit(code ?? 0);
});
