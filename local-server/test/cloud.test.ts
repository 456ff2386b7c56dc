// Cloud owner mode: `svc-local login <api_url>`, the bearer
// checked against {api_url}/api/auth/me (cached briefly) and required to be
// the desktop owner. The svc API is the repository's real Worker on the
// embedded local runtime, started once for this file by e2e/stack.ts (wrangler's
// test harness, the real wrangler.toml and D1 migrations); accounts and sessions are real
// (signed up and signed in through the API), one set per test with its own emails.
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startWorker } from "../../e2e/stack.js";
import { main } from "../src/cli.js";
import { readCloudSession, writeCloudSession } from "../src/owner.js";
import { bootstrap, exchange, mode, newDevice, ownerCall, request, startTestServer, tempDir, until, wsTicket, type TestServer } from "./helpers.js";

const PASSWORD = "correct horse battery";

let worker: Awaited<ReturnType<typeof startWorker>>;
let apiUrl: string;

beforeAll(async () => {
	worker = await startWorker();
	apiUrl = worker.url;
});
afterAll(() => worker?.close());

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
	while (cleanups.length) await cleanups.pop()!();
});

interface Session {
	token: string;
	user: { id: string; email: string };
}

async function auth(pathname: string, body: unknown): Promise<Session> {
	const res = await fetch(`${apiUrl}${pathname}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
	const json = await res.json();
	if (!res.ok) throw new Error(`${pathname}: ${res.status} ${JSON.stringify(json)}`);
	return json;
}

let accounts = 0;
/** A new account (201 {token, user}) with an email no other test uses. */
async function signUp(): Promise<Session> {
	const email = `cloud-${process.pid}-${Date.now()}-${accounts++}@example.com`;
	return auth("/api/auth/signup", { email, password: PASSWORD });
}

/** Another session of an existing account: a second sign-in. */
const signIn = (email: string) => auth("/api/auth/login", { email, password: PASSWORD });

/** POST /api/auth/logout: the token stops working. */
async function signOut(token: string) {
	const res = await fetch(`${apiUrl}/api/auth/logout`, { method: "POST", headers: { authorization: `Bearer ${token}` } });
	expect(res.status).toBe(204);
}

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
		const owner = await signUp();
		const home = path.join(tempDir(), "home");
		const wrong = await run(["login", apiUrl, "--email", owner.user.email], { SVC_HOME: home, SVC_PASSWORD: "wrong password" });
		expect(wrong.code).toBe(1);
		expect(wrong.err).toMatch(/sign-in failed: 401 wrong email or password/i);

		const ok = await run(["login", `${apiUrl}/`, "--email", owner.user.email], { SVC_HOME: home, SVC_PASSWORD: PASSWORD });
		expect(ok.code).toBe(0);
		expect(ok.out).toContain(`signed in as ${owner.user.email}`);
		const file = path.join(home, "cloud-session.json");
		expect(mode(file)).toBe(0o600);
		expect(mode(home)).toBe(0o700);
		const saved = JSON.parse(fs.readFileSync(file, "utf8"));
		expect(saved).toEqual({ apiUrl, token: expect.any(String), user: { id: owner.user.id, email: owner.user.email } });
		// The sign-in's own new session, a live one of this owner.
		expect(saved.token).not.toBe(owner.token);
		const me = await fetch(`${apiUrl}/api/auth/me`, { headers: { authorization: `Bearer ${saved.token}` } });
		expect(me.status).toBe(200);
		expect((await me.json()).user.id).toBe(owner.user.id);

		const bad = await run(["login", apiUrl, "--token", "svcs_nobody"], { SVC_HOME: home });
		expect(bad.code).toBe(1);
		expect(bad.err).toMatch(/not valid/);
		expect((await run(["login", "ftp://x"], { SVC_HOME: home })).code).toBe(1);

		// An address where nothing answers is named, with either way of signing in.
		const closed = await new Promise<number>((resolve) => {
			const s = net.createServer().listen(0, "127.0.0.1", () => {
				const { port } = s.address() as net.AddressInfo;
				s.close(() => resolve(port));
			});
		});
		for (const how of [["--email", owner.user.email], ["--token", owner.token]]) {
			const down = await run(["login", `http://127.0.0.1:${closed}`, ...how], { SVC_HOME: home, SVC_PASSWORD: PASSWORD });
			expect(down.code, how[0]).toBe(1);
			expect(down.err, how[0]).toMatch(new RegExp(`^svc-local: cannot reach http://127\\.0\\.0\\.1:${closed}: `));
		}
	});

	it("on a terminal, asks for the email and the password, and does not echo the password", async () => {
		const owner = await signUp();
		const home = path.join(tempDir(), "home");
		// A terminal as readline sees one: isTTY and setRawMode (echo off while raw).
		const rawModes: boolean[] = [];
		const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: (on: boolean) => rawModes.push(on) });
		const stdout = new PassThrough();
		let out = "";
		stdout.on("data", (c) => (out += c));
		const done = main(["login", apiUrl], { env: { SVC_HOME: home }, stdout, stderr: new PassThrough(), stdin });
		await until(() => out.includes("Email: "), "the email prompt");
		stdin.write(`${owner.user.email}\r`);
		await until(() => out.includes("Password: "), "the password prompt");
		stdin.write(`${PASSWORD}\r`);
		expect(await done).toBe(0);
		expect(out).toContain(owner.user.email); // typed and shown
		expect(out).not.toContain(PASSWORD); // typed and not shown
		expect(out).toContain(`signed in as ${owner.user.email}`);
		expect(rawModes).toContain(true);
		expect(rawModes.at(-1)).toBe(false); // the terminal is given back as it was
		expect(readCloudSession(home)?.user.id).toBe(owner.user.id);
	});

	it.for(["Email: ", "Password: "])("Ctrl-C at %s ends the command as an interrupt does (130), signed in to nothing", async (question, { expect }) => {
		const home = path.join(tempDir(), "home");
		const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => {} });
		const [stdout, stderr] = [new PassThrough(), new PassThrough()];
		let [out, err] = ["", ""];
		stdout.on("data", (c) => (out += c));
		stderr.on("data", (c) => (err += c));
		const done = main(["login", apiUrl], { env: { SVC_HOME: home }, stdout, stderr, stdin });
		await until(() => out.includes("Email: "), "the email prompt");
		if (question === "Password: ") {
			stdin.write("someone@example.com\r");
			await until(() => out.includes("Password: "), "the password prompt");
		}
		stdin.write("\x03"); // Ctrl-C, as a terminal in raw mode passes it
		expect(await done).toBe(130);
		expect(err).toBe("");
		expect(readCloudSession(home)).toBeNull();
	});
});

