// `npm start` as a user runs it: the console and the API served on the local runtime at the port
// asked for, the admin token passed as a secret, the state kept where STATE_DIR says, nothing
// fetched from Cloudflare at start, and a clean stop on SIGTERM.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, it } from "vitest";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const SECRETS_FILE = join(ROOT, ".wrangler", "start-secrets.env");

/** A port nothing listens on now. */
function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer().listen(0, "127.0.0.1", () => {
			const { port } = server.address() as { port: number };
			server.close(() => resolve(port));
		});
		server.on("error", reject);
	});
}

const adminToken = randomBytes(32).toString("hex");
const stateDir = mkdtempSync(join(tmpdir(), "svc-start-"));
let base = "";
let start: ChildProcess;
let output = "";
let exited: Promise<number | null>;

beforeAll(async () => {
	const port = await freePort();
	base = `http://127.0.0.1:${port}`;
	// As a user's shell has it: vitest's NODE_ENV=test would quiet Miniflare's call out at start.
	const { NODE_ENV: _test, ...userEnv } = process.env;
	start = spawn(process.execPath, ["scripts/start.mjs"], {
		cwd: ROOT,
		env: { ...userEnv, PORT: String(port), STATE_DIR: stateDir, ADMIN_TOKEN: adminToken },
		stdio: ["ignore", "pipe", "pipe"],
	});
	for (const stream of [start.stdout, start.stderr]) stream?.on("data", (chunk) => (output += chunk));
	exited = new Promise((resolve) => start.on("exit", (code) => resolve(code)));
	// It builds, applies the migrations, then serves: up to two minutes on a busy machine.
	const deadline = Date.now() + 120_000;
	for (;;) {
		if (start.exitCode !== null) throw new Error(`npm start exited with ${start.exitCode}:\n${output}`);
		const answered = await fetch(`${base}/api/auth/me`).then((res) => res.status, () => 0);
		if (answered === 401) break;
		if (Date.now() > deadline) throw new Error(`npm start did not serve ${base} in 2 minutes:\n${output}`);
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
}, 150_000);

afterAll(async () => {
	if (start?.exitCode === null) start.kill("SIGKILL");
	rmSync(stateDir, { recursive: true, force: true });
});

describe("npm start", () => {
	it("serves the console, its pages' addresses and the tracker", async ({ expect }) => {
		for (const path of ["/", "/issues/shop", "/analytics"]) {
			const res = await fetch(`${base}${path}`);
			expect(res.status, path).toBe(200);
			expect(res.headers.get("content-type"), path).toMatch(/^text\/html/);
			expect(await res.text(), path).toContain('<div id="root">');
		}
		const tracker = await fetch(`${base}/t.js`);
		expect(tracker.status).toBe(200);
		expect(tracker.headers.get("content-type")).toMatch(/javascript/);
		// The API's own root and an unknown path under it are the API's: a JSON 404, not a console page.
		for (const path of ["/api", "/api/", "/api/nothing-here"]) {
			const res = await fetch(`${base}${path}`);
			expect(res.status, path).toBe(404);
			expect(res.headers.get("content-type"), path).toMatch(/^application\/json/);
		}
	});

	it("serves the API on the migrated database, with the admin token from the environment", async ({ expect }) => {
		const email = `start-${randomBytes(4).toString("hex")}@example.com`;
		const signUp = await fetch(`${base}/api/auth/signup`, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ email, password: "correct horse battery" }),
		});
		expect(signUp.status).toBe(201);
		const { token } = (await signUp.json()) as { token: string };
		const key = await fetch(`${base}/api/feedback-key`, {
			method: "POST",
			headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
			body: JSON.stringify({ project_name: "shop" }),
		});
		expect(key.status).toBe(201);

		const setPlan = (bearer: string) =>
			fetch(`${base}/api/admin/users/plan`, {
				method: "POST",
				headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
				body: JSON.stringify({ email, plan: "pro" }),
			});
		expect((await setPlan(adminToken)).status).toBe(200);
		expect((await setPlan(`${adminToken}0`)).status).toBe(401);
		// The token went to wrangler in a file, not on its command line, where any local user could read it.
		expect(existsSync(SECRETS_FILE)).toBe(true);
	});

	it("keeps its state in STATE_DIR and calls nothing outside the machine at start", ({ expect }) => {
		expect(readdirSync(stateDir)).toContain("v3");
		expect(output).toContain(`Ready on ${base}`);
		expect(output).not.toMatch(/Request\.cf|ENOTFOUND/);
	});

	it("stops on SIGTERM, taking the admin token's file with it", async ({ expect }) => {
		start.kill("SIGTERM");
		// wrangler ends as a process stopped by SIGTERM conventionally does (128 + 15), and npm start with it.
		expect(await exited).toBe(143);
		expect(existsSync(SECRETS_FILE)).toBe(false);
		expect(await fetch(`${base}/`).then((res) => res.status, () => "refused")).toBe("refused");
	}, 30_000);
});
