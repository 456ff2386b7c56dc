// The security floor: DNS rebinding, foreign origins, owner
// session on every pairing route, exchange throttling, and bad input of
// every shape answered with a clear 4xx while the paired devices survive.
import net from "node:net";
import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { bootstrap, closed, exchange, nextMessage, openWs, ownerCall, request, wsTicket, type TestServer, closedAfterEachTest } from "./helpers.js";

const { cleanups, server } = closedAfterEachTest();

async function pairOne(t: TestServer, deviceId = "keeper") {
	const b = await bootstrap(t);
	const r = await exchange(t, { secret: b.secret, deviceId, name: "Keeper" });
	expect(r.status).toBe(201);
	return r.json.credential as string;
}

/** Sends raw bytes and answers what came back (the server must answer, not die). */
function rawExchange(port: number, bytes: string): Promise<string> {
	return new Promise((resolve) => {
		const socket = net.connect(port, "127.0.0.1", () => socket.write(bytes));
		let out = "";
		socket.on("data", (d) => (out += d.toString()));
		socket.on("close", () => resolve(out));
		socket.on("error", () => resolve(out));
		socket.setTimeout(10_000, () => socket.destroy());
	});
}

describe("DNS rebinding and foreign origins", () => {
	it("refuses requests whose Host is not one of the server's own names", async () => {
		const t = await server();
		const port = t.server.port;
		for (const host of [`evil.example:${port}`, `attacker.test`, `127.0.0.1:${port + 1}`, `192.168.1.50:${port}`, `localhost.evil.example:${port}`]) {
			for (const path of ["/", "/api/pairing/devices", "/api/health"]) {
				const r = await request(port, path, { host, headers: { authorization: `Bearer ${t.token}` } });
				expect(r.status, `${host} ${path}`).toBe(403);
				expect(r.json.error).toMatch(/not an address of this server/);
			}
		}
		for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`]) {
			expect((await ownerCall(t, "GET", "/api/pairing/devices", undefined, { host })).status).toBe(200);
		}
		// HTTP/1.1 without Host at all.
		expect(await rawExchange(port, "GET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n")).toMatch(/^HTTP\/1\.1 400/);
	});

	it("refuses upgrades with a foreign Host or Origin before consuming the ticket", async () => {
		const t = await server();
		const credential = await pairOne(t);
		const port = t.server.port;
		const ticket = (await wsTicket(t, credential)).json.ticket;

		const rebound = await openWs(port, `?ticket=${ticket}`, { host: `evil.example:${port}` });
		expect(rebound.status).toBe(403);
		for (const origin of ["http://evil.example", `http://evil.example:${port}`, `http://localhost:${port + 1}`, "null", "file://", `https://127.0.0.1.evil.example:${port}`]) {
			const r = await openWs(port, `?ticket=${ticket}`, { origin });
			expect(r.status, origin).toBe(403);
			expect(JSON.parse(r.body!).error).toMatch(/another origin/);
		}
		// The refusals happened before the ticket was looked at: it still works, from our own origin.
		const ok = await openWs(port, `?ticket=${ticket}`, { origin: `http://127.0.0.1:${port}` });
		expect(ok.ws).toBeDefined();
		ok.ws!.terminate();
	});

	it("refuses API calls from a foreign Origin and sends no CORS permission", async () => {
		const t = await server();
		const r = await ownerCall(t, "POST", "/api/pairing/bootstrap", undefined, { headers: { origin: "http://evil.example" } });
		expect(r.status).toBe(403);
		expect(r.headers["access-control-allow-origin"]).toBeUndefined();
		expect(r.json.secret).toBeUndefined();
		const same = await ownerCall(t, "POST", "/api/pairing/bootstrap", undefined, { headers: { origin: `http://localhost:${t.server.port}` } });
		expect(same.status).toBe(200);
	});
});

