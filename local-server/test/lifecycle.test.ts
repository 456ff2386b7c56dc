// The credential lifecycle (bootstrap, exchange, ticket, revoke) and device presence, against a
// real listening server, driven by raw HTTP, raw WebSockets and the real device client. What is
// kept on disk: state-on-disk.test.ts.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startServer } from "../src/index.js";
import {
	bootstrap,
	closed,
	closedAfterEachTest,
	connected,
	exchange,
	listDevices,
	nextMessage,
	openWs,
	ownerCall,
	paired,
	request,
	until,
	wsTicket,
} from "./helpers.js";

const { cleanups, server } = closedAfterEachTest();

describe("credential lifecycle", () => {
	it("bootstrap -> exchange -> ticket -> live connection -> revoke, with every reuse refused", async () => {
		const t = await server();

		// Bootstrap: owner only; {secret, expiresAt, payload}; 120 s; never cached.
		expect((await request(t.server.port, "/api/pairing/bootstrap", { method: "POST" })).status).toBe(401);
		expect((await request(t.server.port, "/api/pairing/bootstrap", { method: "POST", headers: { authorization: "Bearer wrong" } })).status).toBe(401);
		const boot = await ownerCall(t, "POST", "/api/pairing/bootstrap");
		expect(boot.status).toBe(200);
		expect(boot.headers["cache-control"]).toBe("no-store");
		expect(boot.headers.pragma).toBe("no-cache");
		const { secret, expiresAt, payload } = boot.json;
		t.secrets.add(secret);
		expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/); // 256 bits, base64url
		expect(Date.parse(expiresAt)).toBe(t.clock.now() + 120_000);
		expect(payload).toEqual({ v: 3, name: "Test Desk", baseUrl: t.base, baseUrls: [t.base], pairToken: secret });

		// Exchange: credential and device metadata, 201, never cached.
		const ex = await exchange(t, { secret, deviceId: "phone-1", name: "Pixel", platform: "android" });
		expect(ex.status).toBe(201);
		expect(ex.headers["cache-control"]).toBe("no-store");
		expect(ex.headers.pragma).toBe("no-cache");
		expect(ex.json).toMatchObject({
			deviceId: "phone-1",
			device: { deviceId: "phone-1", name: "Pixel", platform: "Android", state: "Offline", remoteAddress: "127.0.0.1", pairedAt: new Date(t.clock.now()).toISOString() },
		});
		const credential: string = ex.json.credential;
		expect(credential).toMatch(/^[A-Za-z0-9_-]{43}$/);

		// The bootstrap is one-time.
		const again = await exchange(t, { secret, deviceId: "phone-2" });
		expect(again.status).toBe(401);
		expect(again.json.error).toMatch(/invalid, expired or already used/);

		// Ticket: needs the device credential header; 60 s.
		expect((await request(t.server.port, "/api/pairing/ws-ticket", { method: "POST" })).status).toBe(401);
		expect((await wsTicket(t, "not-a-credential")).status).toBe(401);
		const ticket = await wsTicket(t, credential);
		expect(ticket.status).toBe(200);
		expect(ticket.headers["cache-control"]).toBe("no-store");
		expect(Date.parse(ticket.json.expiresAt)).toBe(t.clock.now() + 60_000);

		// Upgrade with the ticket; hello; the device is Online with the live name.
		const { ws } = await openWs(t.server.port, `?ticket=${ticket.json.ticket}`);
		expect(ws).toBeDefined();
		cleanups.push(() => ws!.terminate());
		const welcome = nextMessage(ws!);
		ws!.send(JSON.stringify({ type: "hello", data: { name: "Pixel 8 (live)", platform: "Android" } }));
		expect(await welcome).toMatchObject({ type: "welcome", data: { deviceId: "phone-1", server: "Test Desk" } });
		const pong = nextMessage(ws!);
		ws!.send(JSON.stringify({ type: "ping", id: "p1" }));
		expect(await pong).toMatchObject({ type: "pong", id: "p1" });
		expect(await listDevices(t)).toEqual([
			expect.objectContaining({ deviceId: "phone-1", name: "Pixel 8 (live)", platform: "Android", state: "Online", remoteAddress: "127.0.0.1" }),
		]);

		// The ticket is single-use.
		const reuse = await openWs(t.server.port, `?ticket=${ticket.json.ticket}`);
		expect(reuse.status).toBe(401);

		// A ticket minted before the revocation, never used.
		const unused = await wsTicket(t, credential);
		expect(unused.status).toBe(200);

		// Revoke: the live socket closes at once; old credential and ticket are dead.
		const wsClosed = closed(ws!);
		const del = await ownerCall(t, "DELETE", "/api/pairing/devices/phone-1");
		expect(del.status).toBe(200);
		expect(del.json).toEqual({ ok: true });
		expect(await wsClosed).toEqual({ code: 4003, reason: "device revoked" });
		expect((await wsTicket(t, credential)).status).toBe(401);
		expect((await openWs(t.server.port, `?ticket=${unused.json.ticket}`)).status).toBe(401);
		expect(await listDevices(t)).toEqual([]);
		expect((await ownerCall(t, "DELETE", "/api/pairing/devices/phone-1")).status).toBe(404);

		// Only a new code brings it back.
		const back = await paired(t, { deviceId: "phone-1", name: "Pixel" });
		expect(back.credential).not.toBe(credential);
		expect((await wsTicket(t, back.credential)).status).toBe(200);
	});

	it("re-pairing a deviceId replaces its credential: the old one, its tickets and its live socket end", async () => {
		const t = await server();
		const first = await paired(t, { deviceId: "desk-1", name: "Laptop", platform: "Desktop" });
		const ws = await connected(t, first.credential, cleanups, { name: "Laptop", platform: "Desktop" });
		const oldTicket = await wsTicket(t, first.credential);
		t.clock.advance(5_000);

		const wsClosed = closed(ws);
		const second = await paired(t, { deviceId: "desk-1", name: "Laptop (again)" });
		expect(second.deviceId).toBe("desk-1");
		expect(second.credential).not.toBe(first.credential);
		expect(second.device.pairedAt).toBe(new Date(t.clock.now()).toISOString());
		expect((await wsClosed).code).toBe(4001);

		expect((await wsTicket(t, first.credential)).status).toBe(401);
		expect((await openWs(t.server.port, `?ticket=${oldTicket.json.ticket}`)).status).toBe(401);
		expect((await wsTicket(t, second.credential)).status).toBe(200);
		const list = await listDevices(t);
		expect(list).toHaveLength(1);
		expect(list[0]).toMatchObject({ deviceId: "desk-1", name: "Laptop (again)", platform: "Desktop" });
	});

	it("bootstrap is valid at 119.9 s and expired at 120 s (injectable clock)", async () => {
		const t = await server();
		const a = await bootstrap(t);
		t.clock.advance(119_900);
		expect((await exchange(t, { secret: a.secret })).status).toBe(201);

		const b = await bootstrap(t);
		t.clock.advance(120_000);
		const late = await exchange(t, { secret: b.secret });
		expect(late.status).toBe(401);
		expect(late.json).toEqual({ error: "pairing code is invalid, expired or already used" });
	});

	it("ticket is valid just before 60 s and expired at 60 s", async () => {
		const t = await server();
		const d = await paired(t);
		const a = await wsTicket(t, d.credential);
		t.clock.advance(59_999);
		const okWs = await openWs(t.server.port, `?ticket=${a.json.ticket}`);
		expect(okWs.ws).toBeDefined();
		okWs.ws!.terminate();

		const b = await wsTicket(t, d.credential);
		t.clock.advance(60_000);
		const late = await openWs(t.server.port, `?ticket=${b.json.ticket}`);
		expect(late.status).toBe(401);
		expect(JSON.parse(late.body!)).toEqual({ error: "ticket is invalid, expired or already used" });
		// Longer than any ticket: refused as an unknown one, not as a missing one; none at all is missing.
		const long = await openWs(t.server.port, `?ticket=${"t".repeat(513)}`);
		expect([long.status, JSON.parse(long.body!)]).toEqual([401, { error: "ticket is invalid, expired or already used" }]);
		const none = await openWs(t.server.port, "?ticket=");
		expect([none.status, JSON.parse(none.body!)]).toEqual([401, { error: "a ticket query parameter is required" }]);
	});

	it("deviceId: 200 characters accepted, 201 refused, absent generated, wrong types refused", async () => {
		const t = await server();
		const id200 = "d".repeat(200);
		const ok = await paired(t, { deviceId: id200 });
		expect(ok.deviceId).toBe(id200);
		const accents = "é".repeat(200);
		expect((await paired(t, { deviceId: accents })).deviceId).toBe(accents);

		const b = await bootstrap(t);
		const long = await exchange(t, { secret: b.secret, deviceId: "d".repeat(201) });
		expect(long.status).toBe(400);
		expect(long.json).toEqual({ error: "deviceId must be 1 to 200 characters" });
		for (const deviceId of ["", 42, ["x"], { id: 1 }, true]) {
			const r = await exchange(t, { secret: b.secret, deviceId });
			expect(r.status, JSON.stringify(deviceId)).toBe(400);
			expect(typeof r.json.error).toBe("string");
		}
		// The refused attempts did not consume the code.
		const generated = await exchange(t, { secret: b.secret });
		expect(generated.status).toBe(201);
		expect(generated.json.deviceId).toMatch(/^[0-9a-f-]{36}$/);

		// Revoke by a 200-character id through the path.
		expect((await ownerCall(t, "DELETE", `/api/pairing/devices/${id200}`)).status).toBe(200);
		expect((await ownerCall(t, "DELETE", `/api/pairing/devices/${"d".repeat(201)}`)).status).toBe(400);
	});

	it("platform: 64 characters taken (as Unknown platform), 65 refused; an emoji counts one", async () => {
		const t = await server();
		for (const platform of ["p".repeat(64), "\u{1f4f1}".repeat(64)]) expect((await paired(t, { platform })).device.platform).toBe("Unknown platform");
		expect((await paired(t, { platform: " android " })).device.platform).toBe("Android");
		const b = await bootstrap(t);
		for (const platform of ["p".repeat(65), "\u{1f4f1}".repeat(65)]) {
			const r = await exchange(t, { secret: b.secret, platform });
			expect([r.status, r.json]).toEqual([400, { error: "platform must be at most 64 characters" }]);
		}
	});

	it("every accepted deviceId can be revoked through the path; ids no URL can carry are refused", async () => {
		const t = await server({ exchangeThrottle: { perKey: 1000, global: 1000 } });
		for (const deviceId of ["a/b", "50%", "q?x=1#frag", " spaced ", "📱 phone", "ü\u2028x", "...", "./x", "%2e%2e", "%2F"]) {
			const d = await paired(t, { deviceId });
			expect(d.deviceId).toBe(deviceId);
			const del = await ownerCall(t, "DELETE", `/api/pairing/devices/${encodeURIComponent(deviceId)}`);
			expect(del.status, deviceId).toBe(200);
			expect((await wsTicket(t, d.credential)).status, deviceId).toBe(401);
		}
		// No URL can name these to revoke them: a lone surrogate has no UTF-8
		// form, and "." and ".." are dot segments that a URL path resolves away.
		const refused: [string, RegExp][] = [
			["\ud800", /deviceId must be valid Unicode/],
			["x\udfffy", /deviceId must be valid Unicode/],
			["📱".slice(0, 1), /deviceId must be valid Unicode/],
			[".", /deviceId must not be "\." or "\.\."/],
			["..", /deviceId must not be "\." or "\.\."/],
		];
		for (const [deviceId, message] of refused) {
			const b = await bootstrap(t);
			const r = await exchange(t, `{"secret":${JSON.stringify(b.secret)},"deviceId":${JSON.stringify(deviceId)}}`);
			expect(r.status, JSON.stringify(deviceId)).toBe(400);
			expect(r.json.error).toMatch(message);
		}
		expect(await listDevices(t)).toEqual([]);
	});

	it("deviceIds that name Object.prototype members pair, list, connect, persist and revoke like any other", async () => {
		const t = await server({ exchangeThrottle: { perKey: 1000, global: 1000 } });
		const ids = ["__proto__", "constructor", "toString", "hasOwnProperty"];
		const credentials = new Map<string, string>();
		for (const deviceId of ids) {
			const d = await paired(t, { deviceId });
			expect(d.deviceId).toBe(deviceId);
			expect(d.device.name, deviceId).toBe("Unnamed device");
			credentials.set(deviceId, d.credential);
			expect((await wsTicket(t, d.credential)).status, deviceId).toBe(200);
		}
		expect((await listDevices(t)).map((d) => d.deviceId).sort()).toEqual([...ids].sort());
		// A fresh id is not mistaken for a re-pairing of something inherited.
		expect((await paired(t, { deviceId: "valueOf", name: "Fresh" })).device.name).toBe("Fresh");

		// They are on disk: a restart keeps them.
		await t.server.close();
		const again = await startServer({ stateDir: t.home, port: 0, env: {}, log: () => {}, overlayHostname: async () => null });
		cleanups.push(() => again.close());
		for (const [deviceId, credential] of credentials) {
			const r = await request(again.port, "/api/pairing/ws-ticket", { method: "POST", headers: { "x-svc-device-credential": credential } });
			expect(r.status, deviceId).toBe(200);
		}
		const del = await request(again.port, `/api/pairing/devices/__proto__`, { method: "DELETE", headers: { authorization: `Bearer ${t.token}` } });
		expect(del.status).toBe(200);
		expect((await request(again.port, "/api/pairing/ws-ticket", { method: "POST", headers: { "x-svc-device-credential": credentials.get("__proto__")! } })).status).toBe(401);
		expect((await request(again.port, "/api/pairing/ws-ticket", { method: "POST", headers: { "x-svc-device-credential": credentials.get("constructor")! } })).status).toBe(200);
	});
});