describe("cloud owner session", () => {
	it("accepts only the desktop owner's sessions, checked at every request, and requires them from devices", async () => {
		const owner = await signUp();
		const phone = await signIn(owner.user.email); // the owner's session on another device
		const other = await signUp();
		const home = path.join(tempDir(), "home");
		expect((await run(["login", apiUrl, "--token", owner.token], { SVC_HOME: home })).code).toBe(0);
		// The server's own fetch, wrapped to count the /api/auth/me calls it makes to the Worker.
		let meCalls = 0;
		const countingFetch: typeof fetch = (input, init) => {
			if (String(input).endsWith("/api/auth/me")) meCalls++;
			return fetch(input, init);
		};
		const t = await startTestServer({ stateDir: home, fetch: countingFetch });
		cleanups.push(() => t.close());
		expect(t.server.owner.mode).toBe("cloud");
		expect(t.server.owner.mintedToken).toBeNull();
		expect(fs.existsSync(path.join(home, "owner-token"))).toBe(false);
		const asOwner = withBearer(t, owner.token);

		const b = await bootstrap(asOwner);
		expect((await ownerCall(asOwner, "GET", "/api/pairing/devices")).status).toBe(200);
		expect(meCalls).toBe(2); // one check per request
		const asOther = await ownerCall(withBearer(t, other.token), "POST", "/api/pairing/bootstrap");
		expect(asOther.status).toBe(401);
		expect(asOther.json.error).toMatch(/another user/);
		const garbage = withBearer(t, "svcs_garbage");
		expect((await ownerCall(garbage, "GET", "/api/pairing/devices")).status).toBe(401);
		expect((await ownerCall(garbage, "GET", "/api/pairing/devices")).status).toBe(401);
		expect(meCalls).toBe(4); // a refused token is remembered for a moment

		// A sign-out at the API counts at the next request.
		const laptop = await signIn(owner.user.email);
		expect((await ownerCall(withBearer(t, laptop.token), "GET", "/api/pairing/devices")).status).toBe(200);
		await signOut(laptop.token);
		const revoked = await ownerCall(withBearer(t, laptop.token), "GET", "/api/pairing/devices");
		expect(revoked.status).toBe(401);
		expect(revoked.json.error).toMatch(/not valid/);

		// The owner's commands send the session of svc-local login: once it is signed out, they say what to do.
		expect((await run(["devices"], { SVC_HOME: home })).code).toBe(0);
		await signOut(owner.token);
		const signedOut = await run(["devices"], { SVC_HOME: home });
		expect(signedOut.code).toBe(1);
		expect(signedOut.err).toBe(
			`svc-local: owner session is not valid (HTTP 401): the svc session saved by svc-local login (${owner.user.email}) was refused; it was signed out or has expired, or svc-local runs for another account: sign in again with svc-local login ${apiUrl}, and restart svc-local if the account changed\n`,
		);
		const again = await signIn(owner.user.email);
		expect((await run(["login", apiUrl, "--token", again.token], { SVC_HOME: home })).code).toBe(0);
		expect((await run(["devices"], { SVC_HOME: home })).code).toBe(0);
		const asOwnerAgain = withBearer(t, again.token);

		// Devices carry a session of the same owner on exchange and ws-ticket.
		expect((await exchange(t, { secret: b.secret })).status).toBe(401);
		expect((await exchange(t, { secret: b.secret }, { headers: { authorization: `Bearer ${other.token}` } })).status).toBe(401);
		const ex = await exchange(t, { secret: b.secret, deviceId: "phone" }, { headers: { authorization: `Bearer ${phone.token}` } });
		expect(ex.status).toBe(201);
		expect((await wsTicket(t, ex.json.credential)).status).toBe(401);
		expect((await wsTicket(t, ex.json.credential, { headers: { authorization: `Bearer ${other.token}` } })).status).toBe(401);
		expect((await wsTicket(t, ex.json.credential, { headers: { authorization: `Bearer ${phone.token}` } })).status).toBe(200);

		// The real device client with a session token.
		const device = newDevice(path.join(tempDir(), "dev"), "Cloud Laptop", { sessionToken: phone.token });
		cleanups.push(() => device.stop());
		await device.pair((await bootstrap(asOwnerAgain)).payload);
		await device.connect();
		const list = await ownerCall(asOwnerAgain, "GET", "/api/pairing/devices");
		expect(list.json.devices.map((d: any) => [d.name, d.state])).toContainEqual(["Cloud Laptop", "Online"]);
	});

	it("gives setup health to an owner with Pro or an active trial, and answers 402 once the trial has ended", async () => {
		const owner = await signUp(); // a new account is on a trial
		const home = path.join(tempDir(), "home");
		expect((await run(["login", apiUrl, "--token", owner.token], { SVC_HOME: home })).code).toBe(0);
		const t = await startTestServer({ stateDir: home, env: { SVC_NPM_REGISTRY: "http://127.0.0.1:9/" } });
		cleanups.push(() => t.close());
		const asOwner = withBearer(t, owner.token);
		const folder = tempDir("svc-cloud-ws-");
		fs.writeFileSync(path.join(folder, "package.json"), JSON.stringify({ name: "app" }));
		const workspace = (await ownerCall(asOwner, "POST", "/api/workspaces", { path: folder })).json;
		const scan = () => ownerCall(asOwner, "GET", `/api/workspace/setup-health?workspaceId=${workspace.id}&force=1`);

		expect((await scan()).json).toMatchObject({ access: "trial", packages: [{ name: "app" }] });

		// The account's plan, changed where the Worker keeps it.
		type Db = { prepare(sql: string): { bind(...values: unknown[]): { run(): Promise<unknown> } } };
		const { DB } = (await worker.server.getWorker().getEnv()) as { DB: Db };
		// A plan change at the API counts at the next request.
		await DB.prepare("UPDATE users SET plan = 'pro' WHERE id = ?").bind(owner.user.id).run();
		expect((await scan()).json.access).toBe("pro");

		await DB.prepare("UPDATE users SET plan = 'free', trial_ends_at = ? WHERE id = ?").bind(Date.now() - 1000, owner.user.id).run();
		const refused = await scan();
		expect(refused.status).toBe(402);
		// Worded for an account whose trial ended and for one that never had a trial: the answer does not say which.
		expect(refused.json.error).toBe("setup health needs svc Pro or an active trial, and this account has neither: upgrade to Pro to use it");
		const update = await ownerCall(asOwner, "POST", "/api/workspace/setup-health/update-logger", { workspaceId: workspace.id, packageDir: "." });
		expect(update.status).toBe(402);
		// Workspaces themselves are the owner's whatever the plan.
		expect((await ownerCall(asOwner, "GET", "/api/workspaces")).json.workspaces).toEqual([workspace]);
	});

	it("answers 503 when the svc API cannot be reached", async () => {
		const owner = await signUp();
		const home = path.join(tempDir(), "home");
		expect((await run(["login", apiUrl, "--token", owner.token], { SVC_HOME: home })).code).toBe(0);
		// The Worker stays up for the other tests: the session now names an API on a port that
		// was free a moment ago and has no listener.
		const port = await new Promise<number>((resolve) => {
			const probe = net.createServer().listen(0, "127.0.0.1", () => {
				const { port } = probe.address() as net.AddressInfo;
				probe.close(() => resolve(port));
			});
		});
		writeCloudSession(home, { ...readCloudSession(home)!, apiUrl: `http://127.0.0.1:${port}` });
		const t = await startTestServer({ stateDir: home });
		cleanups.push(() => t.close());
		const r = await ownerCall(withBearer(t, owner.token), "GET", "/api/pairing/devices");
		expect(r.status).toBe(503);
		expect(r.json.error).toMatch(/cannot check the owner session/);
	});

	it("credentials are tied to the owner: local-mode devices do not work under a cloud owner, and come back after logout", async () => {
		const owner = await signUp();
		const home = path.join(tempDir(), "home");
		const local = await startTestServer({ stateDir: home });
		const b = await bootstrap(local);
		const ex = await exchange(local, { secret: b.secret, deviceId: "local-phone" });
		await local.close();

		expect((await run(["login", apiUrl, "--token", owner.token], { SVC_HOME: home })).code).toBe(0);
		const cloud = await startTestServer({ stateDir: home });
		expect((await ownerCall(withBearer(cloud, owner.token), "GET", "/api/pairing/devices")).json.devices).toEqual([]);
		expect((await wsTicket(cloud, ex.json.credential, { headers: { authorization: `Bearer ${owner.token}` } })).status).toBe(401);
		expect((await ownerCall(withBearer(cloud, owner.token), "DELETE", "/api/pairing/devices/local-phone")).status).toBe(404);
		expect((await request(cloud.server.port, "/api/pairing/devices", { headers: { authorization: `Bearer ${local.token}` } })).status).toBe(401);
		await cloud.close();

		expect((await run(["logout"], { SVC_HOME: home })).code).toBe(0);
		const back = await startTestServer({ stateDir: home });
		cleanups.push(() => back.close());
		expect(back.server.owner.mode).toBe("local");
		expect((await wsTicket(back, ex.json.credential)).status).toBe(200);
	});
});
