// Shared test helpers: a real server on a free port in a temporary SVC_HOME
// with an injectable clock, raw HTTP requests (Host, Origin and source
// address under the test's control), and a record of every secret seen.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterEach, expect } from "vitest";
import { WebSocket } from "ws";
import { DeviceClient, startServer, type LocalServer } from "../src/index.js";

export class FakeClock {
	t = Date.parse("2026-06-01T12:00:00.000Z");
	now = () => this.t;
	advance(ms: number) {
		this.t += ms;
	}
}

export function tempDir(prefix = "svc-local-test-") {
	return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface TestServer {
	server: LocalServer;
	clock: FakeClock;
	home: string;
	token: string;
	base: string;
	secrets: Set<string>;
	close(): Promise<void>;
}

type ServerOptions = NonNullable<Parameters<typeof startServer>[0]>;

export async function startTestServer(options: Partial<ServerOptions> = {}): Promise<TestServer> {
	const clock = new FakeClock();
	const home = options.stateDir ?? path.join(tempDir(), "home");
	const server = await startServer({
		stateDir: home,
		port: 0,
		env: {},
		now: clock.now,
		overlayHostname: async () => null,
		log: () => {},
		name: "Test Desk",
		...options,
	});
	const token = server.owner.mintedToken ?? options.env?.SVC_OWNER_TOKEN ?? "";
	const secrets = new Set<string>(token ? [token] : []);
	return {
		server,
		clock,
		home,
		token,
		base: `http://127.0.0.1:${server.port}`,
		secrets,
		close: () => server.close(),
	};
}

/**
 * For one test file: `cleanups` run after each test (newest first), and `server()` starts a test
 * server that is closed then.
 */
export function closedAfterEachTest() {
	const cleanups: (() => Promise<unknown> | unknown)[] = [];
	afterEach(async () => {
		while (cleanups.length) await cleanups.pop()!();
	});
	async function server(options: Parameters<typeof startTestServer>[0] = {}) {
		const t = await startTestServer(options);
		cleanups.push(() => t.close());
		return t;
	}
	return { cleanups, server };
}

export interface RawResponse {
	status: number;
	headers: http.IncomingHttpHeaders;
	text: string;
	json: any;
}

export interface RawRequest {
	method?: string;
	headers?: Record<string, string>;
	body?: string | Buffer;
	localAddress?: string;
	host?: string;
}

/** One HTTP request over a raw node:http client (Host and source address are the test's to set). */
export function request(port: number, pathname: string, r: RawRequest = {}): Promise<RawResponse> {
	return new Promise((resolve, reject) => {
		const headers: Record<string, string> = { host: r.host ?? `127.0.0.1:${port}`, ...(r.headers ?? {}) };
		if (r.body !== undefined && headers["content-type"] === undefined) headers["content-type"] = "application/json";
		const req = http.request({ host: "127.0.0.1", port, path: pathname, method: r.method ?? "GET", headers, localAddress: r.localAddress, agent: false }, (res) => {
			const chunks: Buffer[] = [];
			res.on("data", (c) => chunks.push(c));
			res.on("end", () => {
				const text = Buffer.concat(chunks).toString("utf8");
				let json: any;
				try {
					json = JSON.parse(text);
				} catch {
					json = undefined;
				}
				resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
			});
			res.on("error", reject);
		});
		req.on("error", reject);
		if (r.body !== undefined) req.end(r.body);
		else req.end();
	});
}

/** Owner API call with the bearer. */
export function ownerCall(t: TestServer, method: string, pathname: string, body?: unknown, extra: RawRequest = {}) {
	return request(t.server.port, pathname, {
		method,
		...extra,
		headers: { authorization: `Bearer ${t.token}`, ...(extra.headers ?? {}) },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
}

/** The owner's list of paired devices. */
export async function listDevices(t: TestServer) {
	const r = await ownerCall(t, "GET", "/api/pairing/devices");
	expect(r.status).toBe(200);
	return r.json.devices as any[];
}

export async function bootstrap(t: TestServer) {
	const r = await ownerCall(t, "POST", "/api/pairing/bootstrap");
	if (r.status !== 200) throw new Error(`bootstrap: ${r.status} ${r.text}`);
	t.secrets.add(r.json.secret);
	return r.json as { secret: string; expiresAt: string; payload: any };
}

export async function exchange(t: TestServer, body: unknown, extra: RawRequest = {}) {
	const r = await request(t.server.port, "/api/pairing/exchange", { method: "POST", body: typeof body === "string" || Buffer.isBuffer(body) ? body : JSON.stringify(body), ...extra });
	if (r.json?.credential) t.secrets.add(r.json.credential);
	return r;
}

export async function wsTicket(t: TestServer, credential: string, extra: RawRequest = {}) {
	const r = await request(t.server.port, "/api/pairing/ws-ticket", {
		method: "POST",
		...extra,
		headers: { "x-svc-device-credential": credential, ...(extra.headers ?? {}) },
	});
	if (r.json?.ticket) t.secrets.add(r.json.ticket);
	return r;
}

/** Attempts a raw WebSocket upgrade; answers the opened socket or the refusal status. */
export function openWs(
	port: number,
	query: string,
	options: { host?: string; origin?: string; autoPong?: boolean } = {},
): Promise<{ ws?: WebSocket; status?: number; body?: string }> {
	return new Promise((resolve) => {
		const ws = new WebSocket(`ws://127.0.0.1:${port}/api/pairing/ws${query}`, {
			headers: { host: options.host ?? `127.0.0.1:${port}` },
			origin: options.origin,
			autoPong: options.autoPong ?? true,
		});
		ws.on("open", () => resolve({ ws }));
		ws.on("unexpected-response", (_req, res) => {
			const chunks: Buffer[] = [];
			res.on("data", (c) => chunks.push(c));
			res.on("end", () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
		});
		ws.on("error", () => resolve({ status: -1 }));
	});
}

/** Next JSON message on a socket. */
export function nextMessage(ws: WebSocket): Promise<any> {
	return new Promise((resolve) => ws.once("message", (d) => resolve(JSON.parse(d.toString()))));
}

export function closed(ws: WebSocket): Promise<{ code: number; reason: string }> {
	return new Promise((resolve) => {
		if (ws.readyState === WebSocket.CLOSED) return resolve({ code: -1, reason: "" });
		ws.once("close", (code, reason) => resolve({ code, reason: reason.toString() }));
	});
}

/** Polls until `check` is true (no wall-clock assertion: only an upper bound for a stuck test). */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000) {
	const start = Date.now();
	while (!(await check())) {
		if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 25));
	}
}

export function newDevice(dir: string, name = "Test Laptop", extra: Partial<ConstructorParameters<typeof DeviceClient>[0]> = {}) {
	return new DeviceClient({ credentialFile: path.join(dir, `${name.replace(/\W+/g, "-")}.json`), name, reconnectMinMs: 50, reconnectMaxMs: 200, ...extra });
}

/** Every file in the state directory, as text, to grep for raw secrets. */
export function stateFilesText(home: string, except: string[] = []) {
	return fs
		.readdirSync(home)
		.filter((f) => !except.includes(f))
		.map((f) => ({ file: f, text: fs.readFileSync(path.join(home, f), "utf8") }));
}

export function mode(file: string) {
	return fs.statSync(file).mode & 0o777;
}

/** A device paired by raw HTTP: a bootstrap secret exchanged (with `body`'s fields) for a credential. */
export async function paired(t: TestServer, body: Record<string, unknown> = {}) {
	const b = await bootstrap(t);
	const r = await exchange(t, { secret: b.secret, ...body });
	expect(r.status).toBe(201);
	return r.json as { deviceId: string; credential: string; device: any };
}

/** A raw WebSocket of a paired device, through a ticket and a hello answered with welcome; ended by `cleanups`. */
export async function connected(t: TestServer, credential: string, cleanups: (() => unknown)[], hello = { name: "Phone", platform: "iOS" }) {
	const ticket = await wsTicket(t, credential);
	expect(ticket.status).toBe(200);
	const { ws, status } = await openWs(t.server.port, `?ticket=${encodeURIComponent(ticket.json.ticket)}`);
	expect(status).toBeUndefined();
	cleanups.push(() => ws!.terminate());
	const welcome = nextMessage(ws!);
	ws!.send(JSON.stringify({ type: "hello", id: "h1", data: hello }));
	expect(await welcome).toMatchObject({ type: "welcome", id: "h1" });
	return ws!;
}
