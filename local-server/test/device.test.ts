// The device client (`svc-local connect`, and the peer the other tests use)
// against a real listening server: failover between URLs, the credential
// file, reconnection, revocation, and codes that do not work.
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DeviceClient } from "../src/index.js";
import { bootstrap, closedAfterEachTest, exchange, listDevices, mode, newDevice, ownerCall, tempDir, until } from "./helpers.js";

const { cleanups, server } = closedAfterEachTest();

describe("the device client", () => {
	it("pairs past a dead first URL, keeps a 0600 credential file, reconnects, and stops when revoked", async () => {
		const t = await server();
		const deadPort = await new Promise<number>((resolve) => {
			const s = net.createServer().listen(0, "127.0.0.1", () => {
				const port = (s.address() as net.AddressInfo).port;
				s.close(() => resolve(port));
			});
		});
		const b = await bootstrap(t);
		const payload = { ...b.payload, baseUrls: [`http://127.0.0.1:${deadPort}`, ...b.payload.baseUrls] };
		const dir = path.join(tempDir(), "device-state");
		const device = newDevice(dir, "Work Laptop", { requestTimeoutMs: 3000 });
		cleanups.push(() => device.stop());

		const saved = await device.pair(JSON.stringify(payload));
		t.secrets.add(saved.credential);
		expect(mode(dir)).toBe(0o700);
		expect(mode(device.options.credentialFile)).toBe(0o600);
		expect(JSON.parse(fs.readFileSync(device.options.credentialFile, "utf8"))).toMatchObject({ deviceId: saved.deviceId, credential: saved.credential });

		await device.connect();
		expect(await listDevices(t)).toEqual([expect.objectContaining({ deviceId: saved.deviceId, name: "Work Laptop", platform: "Desktop", state: "Online" })]);

		// The server drops the connection: the client comes back with a new ticket.
		const welcomedAgain = new Promise((resolve) => device.once("welcome", resolve));
		for (const ws of t.server.deviceSockets.open.keys()) ws.terminate();
		await welcomedAgain;
		await until(async () => (await listDevices(t))[0]?.state === "Online", "device back online");

		// A second client instance reads the saved credential (a restart of the device).
		const restarted = newDevice(dir, "Work Laptop");
		cleanups.push(() => restarted.stop());
		expect(restarted.deviceId).toBe(saved.deviceId);
		await restarted.connect();

		// Revoked: both close for good and do not come back.
		const revoked1 = new Promise((resolve) => device.once("revoked", resolve));
		const revoked2 = new Promise((resolve) => restarted.once("revoked", resolve));
		expect((await ownerCall(t, "DELETE", `/api/pairing/devices/${encodeURIComponent(saved.deviceId)}`)).status).toBe(200);
		await Promise.all([revoked1, revoked2]);
		expect(device.ws).toBeNull();
		await expect(restarted.connect()).rejects.toThrow(/credential refused/);

		// Pairing again with a new code keeps the same deviceId.
		const again = await device.pair((await bootstrap(t)).payload);
		t.secrets.add(again.credential);
		expect(again.deviceId).toBe(saved.deviceId);
		await device.connect();
		expect(await listDevices(t)).toEqual([expect.objectContaining({ deviceId: saved.deviceId, state: "Online" })]);
	});

	it("leaves an existing credential directory's mode alone, and an unusable one does not burn the code", async () => {
		const t = await server();
		// A credential file put in a shared directory (--credential-file ~/x.json or /tmp/x.json).
		const shared = tempDir();
		fs.chmodSync(shared, 0o755);
		const device = newDevice(shared, "Shared");
		t.secrets.add((await device.pair((await bootstrap(t)).payload)).credential);
		expect(mode(shared)).toBe(0o755);
		expect(mode(device.options.credentialFile)).toBe(0o600);

		// The credential cannot be kept (its directory would be under a file): fail before the exchange.
		const parent = tempDir();
		const stuck = new DeviceClient({ credentialFile: path.join(parent, "sub", "device.json"), name: "Stuck" });
		fs.writeFileSync(path.join(parent, "sub"), ""); // a file where its directory should be
		const b = await bootstrap(t);
		await expect(stuck.pair(b.payload)).rejects.toThrow(/EEXIST|ENOTDIR/);
		expect((await exchange(t, { secret: b.secret })).status).toBe(201);
	});

	it("reports a wrong or used code without saving anything", async () => {
		const t = await server();
		const b = await bootstrap(t);
		const dir = path.join(tempDir(), "device-state");
		const device = newDevice(dir);
		await device.pair(b.payload);
		const other = newDevice(path.join(tempDir(), "other"), "Other");
		await expect(other.pair(b.payload)).rejects.toThrow(/401 pairing code is invalid/);
		expect(fs.existsSync(other.options.credentialFile)).toBe(false);
		await expect(other.pair("{not json")).rejects.toThrow(/not valid JSON/);
	});
});
