// Binding: preferred port per mode with a free-port
// fallback, local-server.json, the LAN toggle restarting the listener, and the
// environment settings that lock it.
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { MODE_PORTS } from "../src/config.js";
import { startServer } from "../src/index.js";
import { bootstrap, closed, exchange, nextMessage, openWs, ownerCall, request, startTestServer, tempDir, until, wsTicket, closedAfterEachTest } from "./helpers.js";

const { cleanups, server } = closedAfterEachTest();

function portIsFree(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const s = net.createServer();
		s.once("error", () => resolve(false));
		s.listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
	});
}

function serverFile(home: string) {
	return JSON.parse(fs.readFileSync(path.join(home, "local-server.json"), "utf8"));
}

/** A non-loopback IPv4 address of this machine, if it has one. */
function externalIpv4() {
	for (const addrs of Object.values(os.networkInterfaces())) for (const a of addrs ?? []) if (a.family === "IPv4" && !a.internal) return a.address;
	return null;
}

function connectTo(host: string, port: number): Promise<"connected" | "refused"> {
	return new Promise((resolve) => {
		const s = net.connect({ host, port }, () => {
			s.destroy();
			resolve("connected");
		});
		s.on("error", () => resolve("refused"));
	});
}

describe("port and local-server.json", () => {
	it.each(Object.entries(MODE_PORTS))("mode %s prefers port %i", async (mode, preferred) => {
		const free = await portIsFree(preferred);
		const home = path.join(tempDir(), "home");
		const s = await startServer({ stateDir: home, env: { SVC_MODE: mode }, log: () => {}, overlayHostname: async () => null });
		cleanups.push(() => s.close());
		expect(s.mode).toBe(mode);
		if (free) expect(s.port).toBe(preferred);
		expect(serverFile(home)).toEqual({ pid: process.pid, port: s.port, host: "127.0.0.1", baseUrl: `http://127.0.0.1:${s.port}`, baseUrls: [`http://127.0.0.1:${s.port}`], mode });
	});

	it("takes another free port when the preferred one is busy", async () => {
		const blocker = net.createServer();
		await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", () => r()));
		cleanups.push(() => new Promise((r) => blocker.close(r)));
		const busy = (blocker.address() as net.AddressInfo).port;
		const lines: string[] = [];
		const t = await server({ port: busy, log: (l) => lines.push(l) });
		expect(t.server.port).not.toBe(busy);
		expect(t.server.port).toBeGreaterThan(0);
		expect(lines.join("\n")).toContain(`port ${busy} is taken`);
		expect(serverFile(t.home).port).toBe(t.server.port);
		expect((await request(t.server.port, "/api/health")).json).toEqual({ ok: true, service: "svc-local", mode: "production", ownerMode: "local" });
	});

	describe("with devices paired, which know this server by its port only", () => {
		function blockPort(port: number) {
			const blocker = net.createServer();
			return new Promise<void>((resolve, reject) => {
				blocker.once("error", reject);
				blocker.listen(port, "127.0.0.1", () => {
					cleanups.push(() => new Promise((r) => blocker.close(r)));
					resolve();
				});
			});
		}
		async function pairedHome() {
			const t = await startTestServer();
			await exchange(t, { secret: (await bootstrap(t)).secret, deviceId: "phone" });
			await t.close();
			return { home: t.home, port: t.server.port };
		}
		const restart = (home: string, extra: Partial<Parameters<typeof startServer>[0]> = {}) =>
			startServer({ stateDir: home, env: {}, log: () => {}, overlayHostname: async () => null, ...extra });

		it("a restart listens on the port they were given, not the mode's", async () => {
			const { home, port } = await pairedHome();
			const again = await restart(home);
			cleanups.push(() => again.close());
			expect(again.port).toBe(port);
		});

		it("with that port taken a start is refused, naming the port and the ways out, and leaves nothing behind", async () => {
			const { home, port } = await pairedHome();
			await blockPort(port);
			const error = await restart(home).then(
				() => null,
				(err: Error) => err.message,
			);
			expect(error).toContain(`port ${port} is taken by another program (lsof -nP -iTCP:${port} -sTCP:LISTEN shows which program holds it)`);
			expect(error).toContain("the paired device knows this server only on that port");
			expect(error).toContain("svc-local start --port <port>");
			expect(error).toContain("start on another one with svc-local start --port <port> (0: any free port) and pair again");
			// SVC_PORT, the port configured, is not moved from either.
			await expect(restart(home, { env: { SVC_PORT: String(port) } })).rejects.toThrow(`port ${port} is taken`);
			expect(fs.existsSync(path.join(home, "local-server.json"))).toBe(false);
			expect(fs.existsSync(path.join(home, "local-server.lock"))).toBe(false);
		});

		it("an explicit port (start --port) is used, saying the devices must pair again, and is then the one remembered", async () => {
			const { home, port } = await pairedHome();
			await blockPort(port);
			const lines: string[] = [];
			const moved = await restart(home, { port: 0, exactPort: true, log: (l) => lines.push(l) });
			expect(moved.port).not.toBe(port);
			expect(lines.join("\n")).toContain(`listening on port ${moved.port}, not ${port} where the paired device knows this server: pair again (svc-local pair), or start on port ${port} to be found there again`);
			const movedPort = moved.port;
			await moved.close();
			const again = await restart(home);
			cleanups.push(() => again.close());
			expect(again.port).toBe(movedPort);
		});

		it("the LAN toggle does not move to another port either", async () => {
			const t = await server();
			await exchange(t, { secret: (await bootstrap(t)).secret, deviceId: "phone" });
			// Another program holds the port on every address but loopback: only the move to 0.0.0.0 finds it taken.
			const external = externalIpv4();
			if (!external) return;
			const blocker = net.createServer();
			await new Promise<void>((r) => blocker.listen(t.server.port, external, () => r()));
			cleanups.push(() => new Promise((r) => blocker.close(r)));
			const r = await ownerCall(t, "PUT", "/api/pairing/lan", { enabled: true });
			expect(r.status).toBe(409);
			expect(r.json.error).toContain(`port ${t.server.port} is taken on 0.0.0.0 by another program, and the paired device knows this server only on that port`);
			expect(t.server.host).toBe("127.0.0.1");
			expect((await request(t.server.port, "/api/health")).status).toBe(200);
		});
	});

	it("without devices paired, an explicit port (start --port) that is taken is refused too", async () => {
		const blocker = net.createServer();
		await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", () => r()));
		cleanups.push(() => new Promise((r) => blocker.close(r)));
		const busy = (blocker.address() as net.AddressInfo).port;
		await expect(startServer({ stateDir: path.join(tempDir(), "h"), env: {}, port: busy, exactPort: true, log: () => {} })).rejects.toThrow(
			`port ${busy} is taken by another program (lsof -nP -iTCP:${busy} -sTCP:LISTEN shows which program holds it); free it, or choose another with --port`,
		);
	});

	it("refuses an unknown SVC_MODE", async () => {
		await expect(startServer({ stateDir: path.join(tempDir(), "h"), env: { SVC_MODE: "staging" }, port: 0, log: () => {} })).rejects.toThrow(/SVC_MODE must be one of/);
	});

	it.for([
		[{ SVC_ALLOW_LAN: "maybe" }, /SVC_ALLOW_LAN must be 1, true, yes or on, or 0, false, no or off \(got "maybe"\)/],
		[{ SVC_NPM_REGISTRY: "ftp://x" }, /SVC_NPM_REGISTRY/],
	] as const)("refuses %o before writing any state, so the owner token is minted by a start that works", async ([env, message]) => {
		const home = path.join(tempDir(), "h");
		await expect(startServer({ stateDir: home, env, port: 0, log: () => {} })).rejects.toThrow(message);
		expect(fs.existsSync(home)).toBe(false);
	});
});

