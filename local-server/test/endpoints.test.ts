// Pure functions: address classification and endpoint choice, the code
// refresh rule, QR payload parsing, Host parsing.
import { afterEach, describe, expect, it, vi } from "vitest";
import { PayloadError, parsePairingPayload } from "../src/device.js";
import { classifyAddress, classifyEndpoints, legacyBaseUrl, tailscaleHostname } from "../src/endpoints.js";
import { parseHostHeader } from "../src/guard.js";
import { CodeRefresher, nextRefreshDelay } from "../src/refresh.js";

describe("classifyAddress", () => {
	it.each([
		["100.64.0.1", "overlay-ip"],
		["100.101.102.103", "overlay-ip"],
		["100.127.255.254", "overlay-ip"],
		["100.63.255.255", "other"], // just below 100.64.0.0/10
		["100.128.0.1", "other"], // just above
		["fd7a:115c:a1e0::1", "overlay-ip"],
		["fd7a:115c:a1e0:ab12:4843:cd96:6258:b240", "overlay-ip"],
		["fd7a:115c:a1e1::1", "other"], // outside the /48
		["192.168.1.20", "lan"],
		["10.0.0.5", "lan"],
		["172.16.0.1", "lan"],
		["172.31.255.255", "lan"],
		["172.15.0.1", "other"],
		["172.32.0.1", "other"],
		["203.0.113.7", "other"],
		["2001:db8::7", "other"],
		["fd00::1", "other"], // IPv6 ULA is not a LAN URL (LAN URLs are IPv4)
		["::ffff:192.168.1.9", "lan"],
		["127.0.0.1", null],
		["::1", null],
		["169.254.3.4", null],
		["fe80::1", null],
		["0.0.0.0", null],
		["::", null],
		["224.0.0.251", null],
		["not an address", null],
	])("%s is %s", (address, kind) => {
		expect(classifyAddress(address)).toBe(kind);
	});
});

const v4 = (address: string, internal = false) => ({ address, family: "IPv4", internal });
const v6 = (address: string, internal = false) => ({ address, family: "IPv6", internal });

