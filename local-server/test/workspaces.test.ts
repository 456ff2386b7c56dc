// Workspaces over real HTTP: POST/GET/DELETE /api/workspaces as the owner,
// local and SSH locations, what a registration refuses (and that a refusal
// changes nothing), the 100-workspace limit, and workspaces.json (0600,
// atomic, read again on the next start).
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { WORKSPACES_MAX, WORKSPACE_PATH_MAX } from "../src/workspaces.js";
import { closedAfterEachTest, mode, ownerCall, request, startTestServer, tempDir } from "./helpers.js";

const { server, cleanups } = closedAfterEachTest();

function listing(t: Awaited<ReturnType<typeof server>>) {
	return ownerCall(t, "GET", "/api/workspaces");
}

describe("workspaces", () => {
	it("registers, lists and removes workspaces; local ones by their real path, SSH ones as given", async () => {
		const t = await server();
		const dir = tempDir("svc-ws-");
		fs.mkdirSync(path.join(dir, "shop"));
		fs.symlinkSync(path.join(dir, "shop"), path.join(dir, "link"));

		const added = await ownerCall(t, "POST", "/api/workspaces", { path: path.join(dir, "link") });
		expect(added.status).toBe(201);
		expect(added.json).toEqual({ id: expect.stringMatching(/^[0-9a-f]{8}$/), path: fs.realpathSync(path.join(dir, "shop")), kind: "local", addedAt: "2026-06-01T12:00:00.000Z" });
		// The same folder again, by another path to it: the same workspace.
		const again = await ownerCall(t, "POST", "/api/workspaces", { path: path.join(dir, "shop", ".") });
		expect(again.status).toBe(200);
		expect(again.json).toEqual(added.json);

		const ssh = await ownerCall(t, "POST", "/api/workspaces", { path: "ssh://build@example.com/srv/app" });
		const scp = await ownerCall(t, "POST", "/api/workspaces", { path: "ana@devbox:code/shop" });
		expect([ssh.status, scp.status]).toEqual([201, 201]);
		expect(ssh.json).toMatchObject({ path: "ssh://build@example.com/srv/app", kind: "ssh" });
		expect(scp.json).toMatchObject({ path: "ana@devbox:code/shop", kind: "ssh" });

		expect((await listing(t)).json).toEqual({ workspaces: [added.json, ssh.json, scp.json] });
		const file = path.join(t.home, "workspaces.json");
		expect(mode(file)).toBe(0o600);
		expect(fs.readdirSync(t.home).filter((f) => f.includes("workspaces"))).toEqual(["workspaces.json"]); // no temporary file left

		expect((await ownerCall(t, "DELETE", `/api/workspaces/${ssh.json.id}`)).json).toEqual({ ok: true });
		expect((await listing(t)).json.workspaces.map((w: any) => w.id)).toEqual([added.json.id, scp.json.id]);

		// The next start reads them back.
		await t.close();
		const next = await startTestServer({ stateDir: t.home, env: { SVC_OWNER_TOKEN: "next-owner-token-0123456789" } });
		cleanups.push(() => next.close());
		expect((await listing(next)).json.workspaces).toEqual([added.json, scp.json]);
	});

	it("refuses what is not a workspace with a 400 that says why, and changes nothing", async () => {
		const t = await server();
		const dir = tempDir("svc-ws-");
		const file = path.join(dir, "notes.txt");
		fs.writeFileSync(file, "x");
		const kept = await ownerCall(t, "POST", "/api/workspaces", { path: dir });
		const before = fs.readFileSync(path.join(t.home, "workspaces.json"), "utf8");

		const cases: [unknown, RegExp][] = [
			[{ path: path.join(dir, "missing") }, /missing does not exist/],
			[{ path: file }, /notes\.txt is not a directory/],
			[{ path: "relative/dir" }, /path must be absolute/],
			[{ path: "/" }, /\/ is the root of the file system/],
			[{ path: "ssh://" }, /names no host/],
			[{ path: "ssh://ana@/srv/app" }, /names no host/],
			[{ path: "-oProxyCommand=touch_pwned@host:code" }, /starts with "-", which ssh would read as an option/],
			[{ path: "ssh://-oProxyCommand=x@host/srv" }, /starts with "-"/],
			[{ path: "ssh://ana@-oProxyCommand=x/srv" }, /starts with "-"/],
			[{ path: "" }, /path must be a non-empty string/],
			[{ path: 42 }, /path must be a non-empty string/],
			[{}, /path must be a non-empty string/],
			[[dir], /request body must be a JSON object/],
			[{ path: `${dir}\n` }, /control characters/],
			[{ path: `/${"a".repeat(WORKSPACE_PATH_MAX)}` }, new RegExp(`at most ${WORKSPACE_PATH_MAX} characters`)],
		];
		for (const [body, message] of cases) {
			const r = await ownerCall(t, "POST", "/api/workspaces", body);
			expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400);
			expect(r.json.error).toMatch(message);
		}
		// At the length limit the path is taken as a path (and refused only because it does not exist).
		const longest = `/${"a".repeat(WORKSPACE_PATH_MAX - 1)}`;
		expect((await ownerCall(t, "POST", "/api/workspaces", { path: longest })).json.error).toMatch(/does not exist/);
		expect((await request(t.server.port, "/api/workspaces", { method: "POST", body: "{not json" })).status).toBe(401);
		const malformed = await request(t.server.port, "/api/workspaces", { method: "POST", headers: { authorization: `Bearer ${t.token}` }, body: "{not json" });
		expect(malformed.status).toBe(400);

		for (const [id, status] of [
			["0123abcd", 404],
			["nope", 400],
			["%zz", 400],
			// An id in capitals is refused, not looked up (the kept id in capitals would be itself
			// when its eight hex digits hold no letter).
			["0123ABCD", 400],
		] as const) {
			const r = await ownerCall(t, "DELETE", `/api/workspaces/${id}`);
			expect(r.status, id).toBe(status);
		}
		expect((await request(t.server.port, `/api/workspaces/${kept.json.id}`, { method: "DELETE" })).status).toBe(401);
		expect((await request(t.server.port, "/api/workspaces")).status).toBe(401);
		expect((await ownerCall(t, "PUT", "/api/workspaces")).headers.allow).toBe("GET, POST");

		expect(fs.readFileSync(path.join(t.home, "workspaces.json"), "utf8")).toBe(before);
		expect((await listing(t)).json.workspaces).toEqual([kept.json]);
	});

	it(`keeps at most ${WORKSPACES_MAX} workspaces`, async () => {
		const t = await server();
		const root = tempDir("svc-ws-many-");
		for (let i = 0; i < WORKSPACES_MAX + 1; i++) fs.mkdirSync(path.join(root, `w${i}`));
		for (let i = 0; i < WORKSPACES_MAX; i++) {
			const r = await ownerCall(t, "POST", "/api/workspaces", { path: path.join(root, `w${i}`) });
			expect(r.status).toBe(201);
		}
		const past = await ownerCall(t, "POST", "/api/workspaces", { path: path.join(root, `w${WORKSPACES_MAX}`) });
		expect(past.status).toBe(409);
		expect(past.json.error).toMatch(/at most 100 workspaces/);
		// One already registered is still answered.
		expect((await ownerCall(t, "POST", "/api/workspaces", { path: path.join(root, "w0") })).status).toBe(200);
		expect((await listing(t)).json.workspaces).toHaveLength(WORKSPACES_MAX);
	});

	it("refuses an ssh:// location with a password, never echoing it, and drops one saved by an earlier version", async () => {
		const lines: string[] = [];
		const t = await server({ log: (l) => lines.push(l) });
		for (const location of ["ssh://build:hunter2@example.com/srv/app", "ssh://build:p%40ss@w0rd@example.com:2222/srv/app"]) {
			const r = await ownerCall(t, "POST", "/api/workspaces", { path: location });
			expect(r.status).toBe(400);
			expect(r.json.error).toMatch(/^ssh:\/\/build@example\.com(:2222)?\/srv\/app was given with a password, which svc-local does not keep: sign in to the host with an SSH key or agent/);
			expect(r.text).not.toMatch(/hunter2|w0rd|p%40ss/);
		}
		expect((await listing(t)).json.workspaces).toEqual([]);
		expect(fs.existsSync(path.join(t.home, "workspaces.json"))).toBe(false);
		// Without a password, and a port, it is as before.
		expect((await ownerCall(t, "POST", "/api/workspaces", { path: "ssh://build@example.com:2222/srv/app" })).status).toBe(201);
		expect(lines.join("\n")).not.toMatch(/hunter2|w0rd/);
		await t.close();

		const home = path.join(tempDir(), "home");
		fs.mkdirSync(home, { mode: 0o700 });
		const saved = { id: "0a1b2c3d", path: "ssh://build:hunter2@example.com/srv/app", kind: "ssh", addedAt: "2026-05-01T00:00:00.000Z" };
		fs.writeFileSync(path.join(home, "workspaces.json"), JSON.stringify({ version: 1, workspaces: [saved] }), { mode: 0o600 });
		const next = await server({ stateDir: home });
		expect((await listing(next)).json.workspaces).toEqual([{ ...saved, path: "ssh://build@example.com/srv/app" }]);
		expect(fs.readFileSync(path.join(home, "workspaces.json"), "utf8")).not.toContain("hunter2");
	});

	it("moves a damaged workspaces.json aside instead of overwriting it", async () => {
		const home = path.join(tempDir(), "home");
		fs.mkdirSync(home, { mode: 0o700 });
		fs.writeFileSync(path.join(home, "workspaces.json"), "{damaged", { mode: 0o600 });
		const t = await server({ stateDir: home });
		expect((await listing(t)).json.workspaces).toEqual([]);
		expect(fs.readdirSync(home).some((f) => /^workspaces\.json\.damaged-\d+$/.test(f))).toBe(true);
	});
});
