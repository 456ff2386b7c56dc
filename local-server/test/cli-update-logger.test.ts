// `svc-local update-logger`, the command `svc-local health` names for an
// outdated logger, as real processes: a real server runs npm against a local
// registry; the failures say why and exit 1, wrong use exits 2.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliProcesses, started } from "./cliProcesses.js";
import { tempDir, until } from "./helpers.js";
import { type LocalRegistry, startLocalRegistry } from "./localRegistry.js";

const { spawnCli, runCli } = cliProcesses();
let registry: LocalRegistry;
beforeAll(async () => {
	registry = await startLocalRegistry();
	registry.publish("1.0.0");
	registry.publish("1.2.0");
});
afterAll(() => registry?.close());

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
const installed = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, "node_modules/@svcapp/logger/package.json"), "utf8")).version;

describe("svc-local update-logger", () => {
	it("updates the outdated logger that health names, with the command health prints; says why when it cannot", async () => {
		const root = fs.realpathSync(tempDir("svc-cli-update-"));
		const files: Record<string, string> = {
			"app/package.json": json({ name: "app", version: "1.0.0", private: true, dependencies: { "@svcapp/logger": "^1.0.0" } }),
			"app/node_modules/@svcapp/logger/package.json": json({ name: "@svcapp/logger", version: "1.0.0" }),
			// npm cannot install it: a dependency the registry does not have.
			"broken/package.json": json({ name: "broken", version: "1.0.0", private: true, dependencies: { "@svcapp/logger": "^1.0.0", "no-such-package-svc": "1.0.0" } }),
			"plain/package.json": json({ name: "plain", version: "1.0.0" }),
		};
		for (const [rel, text] of Object.entries(files)) {
			fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
			fs.writeFileSync(path.join(root, rel), text);
		}
		// npm's cache in a folder of this test, not the user's.
		const env = { SVC_HOME: path.join(tempDir(), "desk"), SVC_NPM_REGISTRY: registry.url, npm_config_cache: path.join(tempDir(), "npm-cache") };
		const server = spawnCli([], { ...env, SVC_PORT: "0" });
		await until(() => started(server.out.stdout), "the server to start");
		const id = /^workspace ([0-9a-f]{8})/.exec((await runCli(["workspace", "add", root], env)).stdout)![1];

		const before = await runCli(["health", id], env);
		expect(before.code).toBe(4);
		expect(before.stdout).toContain("warning: @svcapp/logger 1.0.0 is installed; 1.2.0 is the latest.");
		expect(before.stdout).toContain(`      -> Update it with the Update button or \`npm install @svcapp/logger@latest\` in app.\n      -> or: svc-local update-logger ${id} app\n`);

		const update = await runCli(["update-logger", id, "app"], env);
		expect(update.code, update.stderr).toBe(0);
		expect(update.stdout).toMatch(new RegExp(`^updating @svcapp/logger in app of ${root}\\.\\.\\.\\nupdated with npm install @svcapp/logger@latest \\(npm, \\d+\\.\\d s\\); svc-local health ${id} shows the new scan\\n$`));
		expect(installed(path.join(root, "app"))).toBe("1.2.0");
		// The server forgot its scan: health, not forced, sees the update.
		const after = await runCli(["health", id], env);
		expect(after.stdout).toContain("app (app)  npm  logger 1.2.0, latest 1.2.0");
		expect(after.stdout).not.toContain("svc-local update-logger");

		// By the workspace's folder too; npm fails: exit 1 with why and the end of its output.
		const failed = await runCli(["update-logger", root, "broken"], env);
		expect(failed.code).toBe(1);
		expect(failed.stderr).toMatch(/^svc-local: npm install @svcapp\/logger@latest failed with exit code \d+ after \d+\.\d s; its output ends:\n/);
		expect(failed.stderr).toContain("no-such-package-svc");

		// Refused by the server, as the page would be: the reason and exit 1.
		const notListed = await runCli(["update-logger", id, "plain"], env);
		expect(notListed).toMatchObject({ code: 1, stderr: 'svc-local: the package.json of "plain" does not list @svcapp/logger (dependencies, devDependencies or optionalDependencies) (HTTP 400)\n' });
		const outside = await runCli(["update-logger", id, "../elsewhere"], env);
		expect(outside).toMatchObject({ code: 1, stderr: 'svc-local: packageDir "../elsewhere" is outside the workspace (HTTP 400)\n' });
		const unknown = await runCli(["update-logger", "0000aaaa", "app"], env);
		expect(unknown.code).toBe(1);
		expect(unknown.stderr).toContain("no workspace is registered with id or folder 0000aaaa");
		// Wrong use of the command line: exit 2.
		const missing = await runCli(["update-logger", id], env);
		expect(missing).toMatchObject({ code: 2, stderr: "svc-local: missing argument <package> for svc-local update-logger\nRun `svc-local update-logger --help` for usage.\n" });
		const help = await runCli(["update-logger", "--help"], env);
		expect(help.stdout).toMatch(/^Usage: svc-local update-logger <workspace> <package> \[options\]/);
		expect((await runCli(["--help"], env)).stdout).toContain("svc-local update-logger <workspace> <package>");

		server.child.kill("SIGTERM");
		expect(await server.exited).toBe(0);
	}, 120_000);
});