describe("classifyEndpoints", () => {
	const port = 47821;
	const cases: {
		name: string;
		interfaces: Record<string, ReturnType<typeof v4>[]>;
		overlayHostname?: string | null;
		host: string;
		urls: string[];
		kinds: string[];
		baseUrl: string;
	}[] = [
		{
			name: "loopback-only binding offers only the loopback URL",
			interfaces: { lo: [v4("127.0.0.1", true)], eth0: [v4("192.168.1.20")], tailscale0: [v4("100.100.1.2")] },
			host: "127.0.0.1",
			urls: ["http://127.0.0.1:47821"],
			kinds: ["loopback"],
			baseUrl: "http://127.0.0.1:47821",
		},
		{
			name: "overlay IP first, LAN next; v2 baseUrl prefers the LAN address",
			interfaces: { lo: [v4("127.0.0.1", true)], eth0: [v4("192.168.1.20")], tailscale0: [v4("100.100.1.2"), v6("fd7a:115c:a1e0::2")] },
			overlayHostname: "desk.tail1234.ts.net",
			host: "0.0.0.0",
			urls: ["http://100.100.1.2:47821", "http://192.168.1.20:47821"],
			kinds: ["overlay-ip", "lan"],
			baseUrl: "http://192.168.1.20:47821",
		},
		{
			name: "the overlay hostname stands in when no overlay IP is visible",
			interfaces: { eth0: [v4("10.0.0.8")] },
			overlayHostname: "desk.tail1234.ts.net",
			host: "0.0.0.0",
			urls: ["http://desk.tail1234.ts.net:47821", "http://10.0.0.8:47821"],
			kinds: ["overlay-hostname", "lan"],
			baseUrl: "http://10.0.0.8:47821",
		},
		{
			name: "one address per class; container bridges lose to real interfaces; 192.168 before 10 and 172.16",
			interfaces: { docker0: [v4("172.17.0.1")], eth1: [v4("10.1.2.3")], wlan0: [v4("192.168.0.7")], eth2: [v4("203.0.113.9")], eth3: [v4("198.51.100.1")] },
			host: "0.0.0.0",
			urls: ["http://192.168.0.7:47821", "http://203.0.113.9:47821"],
			kinds: ["lan", "other"],
			baseUrl: "http://192.168.0.7:47821",
		},
		{
			name: "a container bridge is no LAN for a phone: with real addresses elsewhere it is left out, and is not the v2 baseUrl",
			interfaces: { tailscale0: [v4("100.70.0.1")], eth0: [v4("203.0.113.9")], docker0: [v4("172.17.0.1")], "br-1a2b3c": [v4("172.18.0.1")], veth12ab: [v4("10.200.0.1")] },
			host: "0.0.0.0",
			urls: ["http://100.70.0.1:47821", "http://203.0.113.9:47821"],
			kinds: ["overlay-ip", "other"],
			baseUrl: "http://100.70.0.1:47821",
		},
		{
			name: "a real LAN address is the v2 baseUrl even when a bridge is listed first",
			interfaces: { docker0: [v4("172.17.0.1")], virbr0: [v4("192.168.122.1")], wlp2s0: [v4("10.0.0.23")] },
			host: "0.0.0.0",
			urls: ["http://10.0.0.23:47821"],
			kinds: ["lan"],
			baseUrl: "http://10.0.0.23:47821",
		},
		{
			name: "only container bridges: they are all there is (a VM or container on this machine may pair)",
			interfaces: { lo: [v4("127.0.0.1", true)], docker0: [v4("172.17.0.1")] },
			host: "0.0.0.0",
			urls: ["http://172.17.0.1:47821"],
			kinds: ["lan"],
			baseUrl: "http://172.17.0.1:47821",
		},
		{
			name: "without a LAN address the v2 baseUrl is the first URL",
			interfaces: { tailscale0: [v4("100.70.0.1")], eth0: [v4("203.0.113.9")] },
			host: "0.0.0.0",
			urls: ["http://100.70.0.1:47821", "http://203.0.113.9:47821"],
			kinds: ["overlay-ip", "other"],
			baseUrl: "http://100.70.0.1:47821",
		},
		{
			name: "0.0.0.0 is not reachable over IPv6: IPv6 addresses are left out",
			interfaces: { tailscale0: [v6("fd7a:115c:a1e0::9")], eth0: [v6("2001:db8::5"), v4("192.168.5.5")] },
			host: "0.0.0.0",
			urls: ["http://192.168.5.5:47821"],
			kinds: ["lan"],
			baseUrl: "http://192.168.5.5:47821",
		},
		{
			name: "bound to :: the IPv6 overlay address counts, in brackets; IPv4 preferred inside a class",
			interfaces: { tailscale0: [v6("fd7a:115c:a1e0::9")], eth0: [v6("2001:db8::5"), v4("192.168.5.5")] },
			host: "::",
			urls: ["http://[fd7a:115c:a1e0::9]:47821", "http://192.168.5.5:47821", "http://[2001:db8::5]:47821"],
			kinds: ["overlay-ip", "lan", "other"],
			baseUrl: "http://192.168.5.5:47821",
		},
		{
			name: "bound to one address: only that address",
			interfaces: { eth0: [v4("192.168.1.20")], tailscale0: [v4("100.100.1.2")] },
			host: "192.168.1.20",
			urls: ["http://192.168.1.20:47821"],
			kinds: ["lan"],
			baseUrl: "http://192.168.1.20:47821",
		},
		{
			name: "link-local and internal addresses are never offered; nothing left means loopback",
			interfaces: { lo: [v4("127.0.0.1", true)], eth0: [v4("169.254.1.1"), v6("fe80::1")] },
			host: "0.0.0.0",
			urls: ["http://127.0.0.1:47821"],
			kinds: ["loopback"],
			baseUrl: "http://127.0.0.1:47821",
		},
	];
	it.each(cases)("$name", ({ interfaces, overlayHostname, host, urls, kinds, baseUrl }) => {
		const endpoints = classifyEndpoints({ interfaces, overlayHostname, host, port });
		expect(endpoints.map((e) => e.url)).toEqual(urls);
		expect(endpoints.map((e) => e.kind)).toEqual(kinds);
		const priorities = endpoints.map((e) => e.priority);
		expect([...priorities].sort((a, b) => a - b)).toEqual(priorities); // best first
		expect(legacyBaseUrl(endpoints)).toBe(baseUrl);
	});

	it("is pure: same input, same answer, input untouched", () => {
		const interfaces = { eth0: [v4("192.168.1.20")], tailscale0: [v4("100.100.1.2")] };
		const copy = structuredClone(interfaces);
		const a = classifyEndpoints({ interfaces, host: "0.0.0.0", port: 1 });
		const b = classifyEndpoints({ interfaces, host: "0.0.0.0", port: 1 });
		expect(a).toEqual(b);
		expect(interfaces).toEqual(copy);
	});
});

describe("nextRefreshDelay", () => {
	const t0 = 1_000_000;
	it.each([
		{ name: "10 s before a 120 s code expires", expiresAt: t0 + 120_000, last: t0, now: t0, delay: 110_000 },
		{ name: "never sooner than 5 s after the last refresh", expiresAt: t0 + 12_000, last: t0, now: t0, delay: 5_000 },
		{ name: "already due: now", expiresAt: t0 + 8_000, last: t0 - 60_000, now: t0, delay: 0 },
		{ name: "later in the code's life", expiresAt: t0 + 120_000, last: t0, now: t0 + 100_000, delay: 10_000 },
	])("$name", ({ expiresAt, last, now, delay }) => {
		expect(nextRefreshDelay(expiresAt, last, now)).toBe(delay);
	});
});