describe("presence", () => {
	it("is persisted at most once per 60 s while a device is active", async () => {
		const t = await server();
		const d = await paired(t, { deviceId: "p", name: "P" });
		t.clock.advance(61_000);
		const ws = await connected(t, d.credential, cleanups, { name: "P live", platform: "iOS" });
		const storeFile = path.join(t.home, "pairing.json");
		const persisted = () => JSON.parse(fs.readFileSync(storeFile, "utf8")).devices.p;
		const writesAfterConnect = t.server.store.writes;
		const seenAtConnect = persisted().lastSeen;
		expect(seenAtConnect).toBe(new Date(t.clock.now()).toISOString());

		for (let i = 0; i < 10; i++) {
			t.clock.advance(5_000);
			const pong = nextMessage(ws);
			ws.send(JSON.stringify({ type: "ping", id: `x${i}` }));
			await pong;
		}
		expect(t.server.store.writes).toBe(writesAfterConnect); // 50 s of activity: no write
		expect(persisted().lastSeen).toBe(seenAtConnect);
		expect((await listDevices(t))[0].lastSeen).toBe(new Date(t.clock.now()).toISOString()); // the list shows live time

		t.clock.advance(10_000); // 60 s since the last write
		const pong = nextMessage(ws);
		ws.send(JSON.stringify({ type: "ping", id: "late" }));
		await pong;
		expect(t.server.store.writes).toBe(writesAfterConnect + 1);
		expect(persisted()).toMatchObject({ lastSeen: new Date(t.clock.now()).toISOString(), name: "P live", platform: "iOS" });

		// Offline: the list falls back to what was persisted or seen last.
		ws.close();
		await until(async () => (await listDevices(t))[0].state === "Offline", "device offline");
		expect((await listDevices(t))[0]).toMatchObject({ name: "P live", platform: "iOS", remoteAddress: "127.0.0.1" });
	});

	it("heartbeats drop a dead socket and keep a live one", async () => {
		const t = await server({ heartbeatMs: 100 });
		const d1 = await paired(t, { deviceId: "dead" });
		const d2 = await paired(t, { deviceId: "alive" });
		const dead = await openWs(t.server.port, `?ticket=${(await wsTicket(t, d1.credential)).json.ticket}`, { autoPong: false });
		const alive = await openWs(t.server.port, `?ticket=${(await wsTicket(t, d2.credential)).json.ticket}`);
		cleanups.push(() => dead.ws!.terminate(), () => alive.ws!.terminate());
		dead.ws!.send(JSON.stringify({ type: "hello", data: { name: "Dead" } }));
		alive.ws!.send(JSON.stringify({ type: "hello", data: { name: "Alive" } }));
		let pings = 0;
		alive.ws!.on("ping", () => pings++);
		await closed(dead.ws!);
		await until(() => pings >= 3, "three heartbeats on the live socket");
		expect(alive.ws!.readyState).toBe(alive.ws!.OPEN);
		const list = await listDevices(t);
		expect(list.find((x) => x.deviceId === "dead").state).toBe("Offline");
		expect(list.find((x) => x.deviceId === "alive").state).toBe("Online");
	});

	it("a socket that never says hello is closed; messages before hello are refused", async () => {
		const t = await server({ helloTimeoutMs: 300 });
		const d = await paired(t);
		const { ws } = await openWs(t.server.port, `?ticket=${(await wsTicket(t, d.credential)).json.ticket}`);
		const err = nextMessage(ws!);
		ws!.send(JSON.stringify({ type: "ping" }));
		expect(await err).toMatchObject({ type: "error", data: { message: "send hello first" } });
		expect((await closed(ws!)).code).toBe(4000);
	});
});