describe("owner session", () => {
	it("every owner route answers 401 to anyone but the owner", async () => {
		// 90 wrong tokens from one address: the owner throttle (below) would answer 429 from the 11th.
		const t = await server({ ownerThrottle: { perKey: 1000, global: 1000 } });
		const credential = await pairOne(t);
		const b = await bootstrap(t);
		const routes: [string, string, string?][] = [
			["POST", "/api/pairing/bootstrap"],
			["GET", "/api/pairing/devices"],
			["DELETE", "/api/pairing/devices/keeper"],
			["GET", "/api/pairing/server"],
			["PUT", "/api/pairing/lan", JSON.stringify({ enabled: true })],
			["GET", "/api/workspaces"],
			["POST", "/api/workspaces", JSON.stringify({ path: t.home })],
			["DELETE", "/api/workspaces/0000aaaa"],
			["GET", "/api/workspace/setup-health?workspaceId=0000aaaa"],
			["POST", "/api/workspace/setup-health/update-logger", JSON.stringify({ workspaceId: "0000aaaa", packageDir: "." })],
		];
		const bearers = [undefined, "", "Bearer", `Bearer ${credential}`, `Bearer ${b.secret}`, `Basic ${Buffer.from(`x:${t.token}`).toString("base64")}`, `Bearer ${t.token}x`, `Bearer ${t.token.slice(1)}`, `Bearer ${"a".repeat(5000)}`];
		for (const [method, path, body] of routes) {
			for (const authorization of bearers) {
				const r = await request(t.server.port, path, { method, body, headers: authorization === undefined ? {} : { authorization } });
				expect(r.status, `${method} ${path} with ${authorization?.slice(0, 20)}`).toBe(401);
				expect(typeof r.json.error).toBe("string");
			}
		}
		// Nothing happened: the device is still there and LAN is still off.
		const list = await ownerCall(t, "GET", "/api/pairing/devices");
		expect(list.json.devices.map((d: any) => d.deviceId)).toEqual(["keeper"]);
		expect(t.server.host).toBe("127.0.0.1");
		expect((await ownerCall(t, "GET", "/api/workspaces")).json.workspaces).toEqual([]);
		// In local mode a device may add a bearer, but then it must be the owner's.
		expect((await wsTicket(t, credential, { headers: { authorization: "Bearer nope" } })).status).toBe(401);
		expect((await wsTicket(t, credential, { headers: { authorization: `Bearer ${t.token}` } })).status).toBe(200);
	});

	it("SVC_OWNER_TOKEN sets the owner token; no token file is written", async () => {
		const t = await server({ env: { SVC_OWNER_TOKEN: "explicit-owner-token-for-tests-0123456789" } });
		expect(t.server.owner.mintedToken).toBeNull();
		expect(t.token).toBe("explicit-owner-token-for-tests-0123456789");
		expect((await ownerCall(t, "GET", "/api/pairing/devices")).status).toBe(200);
		expect((await request(t.server.port, "/api/pairing/devices", { headers: { authorization: "Bearer other" } })).status).toBe(401);
		const { readdirSync } = await import("node:fs");
		expect(readdirSync(t.home)).not.toContain("owner-token");
	});
});

describe("exchange throttling", () => {
	it("limits attempts per remote address, then globally, with Retry-After; the window passes", async () => {
		const t = await server({ exchangeThrottle: { perKey: 3, global: 5, windowMs: 60_000 } });
		const b = await bootstrap(t);
		const guess = (localAddress: string) => exchange(t, { secret: `guess-${Math.random()}` }, { localAddress });
		for (let i = 0; i < 3; i++) expect((await guess("127.0.0.1")).status).toBe(401);
		const limited = await guess("127.0.0.1");
		expect(limited.status).toBe(429);
		expect(Number(limited.headers["retry-after"])).toBe(60);
		expect(limited.json.error).toMatch(/too many pairing attempts/);
		// Even the right secret is refused while throttled, and is not consumed.
		expect((await exchange(t, { secret: b.secret })).status).toBe(429);

		// Another address has its own window; once 5 failures fill the shared one, an address
		// that has failed waits too, while a clean address still gets its attempt.
		expect((await guess("127.0.0.2")).status).toBe(401);
		expect((await guess("127.0.0.2")).status).toBe(401);
		expect((await guess("127.0.0.2")).status).toBe(429);
		expect((await guess("127.0.0.3")).status).toBe(401);
		expect((await guess("127.0.0.3")).status).toBe(429);

		t.clock.advance(30_000);
		expect(Number((await guess("127.0.0.3")).headers["retry-after"])).toBe(30);
		t.clock.advance(30_000);
		// The window has passed; the code (60 s old, valid for 120 s) was never consumed.
		expect((await exchange(t, { secret: b.secret }, { localAddress: "127.0.0.3" })).status).toBe(201);
	});

	it("guessers elsewhere cannot lock the owner out: 30 wrong codes from three addresses, then the right one from a clean address pairs", async () => {
		const t = await server();
		const b = await bootstrap(t);
		for (const localAddress of ["127.0.0.2", "127.0.0.3", "127.0.0.4"]) {
			for (let i = 0; i < 10; i++) expect((await exchange(t, { secret: `guess-${i}` }, { localAddress })).status).toBe(401);
			expect((await exchange(t, { secret: "one-more" }, { localAddress })).status).toBe(429);
		}
		expect((await exchange(t, { secret: b.secret }, { localAddress: "127.0.0.5" })).status).toBe(201);
	});

	it("a right code is no failure: pairing many devices from one address is never throttled", async () => {
		const t = await server({ exchangeThrottle: { perKey: 3, global: 5, windowMs: 60_000 } });
		for (let i = 0; i < 8; i++) {
			const b = await bootstrap(t);
			expect((await exchange(t, { secret: b.secret, deviceId: `device-${i}` })).status).toBe(201);
		}
	});

	it("default limits make guessing a 256-bit secret hopeless", async () => {
		const t = await server();
		let allowed = 0;
		for (let i = 0; i < 12; i++) if ((await exchange(t, { secret: `g${i}` })).status !== 429) allowed++;
		expect(allowed).toBe(10); // 10 per minute per address (30 per minute for everyone)
	});
});