describe("parsePairingPayload", () => {
	it("reads version 3 with baseUrls in order", () => {
		const p = parsePairingPayload(JSON.stringify({ v: 3, name: "Desk", baseUrl: "http://192.168.1.2:1", baseUrls: ["http://100.64.0.1:1", "http://192.168.1.2:1"], pairToken: "s" }));
		expect(p).toEqual({ v: 3, name: "Desk", baseUrls: ["http://100.64.0.1:1", "http://192.168.1.2:1"], pairToken: "s" });
	});
	it("reads version 2 through the legacy baseUrl", () => {
		expect(parsePairingPayload({ v: 2, baseUrl: "http://192.168.1.2:47821/", pairToken: "s" }).baseUrls).toEqual(["http://192.168.1.2:47821"]);
	});
	it.each([
		["not json", "{oops"],
		["an array", "[]"],
		["version 4", JSON.stringify({ v: 4, baseUrl: "http://a:1", pairToken: "s" })],
		["no token", JSON.stringify({ v: 3, baseUrls: ["http://a:1"] })],
		["no URL", JSON.stringify({ v: 3, pairToken: "s" })],
		["a javascript: URL", JSON.stringify({ v: 3, baseUrls: ["javascript:alert(1)"], pairToken: "s" })],
		["baseUrls not an array", JSON.stringify({ v: 3, baseUrls: "http://a:1", pairToken: "s" })],
	])("refuses %s with a clear message", (_name, text) => {
		expect(() => parsePairingPayload(text)).toThrow(PayloadError);
	});
});

describe("parseHostHeader", () => {
	it.each([
		["127.0.0.1:47821", { name: "127.0.0.1", port: 47821 }],
		["LOCALHOST:80", { name: "localhost", port: 80 }],
		["[::1]:5", { name: "::1", port: 5 }],
		["evil.example", { name: "evil.example", port: 80 }],
		["desk.tail1234.ts.net.:9", { name: "desk.tail1234.ts.net", port: 9 }],
	])("%s", (value, parsed) => expect(parseHostHeader(value)).toEqual(parsed));
	it.each([[undefined], [""], ["a:b:c"], ["host:99999999"], ["x y"]])("refuses %s", (value) => {
		expect(parseHostHeader(value)).toBeNull();
	});
});

describe("tailscaleHostname", () => {
	it("is null, not an error, when the tailscale CLI is absent", async () => {
		const path = process.env.PATH;
		process.env.PATH = "/nonexistent";
		try {
			expect(await tailscaleHostname()).toBeNull();
		} finally {
			process.env.PATH = path;
		}
	});
});

describe("CodeRefresher (the terminal's code refresh)", () => {
	afterEach(() => vi.useRealTimers());

	it("refreshes 10 s before expiry, never sooner than 5 s after the last, and on demand", async () => {
		vi.useFakeTimers({ now: 1_000_000 });
		let life = 120_000;
		const fetched: number[] = [];
		const r = new CodeRefresher({
			fetchCode: async () => {
				fetched.push(Date.now());
				return { expiresAt: new Date(Date.now() + life).toISOString() };
			},
			show: () => {},
		});
		await r.refresh();
		expect(fetched).toEqual([1_000_000]);
		await vi.advanceTimersByTimeAsync(109_999);
		expect(fetched).toHaveLength(1);
		await vi.advanceTimersByTimeAsync(1);
		expect(fetched).toEqual([1_000_000, 1_110_000]);

		// On demand (a key press): at once, and the schedule starts over.
		await vi.advanceTimersByTimeAsync(50_000);
		await r.refresh();
		expect(fetched.at(-1)).toBe(1_160_000);
		await vi.advanceTimersByTimeAsync(109_999);
		expect(fetched).toHaveLength(3);
		await vi.advanceTimersByTimeAsync(1);
		expect(fetched.at(-1)).toBe(1_270_000);

		// A code that lives only 12 s: the next one comes after 5 s, not 2 s.
		life = 12_000;
		await r.refresh();
		const at = fetched.at(-1)!;
		await vi.advanceTimersByTimeAsync(4_999);
		expect(fetched.at(-1)).toBe(at);
		await vi.advanceTimersByTimeAsync(1);
		expect(fetched.at(-1)).toBe(at + 5_000);
		r.stop();
		await vi.advanceTimersByTimeAsync(600_000);
		expect(fetched.at(-1)).toBe(at + 5_000);
	});

	it("retries a failed fetch after the minimum delay", async () => {
		vi.useFakeTimers({ now: 0 });
		let calls = 0;
		const errors: unknown[] = [];
		const r = new CodeRefresher({
			fetchCode: async () => {
				calls++;
				if (calls === 1) throw new Error("server busy");
				return { expiresAt: Date.now() + 120_000 };
			},
			show: () => {},
			onError: (e) => errors.push(e),
		});
		await r.refresh();
		expect(errors).toHaveLength(1);
		await vi.advanceTimersByTimeAsync(5_000);
		expect(calls).toBe(2);
		r.stop();
	});
});