describe("LAN toggle", () => {
	it("restarts the listener on 0.0.0.0 and back on 127.0.0.1, keeping loopback sockets", async () => {
		const t = await server({ interfaces: os.networkInterfaces });
		const port = t.server.port;
		const ip = externalIpv4();

		// A device connected over loopback before the toggle.
		const b = await bootstrap(t);
		const d = await exchange(t, { secret: b.secret, deviceId: "loop" });
		const { ws } = await openWs(port, `?ticket=${(await wsTicket(t, d.json.credential)).json.ticket}`);
		cleanups.push(() => ws!.terminate());

		const before = await ownerCall(t, "GET", "/api/pairing/server");
		expect(before.json).toMatchObject({ host: "127.0.0.1", port, lan: { enabled: false, managed: false }, baseUrls: [`http://127.0.0.1:${port}`] });
		if (ip) expect(await connectTo(ip, port)).toBe("refused");

		const on = await ownerCall(t, "PUT", "/api/pairing/lan", { enabled: true });
		expect(on.status).toBe(200);
		expect(on.json).toMatchObject({ host: "0.0.0.0", port, lan: { enabled: true, managed: false } });
		expect(serverFile(t.home)).toMatchObject({ host: "0.0.0.0", port });
		if (ip) {
			expect(on.json.baseUrls).toContain(`http://${ip}:${port}`);
			// Reachable on the LAN address now, with that address as Host.
			const viaLan = await new Promise<number>((resolve, reject) => {
				const s = net.connect({ host: ip, port }, () => s.write(`GET /api/health HTTP/1.1\r\nHost: ${ip}:${port}\r\nConnection: close\r\n\r\n`));
				let out = "";
				s.on("data", (c) => (out += c));
				s.on("end", () => resolve(Number(out.split(" ")[1])));
				s.on("error", reject);
			});
			expect(viaLan).toBe(200);
			expect((await request(port, "/api/health", { host: `${ip}:${port}` })).status).toBe(200);
		}
		// A device on "another machine" (connected through the LAN address).
		let remoteWs: WebSocket | undefined;
		if (ip) {
			const tk = (await wsTicket(t, d.json.credential)).json.ticket;
			remoteWs = new WebSocket(`ws://${ip}:${port}/api/pairing/ws?ticket=${tk}`);
			cleanups.push(() => remoteWs!.terminate());
			await new Promise((resolve, reject) => {
				remoteWs!.once("open", resolve);
				remoteWs!.once("error", reject);
			});
		}
		// The code now carries the network endpoints.
		const code = await bootstrap(t);
		expect(code.payload.baseUrls).toEqual(on.json.baseUrls);
		expect(code.payload.baseUrl).toBe(on.json.baseUrl);

		// The loopback device never noticed.
		const pong = nextMessage(ws!);
		ws!.send(JSON.stringify({ type: "hello", id: "still-here", data: { name: "Loop" } }));
		expect(await pong).toMatchObject({ type: "welcome", id: "still-here" });

		const off = await ownerCall(t, "PUT", "/api/pairing/lan", { enabled: false });
		expect(off.json).toMatchObject({ host: "127.0.0.1", port, lan: { enabled: false }, baseUrls: [`http://127.0.0.1:${port}`] });
		if (ip) expect(await connectTo(ip, port)).toBe("refused");
		// Other machines' connections end with LAN; the loopback one stays.
		if (remoteWs) expect((await closed(remoteWs)).code).toBe(1001);
		expect(ws!.readyState).toBe(ws!.OPEN);
		expect((await request(port, "/api/health", { host: `${ip ?? "192.0.2.200"}:${port}` })).status).toBe(403);

		// The choice is remembered across restarts.
		await ownerCall(t, "PUT", "/api/pairing/lan", { enabled: true });
		await t.close();
		const again = await startServer({ stateDir: t.home, port: 0, env: {}, log: () => {}, overlayHostname: async () => null });
		cleanups.push(() => again.close());
		expect(again.host).toBe("0.0.0.0");
	});

	it("concurrent toggles are applied one after the other", async () => {
		const t = await server();
		// Six connections accepted beforehand (as a page's keep-alive connections
		// would be): a restart of the listener resets only connections still
		// waiting in the old socket's accept queue, which a test cannot order.
		const sockets = await Promise.all(
			Array.from({ length: 6 }, () => new Promise<net.Socket>((resolve) => {
				const s = net.connect(t.server.port, "127.0.0.1", () => resolve(s));
			})),
		);
		await until(() => t.server.connections.size >= 6, "six accepted connections");
		const answers = await Promise.all(
			[true, false, true, true, false, true].map(
				(enabled, i) =>
					new Promise<number>((resolve, reject) => {
						const body = JSON.stringify({ enabled });
						const s = sockets[i];
						let out = "";
						s.on("data", (c) => (out += c));
						s.on("end", () => resolve(Number(out.split(" ")[1])));
						s.on("error", reject);
						s.write(`PUT /api/pairing/lan HTTP/1.1\r\nHost: 127.0.0.1:${t.server.port}\r\nAuthorization: Bearer ${t.token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
					}),
			),
		);
		expect(answers).toEqual([200, 200, 200, 200, 200, 200]);
		expect(t.server.host).toBe("0.0.0.0");
		expect((await ownerCall(t, "GET", "/api/pairing/server")).json).toMatchObject({ host: "0.0.0.0", port: t.server.port, lan: { enabled: true } });
	});

	it("SVC_ALLOW_LAN and SVC_SERVER_HOST set the address and lock the toggle", async () => {
		const lan = await server({ env: { SVC_ALLOW_LAN: "1" } });
		expect(lan.server.host).toBe("0.0.0.0");
		const r = await ownerCall(lan, "PUT", "/api/pairing/lan", { enabled: false });
		expect(r.status).toBe(409);
		expect(r.json.error).toMatch(/SVC_SERVER_HOST \/ SVC_ALLOW_LAN/);
		expect((await ownerCall(lan, "GET", "/api/pairing/server")).json.lan).toEqual({ enabled: true, managed: true });

		const local = await server({ env: { SVC_ALLOW_LAN: "0" } });
		expect(local.server.host).toBe("127.0.0.1");
		const fixed = await server({ env: { SVC_SERVER_HOST: "127.0.0.1", SVC_ALLOW_LAN: "1" } });
		expect(fixed.server.host).toBe("127.0.0.1");
		expect((await ownerCall(fixed, "PUT", "/api/pairing/lan", { enabled: true })).status).toBe(409);
	});
});
