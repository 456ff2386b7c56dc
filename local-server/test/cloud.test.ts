// Cloud owner mode (DESIGN.md 5.6): `svc-local login <api_url>`, the bearer
// checked against {api_url}/api/auth/me (cached briefly) and required to be
// the desktop owner. The svc API Worker is built elsewhere in this
// repository; here a tiny real node:http server stands in for it, answering
// /api/auth/me and /api/auth/login with the shapes of DESIGN.md 5.1.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { main } from "../src/cli.js";
import { bootstrap, exchange, mode, newDevice, ownerCall, request, startTestServer, tempDir, wsTicket, type TestServer } from "./helpers.js";

const USERS: Record<string, { id: string; email: string }> = {
	"tok-owner": { id: "u-1", email: "owner@example.com" },
	"tok-owner-phone": { id: "u-1", email: "owner@example.com" }, // the owner's session on another device
	"tok-other": { id: "u-2", email: "other@example.com" },
};

let api: http.Server;
let apiUrl: string;
let meCalls = 0;

beforeEach(async () => {
	meCalls = 0;
	api = http.createServer((req, res) => {
		const json = (status: number, body: unknown) => {
			res.writeHead(status, { "content-type": "application/json" });
			res.end(JSON.stringify(body));
		};
		if (req.url === "/api/auth/me") {
			meCalls++;
			const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "";
			const user = USERS[token];
			return user ? json(200, { user: { ...user, plan: "free", trial_ends_at: "2030-01-01T00:00:00Z", access: true } }) : json(401, { error: "unauthorized" });
		}
		if (req.url === "/api/auth/login" && req.method === "POST") {
			let body = "";
			req.on("data", (c) => (body += c));
			req.on("end", () => {
				const { email, password } = JSON.parse(body);
				if (email === "owner@example.com" && password === "correct horse") return json(200, { token: "tok-owner", user: USERS["tok-owner"] });
				json(401, { error: "wrong email or password" });
			});
			return;
		}
		json(404, { error: "not found" });
	});
	await new Promise<void>((r) => api.listen(0, "127.0.0.1", () => r()));
	apiUrl = `http://127.0.0.1:${(api.address() as any).port}`;
});

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
	while (cleanups.length) await cleanups.pop()!();
	await new Promise((r) => api.close(r));
});

async function run(argv: string[], env: NodeJS.ProcessEnv) {
	const stdout = new PassThrough();
	const stderr = new PassThrough();
	let out = "";
	let err = "";
	stdout.on("data", (c) => (out += c));
	stderr.on("data", (c) => (err += c));
	const code = await main(argv, { env, stdout, stderr, stdin: new PassThrough() });
	return { code, out, err };
}

function withBearer(t: TestServer, token: string) {
	return { ...t, token };
}

describe("svc-local login", () => {
	it("signs in with email and password and keeps the session in a 0600 file", async () => {
		const home = path.join(tempDir(), "home");
		const wrong = await run(["login", apiUrl, "--email", "owner@example.com"], { SVC_HOME: home, SVC_PASSWORD: "nope" });
		expect(wrong.code).toBe(1);
		expect(wrong.err).toMatch(/sign-in failed: 401 wrong email or password/);

		const ok = await run(["login", `${apiUrl}/`, "--email", "owner@example.com"], { SVC_HOME: home, SVC_PASSWORD: "correct horse" });
		expect(ok.code).toBe(0);
		expect(ok.out).toMatch(/signed in as owner@example.com/);
		const file = path.join(home, "cloud-session.json");
		expect(mode(file)).toBe(0o600);
		expect(mode(home)).toBe(0o700);
		expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({ apiUrl, token: "tok-owner", user: { id: "u-1", email: "owner@example.com" } });

		const bad = await run(["login", apiUrl, "--token", "tok-nobody"], { SVC_HOME: home });
		expect(bad.code).toBe(1);
		expect(bad.err).toMatch(/not valid/);
		expect((await run(["login", "ftp://x"], { SVC_HOME: home })).code).toBe(1);
	});
});

