// Starts the Worker on the embedded local runtime (`wrangler dev`), on a free port with its own
// throw-away state and the real migrations applied: what `npm start` serves, for the benchmark
// and the browser tests.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const wrangler = join(root, "node_modules", ".bin", "wrangler");

const freePort = () =>
	new Promise((resolve) => {
		const server = createServer().listen(0, "127.0.0.1", () => {
			const { port } = server.address();
			server.close(() => resolve(port));
		});
	});

/** @returns {Promise<{ base: string, stop: () => Promise<void> }>} */
export async function startLocalWorker({ vars = {} } = {}) {
	const persist = mkdtempSync(join(tmpdir(), "svc-worker-"));
	const migrated = spawnSync(wrangler, ["d1", "migrations", "apply", "DB", "--local", "--persist-to", persist], {
		cwd: root,
		encoding: "utf8",
		env: { ...process.env, CI: "1" },
	});
	if (migrated.status !== 0) throw new Error(`migrations failed:\n${migrated.stdout}\n${migrated.stderr}`);

	const port = await freePort();
	const args = ["dev", "--ip", "127.0.0.1", "--port", String(port), "--persist-to", persist, "--show-interactive-dev-session=false"];
	for (const [name, value] of Object.entries(vars)) args.push("--var", `${name}:${value}`);
	const dev = spawn(wrangler, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"], detached: true });
	let output = "";
	dev.stdout.on("data", (chunk) => (output += chunk));
	dev.stderr.on("data", (chunk) => (output += chunk));

	const base = `http://127.0.0.1:${port}`;
	const stop = async () => {
		if (dev.exitCode === null) {
			const exited = new Promise((resolve) => dev.once("exit", resolve));
			process.kill(-dev.pid, "SIGTERM"); // the whole group: wrangler and its workerd
			await exited;
		}
		rmSync(persist, { recursive: true, force: true });
	};

	for (let attempt = 0; attempt < 240; attempt++) {
		if (dev.exitCode !== null) break;
		try {
			await fetch(`${base}/api/ping`);
			return { base, stop };
		} catch {
			await new Promise((resolve) => setTimeout(resolve, 250));
		}
	}
	await stop();
	throw new Error(`wrangler dev did not start:\n${output}`);
}