describe("owner token throttling", () => {
	it("10 wrong owner tokens a minute from one address, then 429 with Retry-After; a right token is no failure; a clean address still gets in", async () => {
		const t = await server({ env: { SVC_OWNER_TOKEN: "short" } });
		const asOwner = (token: string, localAddress = "127.0.0.1") =>
			request(t.server.port, "/api/pairing/devices", { headers: { authorization: `Bearer ${token}` }, localAddress });
		// Right tokens count for nothing: the page polls every 10 s for hours.
		for (let i = 0; i < 20; i++) expect((await asOwner("short")).status).toBe(200);
		for (let i = 0; i < 10; i++) expect((await asOwner(`guess-${i}`)).status).toBe(401);
		const limited = await asOwner("guess-10");
		expect(limited.status).toBe(429);
		expect(Number(limited.headers["retry-after"])).toBe(60);
		expect(limited.json.error).toBe("too many wrong owner tokens; try again later");
		// Even the right token waits there; another address that has not failed does not.
		expect((await asOwner("short")).status).toBe(429);
		expect((await asOwner("short", "127.0.0.2")).status).toBe(200);
		t.clock.advance(60_000);
		expect((await asOwner("short")).status).toBe(200);
	});
});

describe("bad input gets a clear 4xx, never a crash, never a lost device", () => {
	it("exchange bodies of every wrong shape", async () => {
		const t = await server({ exchangeThrottle: { perKey: 1000, global: 1000 } });
		const credential = await pairOne(t);
		const b = await bootstrap(t);
		const cases: [string, string | Buffer, number, RegExp][] = [
			["malformed JSON", "{secret:", 400, /not valid JSON/],
			["empty body", "", 400, /JSON object/],
			["null", "null", 400, /JSON object/],
			["array", "[]", 400, /JSON object/],
			["string", '"abc"', 400, /JSON object/],
			["number secret", JSON.stringify({ secret: 42 }), 400, /secret must be/],
			["empty secret", JSON.stringify({ secret: "" }), 400, /secret must be/],
			["object secret", JSON.stringify({ secret: { $ne: null } }), 400, /secret must be/],
			["huge secret", JSON.stringify({ secret: "s".repeat(10_000) }), 400, /at most 512/],
			["name not a string", JSON.stringify({ secret: b.secret, name: ["x"] }), 400, /name must be a string/],
			["name too long", JSON.stringify({ secret: b.secret, name: "n".repeat(101) }), 400, /at most 100/],
			["platform not a string", JSON.stringify({ secret: b.secret, platform: 3 }), 400, /platform must be a string/],
			["deviceId with control characters", JSON.stringify({ secret: b.secret, deviceId: "a\nb" }), 400, /control characters/],
			["body over 16 KiB", JSON.stringify({ secret: b.secret, pad: "p".repeat(20_000) }), 413, /larger than/],
			["body of 2 MiB", Buffer.alloc(2 * 1024 * 1024, 0x20), 413, /larger than/],
			["invalid UTF-8", Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), 400, /not valid JSON/],
		];
		for (const [name, body, status, message] of cases) {
			const r = await exchange(t, body);
			expect(r.status, name).toBe(status);
			expect(Object.keys(r.json), name).toEqual(["error"]);
			expect(r.json.error, name).toMatch(message);
		}
		// None of it consumed the code.
		expect((await exchange(t, { secret: b.secret, name: "Unicode ✓ ünïcödé 📱", platform: "WATCHOS" })).json.device).toMatchObject({ name: "Unicode ✓ ünïcödé 📱", platform: "Unknown platform" });
		// Bidirectional overrides would let a name display as another ("Revoke ...?" included): removed like control characters.
		const spoof = await exchange(t, { secret: (await bootstrap(t)).secret, deviceId: "spoof", name: "\u202Eenohp s'ecilA\u2066\u200F\u2069" });
		expect(spoof.json.device.name).toBe("enohp s'ecilA");
		expect((await wsTicket(t, credential)).status).toBe(200);
	});

	it("garbage tickets, paths, methods and headers", async () => {
		const t = await server();
		const credential = await pairOne(t);
		const port = t.server.port;
		for (const q of ["", "?ticket=", "?ticket=garbage", "?ticket=%%%", `?ticket=${"x".repeat(10_000)}`, "?ticket[]=a&ticket[]=b", `?ticket=${encodeURIComponent(credential)}`]) {
			const r = await openWs(port, q);
			expect(r.status, q.slice(0, 30)).toBe(401);
		}
		expect((await openWs(port, "/../../x?ticket=a")).status).toBe(404);
		expect((await wsTicket(t, "c".repeat(100_000).slice(0, 8000))).status).toBe(401);
		expect((await request(port, "/api/pairing/ws-ticket", { method: "POST", headers: { "x-svc-device-credential": "   " } })).status).toBe(401);

		const bad: [string, string, number][] = [
			["GET", "/api/pairing/bootstrap", 405],
			["PUT", "/api/pairing/exchange", 405],
			["POST", "/api/pairing/devices", 405],
			["GET", "/api/pairing/devices/keeper", 405],
			["DELETE", "/api/pairing/devices/%E0%A4%A", 400],
			// Ids the exchange would refuse are malformed here too: a control character, a lone surrogate.
			["DELETE", "/api/pairing/devices/a%01b", 400],
			["DELETE", "/api/pairing/devices/a%ED%A0%80b", 400],
			["DELETE", "/api/pairing/devices/no-such-device", 404],
			["GET", "/api/nothing-here", 404],
			["GET", "/api/pairing/ws", 426],
			["POST", "/index.html", 405],
			["GET", "/../etc/passwd", 404],
		];
		for (const [method, path, status] of bad) {
			const r = await ownerCall(t, method, path);
			expect(r.status, `${method} ${path}`).toBe(status);
			expect(typeof r.json.error).toBe("string");
			if (status === 405) expect(r.headers.allow).toBeTruthy();
		}
		for (const body of ["{", "[]", JSON.stringify({ enabled: "yes" }), JSON.stringify({})]) {
			expect((await ownerCall(t, "PUT", "/api/pairing/lan", undefined, { body })).status).toBe(400);
		}
		// Raw protocol garbage.
		expect(await rawExchange(port, "\x00\x01\x02 garbage\r\n\r\n")).toMatch(/^HTTP\/1\.1 400/);
		expect(await rawExchange(port, `GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX: ${"h".repeat(20_000)}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 431|^HTTP\/1\.1 400/);

		const list = await ownerCall(t, "GET", "/api/pairing/devices");
		expect(list.json.devices.map((d: any) => d.deviceId)).toEqual(["keeper"]);
		expect((await wsTicket(t, credential)).status).toBe(200);
	});

	it("malformed WebSocket messages get an error envelope; oversized frames end only that socket", async () => {
		const t = await server();
		const credential = await pairOne(t);
		const { ws } = await openWs(t.server.port, `?ticket=${(await wsTicket(t, credential)).json.ticket}`);
		cleanups.push(() => ws!.terminate());
		const ask = async (data: string | Buffer) => {
			const m = nextMessage(ws!);
			ws!.send(data);
			return m;
		};
		expect(await ask("{nope")).toMatchObject({ type: "error", data: { message: "message is not valid JSON" } });
		expect(await ask("42")).toMatchObject({ type: "error" });
		expect(await ask(JSON.stringify({ type: 7 }))).toMatchObject({ type: "error" });
		expect(await ask(Buffer.from([1, 2, 3]))).toMatchObject({ type: "error", data: { message: "messages are JSON text" } });
		expect(await ask(JSON.stringify({ type: "hello", id: "h", data: { name: 12 } }))).toMatchObject({ type: "error", id: "h", data: { message: "name must be a string" } });
		expect(await ask(JSON.stringify({ type: "hello", id: "h2", data: { name: "Tab", platform: "Web" } }))).toMatchObject({ type: "welcome", id: "h2" });
		expect(await ask(JSON.stringify({ type: "launch-missiles" }))).toMatchObject({ type: "error", data: { message: 'unknown message type "launch-missiles"' } });
		const end = closed(ws!);
		ws!.send("x".repeat(70 * 1024));
		expect((await end).code).toBe(1009);

		const list = await ownerCall(t, "GET", "/api/pairing/devices");
		expect(list.json.devices).toEqual([expect.objectContaining({ deviceId: "keeper", name: "Tab", platform: "Web" })]);
		const again = await openWs(t.server.port, `?ticket=${(await wsTicket(t, credential)).json.ticket}`);
		expect(again.ws?.readyState).toBe(WebSocket.OPEN);
		again.ws!.terminate();
	});
});

describe("headers", () => {
	it("every API answer is no-store; the page carries a strict CSP and no secret", async () => {
		const t = await server();
		for (const path of ["/api/health", "/api/pairing/devices", "/api/nothing"]) {
			const r = await ownerCall(t, "GET", path);
			expect(r.headers["cache-control"], path).toBe("no-store");
			expect(r.headers.pragma, path).toBe("no-cache");
			expect(r.headers["x-content-type-options"]).toBe("nosniff");
		}
		const page = await request(t.server.port, "/");
		expect(page.status).toBe(200);
		expect(page.headers["content-security-policy"]).toContain("default-src 'none'");
		expect(page.headers["x-frame-options"]).toBe("DENY");
		expect(page.text).not.toContain(t.token);
	});
});

describe("bodies that are too large or too slow get an answer, not a reset", () => {
	const { server } = closedAfterEachTest();

	/** Talks raw HTTP on a socket and answers what came back by the time the server closed it. */
	function rawExchange(port: number, send: (socket: net.Socket) => void): Promise<{ head: string; closed: boolean }> {
		return new Promise((resolve, reject) => {
			const socket = net.connect(port, "127.0.0.1");
			let text = "";
			socket.on("data", (data) => {
				text += data.toString("latin1");
			});
			socket.on("error", () => {}); // a write after the server's FIN is expected, the answer counts
			socket.on("close", () => (text ? resolve({ head: text, closed: true }) : reject(new Error("closed with no answer"))));
			socket.on("connect", () => send(socket));
		});
	}

	it("a chunked body over 1 MiB is answered 413 with Connection: close, then closed", async () => {
		const t = await server();
		const { head, closed: wasClosed } = await rawExchange(t.server.port, (socket) => {
			socket.write(`POST /api/pairing/exchange HTTP/1.1\r\nHost: 127.0.0.1:${t.server.port}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
			const chunk = Buffer.alloc(64 * 1024, 0x20);
			// 1.5 MiB in 24 chunks, then the terminating chunk; writes past the answer may fail.
			for (let i = 0; i < 24; i++) socket.write(`${chunk.length.toString(16)}\r\n${chunk.toString("latin1")}\r\n`);
			socket.write("0\r\n\r\n");
		});
		expect(head).toMatch(/^HTTP\/1\.1 413 /);
		expect(head.toLowerCase()).toContain("connection: close");
		expect(head).toMatch(/larger than/);
		expect(wasClosed).toBe(true);
	});

	it("a body that does not arrive within the request time limit is answered 408 and closed", async () => {
		const t = await server({ requestTimeoutMs: 1_500 });
		const { head } = await rawExchange(t.server.port, (socket) => {
			socket.write(`POST /api/pairing/exchange HTTP/1.1\r\nHost: 127.0.0.1:${t.server.port}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"sec`);
			// ...and nothing more: the rest never comes.
		});
		expect(head).toMatch(/^HTTP\/1\.1 408 /);
		expect(head).toContain("the request did not arrive in time: its headers within 1.5 s, the whole of it within 1.5 s");
	});
});