describe("cloud owner session", () => {
	it("accepts only the desktop owner's sessions, caches /api/auth/me briefly, and requires them from devices", async () => {
		const home = path.join(tempDir(), "home");
		expect((await run(["login", apiUrl, "--token", "tok-owner"], { SVC_HOME: home })).code).toBe(0);
		const t = await startTestServer({ stateDir: home });
		cleanups.push(() => t.close());
		expect(t.server.owner.mode).toBe("cloud");
		expect(t.server.owner.mintedToken).toBeNull();
		expect(fs.existsSync(path.join(home, "owner-token"))).toBe(false);
		const owner = withBearer(t, "tok-owner");

		meCalls = 0;
		const b = await bootstrap(owner);
		expect((await ownerCall(owner, "GET", "/api/pairing/devices")).status).toBe(200);
		expect(meCalls).toBe(1); // cached
		const other = await ownerCall(withBearer(t, "tok-other"), "POST", "/api/pairing/bootstrap");
		expect(other.status).toBe(401);
		expect(other.json.error).toMatch(/another user/);
		expect((await ownerCall(withBearer(t, "tok-garbage"), "GET", "/api/pairing/devices")).status).toBe(401);
		t.clock.advance(31_000);
		expect((await ownerCall(owner, "GET", "/api/pairing/devices")).status).toBe(200);
		expect(meCalls).toBe(4); // the cache entry expired

		// Devices carry a session of the same owner on exchange and ws-ticket.
		expect((await exchange(t, { secret: b.secret })).status).toBe(401);
		expect((await exchange(t, { secret: b.secret }, { headers: { authorization: "Bearer tok-other" } })).status).toBe(401);
		const ex = await exchange(t, { secret: b.secret, deviceId: "phone" }, { headers: { authorization: "Bearer tok-owner-phone" } });
		expect(ex.status).toBe(201);
		expect((await wsTicket(t, ex.json.credential)).status).toBe(401);
		expect((await wsTicket(t, ex.json.credential, { headers: { authorization: "Bearer tok-other" } })).status).toBe(401);
		expect((await wsTicket(t, ex.json.credential, { headers: { authorization: "Bearer tok-owner-phone" } })).status).toBe(200);

		// The real device client with a session token.
		const device = newDevice(path.join(tempDir(), "dev"), "Cloud Laptop", { sessionToken: "tok-owner-phone" });
		cleanups.push(() => device.stop());
		await device.pair((await bootstrap(owner)).payload);
		await device.connect();
		const list = await ownerCall(owner, "GET", "/api/pairing/devices");
		expect(list.json.devices.map((d: any) => [d.name, d.state])).toContainEqual(["Cloud Laptop", "Online"]);
	});

	it("answers 503 when the svc API cannot be reached", async () => {
		const home = path.join(tempDir(), "home");
		expect((await run(["login", apiUrl, "--token", "tok-owner"], { SVC_HOME: home })).code).toBe(0);
		const t = await startTestServer({ stateDir: home });
		cleanups.push(() => t.close());
		await new Promise((r) => api.close(r));
		api = http.createServer(); // closed again by afterEach
		const r = await ownerCall(withBearer(t, "tok-owner"), "GET", "/api/pairing/devices");
		expect(r.status).toBe(503);
		expect(r.json.error).toMatch(/cannot check the owner session/);
	});

	it("credentials are tied to the owner: local-mode devices do not work under a cloud owner, and come back after logout", async () => {
		const home = path.join(tempDir(), "home");
		const local = await startTestServer({ stateDir: home });
		const b = await bootstrap(local);
		const ex = await exchange(local, { secret: b.secret, deviceId: "local-phone" });
		await local.close();

		expect((await run(["login", apiUrl, "--token", "tok-owner"], { SVC_HOME: home })).code).toBe(0);
		const cloud = await startTestServer({ stateDir: home });
		expect((await ownerCall(withBearer(cloud, "tok-owner"), "GET", "/api/pairing/devices")).json.devices).toEqual([]);
		expect((await wsTicket(cloud, ex.json.credential, { headers: { authorization: "Bearer tok-owner" } })).status).toBe(401);
		expect((await ownerCall(withBearer(cloud, "tok-owner"), "DELETE", "/api/pairing/devices/local-phone")).status).toBe(404);
		expect((await request(cloud.server.port, "/api/pairing/devices", { headers: { authorization: `Bearer ${local.token}` } })).status).toBe(401);
		await cloud.close();

		expect((await run(["logout"], { SVC_HOME: home })).code).toBe(0);
		const back = await startTestServer({ stateDir: home });
		cleanups.push(() => back.close());
		expect(back.server.owner.mode).toBe("local");
		expect((await wsTicket(back, ex.json.credential)).status).toBe(200);
	});
});
