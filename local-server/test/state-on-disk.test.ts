// What svc-local keeps on disk: its state directory's modes, no raw secret in any file, temporary
// files never left behind, and a damaged store or owner-token file met without losing either.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startServer } from "../src/index.js";
import { bootstrap, closedAfterEachTest, connected, mode, newDevice, paired, request, stateFilesText, tempDir, wsTicket } from "./helpers.js";

const { cleanups, server } = closedAfterEachTest();

describe("state on disk", () => {
	it("modes are 0700/0600 and no raw secret the test saw is in any state file", async () => {
		const t = await server();
		// Produce every kind of secret: bootstraps (used and unused), credentials, tickets (used and unused).
		const d1 = await paired(t, { deviceId: "a", name: "A" });
		const d2 = await paired(t, { deviceId: "b", name: "B" });
		await bootstrap(t);
		const ws = await connected(t, d1.credential, cleanups);
		await wsTicket(t, d2.credential);
		const dir = path.join(tempDir(), "dev");
		const client = newDevice(dir, "C");
		cleanups.push(() => client.stop());
		const saved = await client.pair((await bootstrap(t)).payload);
		t.secrets.add(saved.credential);
		await client.connect();
		ws.close();
		await t.server.close();

		expect(mode(t.home)).toBe(0o700);
		const files = fs.readdirSync(t.home).sort();
		expect(files).toEqual(["owner-token", "pairing.json"]); // local-server.json is removed on a clean stop
		for (const f of files) expect(mode(path.join(t.home, f)), f).toBe(0o600);
		expect(fs.readFileSync(path.join(t.home, "owner-token"), "utf8").trim()).toBe(t.token);

		expect(t.secrets.size).toBeGreaterThanOrEqual(9);
		for (const { file, text } of stateFilesText(t.home, ["owner-token"])) {
			for (const secret of t.secrets) expect(text.includes(secret), `${file} contains a raw secret`).toBe(false);
		}
		const store = JSON.parse(fs.readFileSync(path.join(t.home, "pairing.json"), "utf8"));
		expect(Object.keys(store.devices).sort()).toEqual(["a", "b", saved.deviceId].sort());
		expect(store.devices.a.credentialHash).toMatch(/^[0-9a-f]{64}$/);
		expect(store.localOwner.tokenHash).toMatch(/^[0-9a-f]{64}$/);

		// A restart on the same state keeps the devices and their credentials.
		const again = await startServer({ stateDir: t.home, port: 0, env: {}, log: () => {}, overlayHostname: async () => null });
		cleanups.push(() => again.close());
		expect(again.owner.mintedToken).toBeNull();
		const r = await request(again.port, "/api/pairing/ws-ticket", { method: "POST", headers: { "x-svc-device-credential": d2.credential } });
		expect(r.status).toBe(200);
		expect(JSON.parse(fs.readFileSync(path.join(t.home, "local-server.json"), "utf8"))).toMatchObject({ pid: process.pid, port: again.port });
		expect(mode(path.join(t.home, "local-server.json"))).toBe(0o600);
	});

	it("leaves no temporary files behind and survives a damaged store without losing it", async () => {
		const home = path.join(tempDir(), "home");
		fs.mkdirSync(home, { mode: 0o755 });
		fs.writeFileSync(path.join(home, "pairing.json"), "{ half a write", { mode: 0o644 });
		const t = await server({ stateDir: home });
		expect(mode(home)).toBe(0o700);
		await paired(t);
		const files = fs.readdirSync(home);
		expect(files.filter((f) => f.endsWith(".tmp"))).toEqual([]);
		const aside = files.find((f) => f.startsWith("pairing.json.damaged-"));
		expect(aside).toBeDefined();
		expect(fs.readFileSync(path.join(home, aside!), "utf8")).toBe("{ half a write");
	});
	it("a damaged store keeps the owner-token file and its token, so the store restored by hand opens with it again", async () => {
		const t = await server();
		await paired(t, { deviceId: "kept" });
		await t.close();
		const tokenFile = path.join(t.home, "owner-token");
		const store = path.join(t.home, "pairing.json");
		const backup = fs.readFileSync(store, "utf8");
		fs.writeFileSync(store, "{ half a write");
		const restart = () => startServer({ stateDir: t.home, port: 0, env: {}, log: () => {}, overlayHostname: async () => null });
		const owner = { authorization: `Bearer ${t.token}` };

		const damaged = await restart();
		expect(damaged.owner.mintedToken).toBeNull();
		expect(fs.readFileSync(tokenFile, "utf8")).toBe(`${t.token}\n`);
		expect(mode(tokenFile)).toBe(0o600);
		const listed = await request(damaged.port, "/api/pairing/devices", { headers: owner });
		expect(listed.status).toBe(200);
		expect(listed.json.devices).toEqual([]);
		await damaged.close();

		// The owner puts the store back: the same token opens it, its device is there.
		fs.writeFileSync(store, backup);
		const restored = await restart();
		cleanups.push(() => restored.close());
		expect((await request(restored.port, "/api/pairing/devices", { headers: owner })).json.devices.map((d: { deviceId: string }) => d.deviceId)).toEqual(["kept"]);
	});

	it("an owner-token file with no usable token in it is replaced by a new token, shown once", async () => {
		const home = path.join(tempDir(), "home");
		fs.mkdirSync(home, { mode: 0o700 });
		fs.writeFileSync(path.join(home, "owner-token"), "\n", { mode: 0o600 });
		const t = await server({ stateDir: home });
		expect(t.server.owner.mintedToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
		expect(fs.readFileSync(path.join(home, "owner-token"), "utf8")).toBe(`${t.token}\n`);
	});

	it.each([["null"], ["[]"], ['"text"'], ["42"]])("a store file holding %s is damaged: moved aside, the server starts", async (content) => {
		const home = path.join(tempDir(), "home");
		fs.mkdirSync(home, { mode: 0o700 });
		fs.writeFileSync(path.join(home, "pairing.json"), content, { mode: 0o600 });
		const t = await server({ stateDir: home });
		await paired(t);
		const aside = fs.readdirSync(home).find((f) => f.startsWith("pairing.json.damaged-"));
		expect(aside).toBeDefined();
		expect(fs.readFileSync(path.join(home, aside!), "utf8")).toBe(content);
	});
});

