import { afterEach, beforeEach, describe, it } from "vitest";
import { type Client, createClient, type Options, SDK_VERSION } from "../src/client";
import type { StackFrame } from "../src/event";
import * as logger from "../src/index";
import { retryAfterMs } from "../src/transport";
import { type Recorder, startRecorder } from "./recorder";

const KEY = "svc_test_key_0123456789";
let recorder: Recorder;
let client: Client | undefined;

beforeEach(async () => {
	recorder = await startRecorder();
});

afterEach(async () => {
	await client?.close(0);
	client = undefined;
	await recorder.close();
});

/** A logger in this process: uncaught errors are the test runner's, so not hooked here. */
function start(options: Partial<Options> = {}) {
	client = createClient({ key: KEY, endpoint: recorder.url, captureUncaught: false, ...options });
	return client;
}

describe("the events the SDK sends", () => {
	it("posts an exception with the key header, scope, SDK tags and Node's runtime", async ({ expect }) => {
		const log = start({ environment: "production", release: "shop@2.4.1" });
		log.setUser({ id: 42, email: "ada@example.com" });
		log.setTag("region", "eu-west");
		log.setTag("build", 1187);
		log.addBreadcrumb({ category: "http", message: "GET /api/cart 200", data: { ms: 31 } });
		log.captureException(new TypeError("cart is empty", { cause: new Error("no rows") }), { tags: { order_id: "ord_7" } });
		expect(await log.flush(5_000)).toBe(true);

		const [{ path, headers, event }] = await recorder.until(1);
		expect(path).toBe("/api/app-logs-ingest");
		expect(headers["x-svc-key"]).toBe(KEY);
		expect(headers["content-type"]).toBe("application/json");
		expect(event).toMatchObject({
			level: "error",
			environment: "production",
			release: "shop@2.4.1",
			platform: "node",
			user: { id: 42, email: "ada@example.com" },
			contexts: { runtime: { name: "node", version: process.version } },
			breadcrumbs: [{ category: "http", message: "GET /api/cart 200", data: { ms: 31 } }],
		});
		// The SDK's own tags come first: the endpoint keeps the first 50.
		expect(Object.entries(event.tags)).toEqual([
			["sdk_name", "@svcapp/logger"],
			["sdk_version", SDK_VERSION],
			["region", "eu-west"],
			["build", "1187"],
			["order_id", "ord_7"],
		]);
		expect(SDK_VERSION).toBe("1.0.0");
		expect(event.exception?.values.map((e) => e.value)).toEqual(["no rows", "cart is empty"]);
		expect(event.exception?.values.at(-1)?.mechanism).toEqual({ type: "generic", handled: true, exception_id: 0 });
		expect(Date.parse(event.timestamp)).not.toBeNaN();
	});

	it("sends messages at `info` unless told otherwise, and per-event level, user and fingerprint", async ({ expect }) => {
		const log = start();
		log.captureMessage("cache warmed");
		log.captureMessage("disk almost full", "warning", { user: { username: "ops" }, fingerprint: ["disk", "{{ default }}"] });
		await log.flush(5_000);
		const received = await recorder.until(2);
		const byMessage = Object.fromEntries(received.map(({ event }) => [event.message, event]));
		expect(byMessage["cache warmed"]).toMatchObject({ level: "info" });
		expect(byMessage["cache warmed"].exception).toBeUndefined();
		expect(byMessage["disk almost full"]).toMatchObject({ level: "warning", user: { username: "ops" }, fingerprint: ["disk", "{{ default }}"] });
	});

	it("keeps the newest 100 breadcrumbs: at 100 all of them, at 101 the oldest is gone", async ({ expect }) => {
		const log = start();
		for (let i = 1; i <= 100; i++) log.addBreadcrumb({ message: `step ${i}` });
		log.captureMessage("after 100");
		log.addBreadcrumb({ message: "step 101" });
		log.captureMessage("after 101");
		await log.flush(5_000);
		const received = await recorder.until(2);
		const crumbs = (message: string) => received.find((r) => r.event.message === message)!.event.breadcrumbs.map((b) => b.message);
		expect(crumbs("after 100")).toHaveLength(100);
		expect(crumbs("after 100").at(0)).toBe("step 1");
		expect(crumbs("after 101")).toHaveLength(100);
		expect(crumbs("after 101").at(0)).toBe("step 2");
		expect(crumbs("after 101").at(-1)).toBe("step 101");
	});

	it("snapshots breadcrumb data, and leaves out data JSON cannot hold", async ({ expect }) => {
		const log = start();
		const data: Record<string, unknown> = { items: 1 };
		log.addBreadcrumb({ message: "added", data });
		data.items = 2;
		const cycle: Record<string, unknown> = {};
		cycle.self = cycle;
		log.addBreadcrumb({ message: "cyclic", data: cycle });
		log.captureMessage("checkout");
		await log.flush(5_000);
		const [{ event }] = await recorder.until(1);
		expect(event.breadcrumbs.map(({ message, data }) => ({ message, data }))).toEqual([
			{ message: "added", data: { items: 1 } },
			{ message: "cyclic", data: undefined },
		]);
	});

	it("names the injected scripts' debug ids with a message's stack, as with an exception's", async ({ expect }) => {
		const registry = globalThis as { _sentryDebugIds?: Record<string, string> };
		// What a script after `sentry-cli sourcemaps inject` records: a stack taken inside it, and its id.
		registry._sentryDebugIds = { [new Error().stack ?? ""]: "e1e8570f-7c42-515d-a5d5-d407b0da4295" };
		try {
			const log = start();
			// As the SDK's captureMessage does: the stack made in it, whose newest frame (its own) is left out.
			const captureMessage = (message: string) => log.captureMessage(message, "warning", undefined, new Error());
			captureMessage("checkout slow");
			await log.flush(5_000);
			const [{ event }] = await recorder.until(1);
			const file = event.exception?.values[0].stacktrace?.frames.at(-1)?.filename;
			expect(file).toMatch(/client\.test\.ts$/);
			expect(event.debug_meta).toEqual({ images: [{ type: "sourcemap", code_file: file, debug_id: "e1e8570f-7c42-515d-a5d5-d407b0da4295" }] });
		} finally {
			delete registry._sentryDebugIds;
		}
	});

	it("records console.error and console.warn as breadcrumbs and still prints them", async ({ expect }) => {
		const printed: unknown[][] = [];
		const original = { error: console.error, warn: console.warn };
		console.error = (...args: unknown[]) => printed.push(["error", ...args]);
		console.warn = (...args: unknown[]) => printed.push(["warn", ...args]);
		try {
			const log = start();
			console.error("payment failed:", new RangeError("amount must be positive"), { code: 402 });
			console.warn("slow response", 1200);
			log.captureMessage("checkout");
			await log.flush(5_000);
			await log.close(0);
			console.error("after close");
			expect(printed).toEqual([
				["error", "payment failed:", expect.any(RangeError), { code: 402 }],
				["warn", "slow response", 1200],
				["error", "after close"],
			]);
			const [{ event }] = await recorder.until(1);
			expect(event.breadcrumbs.map(({ category, level, message }) => ({ category, level, message }))).toEqual([
				{ category: "console", level: "error", message: 'payment failed: RangeError: amount must be positive {"code":402}' },
				{ category: "console", level: "warning", message: "slow response 1200" },
			]);
		} finally {
			Object.assign(console, original);
		}
	});

	it("cuts messages to 8,192 characters", async ({ expect }) => {
		const log = start();
		log.captureMessage("m".repeat(8_192));
		log.captureMessage("n".repeat(8_193));
		await log.flush(5_000);
		expect((await recorder.until(2)).map((r) => r.event.message)).toEqual(["m".repeat(8_192), "n".repeat(8_192)]);
	});

	it("sends an event of 512,000 characters whole, and one character more without its breadcrumbs", async ({ expect }) => {
		// One breadcrumb padded to a chosen size, in a logger of its own each time.
		const sendPadded = async (message: string, pad: number) => {
			const log = createClient({ key: KEY, endpoint: recorder.url, captureUncaught: false, consoleBreadcrumbs: false });
			log.addBreadcrumb({ message: "pad", data: { pad: "p".repeat(pad) } });
			log.captureMessage(message);
			await log.close(5_000);
		};
		await sendPadded("probe", 0);
		const [probe] = await recorder.until(1);
		const fill = 512_000 - probe.chars;
		await sendPadded("limit", fill);
		await sendPadded("past!", fill + 1);
		const [, atLimit, pastLimit] = await recorder.until(3);
		expect([atLimit.event.message, atLimit.chars, atLimit.event.breadcrumbs.length]).toEqual(["limit", 512_000, 1]);
		expect([pastLimit.event.message, pastLimit.event.breadcrumbs.length]).toEqual(["past!", 0]);
	});
});

describe("what the SDK never does to the host application", () => {
	it("never records or captures what its own work causes: console calls and captures inside beforeSend", async ({ expect }) => {
		const original = console.error;
		console.error = () => {};
		try {
			const log = start({
				beforeSend(event) {
					console.error("inside beforeSend");
					log.captureException(new Error("captured inside beforeSend"));
					log.addBreadcrumb({ message: "added inside beforeSend" });
					return event;
				},
			});
			log.captureException(new Error("first"));
			log.captureException(new Error("second"));
			await log.flush(5_000);
			const received = await recorder.until(2);
			expect(received.map((r) => r.event.exception?.values.at(-1)?.value)).toEqual(["first", "second"]);
			expect(received[1].event.breadcrumbs).toEqual([]);
		} finally {
			console.error = original;
		}
	});

	it("drops what beforeSend drops or fails on, and sends what it changes", async ({ expect }) => {
		const log = start({
			beforeSend(event) {
				if (event.message === "drop me") return null;
				if (event.message === "break me") throw new Error("bug in beforeSend");
				return { ...event, tags: { ...event.tags, scrubbed: "yes" } };
			},
		});
		expect(() => log.captureMessage("drop me")).not.toThrow();
		expect(() => log.captureMessage("break me")).not.toThrow();
		log.captureMessage("keep me");
		await log.flush(5_000);
		const received = await recorder.until(1);
		expect(received.map((r) => [r.event.message, r.event.tags.scrubbed])).toEqual([["keep me", "yes"]]);
	});

	it("reports an error once when it is captured, rethrown and captured again", async ({ expect }) => {
		const log = start();
		const error = new Error("reported then rethrown");
		log.captureException(error);
		log.captureException(error);
		log.captureMessage("marker");
		await log.flush(5_000);
		expect((await recorder.until(2)).map((r) => r.event.message ?? r.event.exception?.values[0].value)).toEqual(["reported then rethrown", "marker"]);
	});

	it("never throws and still flushes when the endpoint cannot be reached", async ({ expect }) => {
		const unreachable = recorder.url;
		await recorder.close();
		const log = createClient({ key: KEY, endpoint: unreachable, captureUncaught: false });
		client = log;
		expect(() => log.captureException(new Error("nobody listens"))).not.toThrow();
		expect(await log.flush(10_000)).toBe(true);
		recorder = await startRecorder();
	});

	it("holds at most maxQueue events waiting or in flight: the one past the bound is dropped", async ({ expect }) => {
		recorder.answerWith("hold");
		const log = start({ maxQueue: 3 });
		for (let i = 1; i <= 4; i++) log.captureMessage(`event ${i}`);
		// Two requests at a time: two arrive while the others wait in the queue.
		await recorder.until(2);
		expect(await log.flush(100)).toBe(false);
		recorder.answerWith({ status: 200 });
		recorder.release();
		expect(await log.flush(5_000)).toBe(true);
		expect((await recorder.until(3)).map((r) => r.event.message).sort()).toEqual(["event 1", "event 2", "event 3"]);
		log.captureMessage("event 5");
		await log.flush(5_000);
		expect((await recorder.until(4)).at(-1)?.event.message).toBe("event 5");
	});

	it("after a 429, drops events until Retry-After has passed", async ({ expect }) => {
		recorder.answerWith({ status: 429, headers: { "retry-after": "1" } });
		const log = start();
		log.captureMessage("answered 429");
		await log.flush(5_000);
		recorder.answerWith({ status: 200 });
		const pausedAt = Date.now();
		log.captureMessage("during the pause");
		await log.flush(5_000);
		expect(recorder.received.map((r) => r.event.message)).toEqual(["answered 429"]);

		await new Promise((resolve) => setTimeout(resolve, 1_000 - (Date.now() - pausedAt) + 50));
		log.captureMessage("after the pause");
		await log.flush(5_000);
		expect((await recorder.until(2)).map((r) => r.event.message)).toEqual(["answered 429", "after the pause"]);
	});

	it("reads Retry-After as seconds or as an HTTP date, and pauses a minute without one", ({ expect }) => {
		const now = Date.parse("2026-03-01T12:00:00Z");
		expect(retryAfterMs("120", now)).toBe(120_000);
		expect(retryAfterMs("0", now)).toBe(0);
		expect(retryAfterMs("Sun, 01 Mar 2026 12:00:30 GMT", now)).toBe(30_000);
		expect(retryAfterMs("Sun, 01 Mar 2026 11:59:00 GMT", now)).toBe(0);
		expect(retryAfterMs(null, now)).toBe(60_000);
		expect(retryAfterMs("soon", now)).toBe(60_000);
	});

	it("posts to the ingest path of any endpoint form", async ({ expect }) => {
		for (const endpoint of [recorder.url, `${recorder.url}/`, `${recorder.url}/api/app-logs-ingest`, `${recorder.url}/svc/`]) {
			const log = createClient({ key: KEY, endpoint, captureUncaught: false, consoleBreadcrumbs: false });
			log.captureMessage(endpoint);
			await log.close(5_000);
		}
		expect((await recorder.until(4)).map((r) => r.path)).toEqual([
			"/api/app-logs-ingest",
			"/api/app-logs-ingest",
			"/api/app-logs-ingest",
			"/svc/api/app-logs-ingest",
		]);
	});
});

describe("the module's functions", () => {
	afterEach(() => logger.close(0));

	it("do nothing before init, or after an init without a key, and never throw", async ({ expect }) => {
		expect(() => logger.captureException(new Error("before init"))).not.toThrow();
		expect(await logger.flush(10)).toBe(true);
		expect(() => logger.init({ endpoint: recorder.url } as Options)).not.toThrow();
		expect(() => logger.init(undefined as unknown as Options)).not.toThrow();
		logger.captureMessage("no key");
		expect(await logger.flush(10)).toBe(true);
		expect(recorder.received).toEqual([]);
	});

	it("send a message with the stack it was captured at, as Sentry's SDKs do, unless attachStacktrace is false", async ({ expect }) => {
		function warnLowStock(sku: string) {
			logger.captureMessage(`stock low for ${sku}`, "warning");
		}
		logger.init({ key: KEY, endpoint: recorder.url, captureUncaught: false });
		warnLowStock("A1");
		await logger.close(5_000);
		logger.init({ key: KEY, endpoint: recorder.url, captureUncaught: false, attachStacktrace: false });
		warnLowStock("B2");
		await logger.close(5_000);
		const [withStack, without] = (await recorder.until(2)).map((r) => r.event);
		expect(withStack).toMatchObject({ message: "stock low for A1", level: "warning" });
		expect(withStack.exception?.values).toEqual([
			{ value: "stock low for A1", stacktrace: { frames: expect.any(Array) }, mechanism: { type: "generic", handled: true, synthetic: true, exception_id: 0 } },
		]);
		// Its newest frame is the caller: the SDK's own (src/index.ts) is left out.
		const frames = withStack.exception?.values[0].stacktrace?.frames ?? [];
		expect(frames.at(-1)).toMatchObject({ function: "warnLowStock", filename: expect.stringMatching(/client\.test\.ts$/) });
		expect(frames.filter((frame) => frame.filename?.includes("/src/"))).toEqual([]);
		expect(without).toMatchObject({ message: "stock low for B2" });
		expect(without.exception).toBeUndefined();
	});

	it("send of a message's stack cut at Error.stackTraceLimit the frames @sentry/node sends: two fewer than the limit", async ({ expect }) => {
		const nested = (depth: number): void => (depth === 0 ? logger.captureMessage(`deep ${Error.stackTraceLimit}`) : nested(depth - 1));
		const before = Error.stackTraceLimit;
		logger.init({ key: KEY, endpoint: recorder.url, captureUncaught: false });
		try {
			for (const limit of [10, 25]) {
				Error.stackTraceLimit = limit;
				nested(30);
			}
			// Not cut: every frame of the call, less the SDK's own.
			Error.stackTraceLimit = 200;
			nested(3);
		} finally {
			Error.stackTraceLimit = before;
		}
		await logger.close(5_000);
		const frames = Object.fromEntries((await recorder.until(3)).map((r): [string, StackFrame[]] => [r.event.message ?? "", r.event.exception?.values[0].stacktrace?.frames ?? []]));
		expect(frames["deep 10"]).toHaveLength(8);
		expect(frames["deep 25"]).toHaveLength(23);
		expect(frames["deep 200"].filter((frame) => frame.function === "nested")).toHaveLength(4);
		expect(frames["deep 200"].at(0)?.function).not.toBe("nested");
	});

	it("send once initialized, and nothing after close", async ({ expect }) => {
		logger.init({ key: KEY, endpoint: recorder.url, captureUncaught: false });
		logger.setTag("tier", "gold");
		logger.setTag("tier", null);
		logger.setUser({ id: "u1" });
		logger.setUser(null);
		logger.addBreadcrumb({ message: "opened" });
		logger.captureException(new Error("sent"));
		expect(await logger.close(5_000)).toBe(true);
		logger.captureMessage("after close");
		expect(await logger.flush(10)).toBe(true);
		const received = await recorder.until(1);
		expect(received).toHaveLength(1);
		expect(received[0].event.tags.tier).toBeUndefined();
		expect(received[0].event.user).toBeUndefined();
		expect(received[0].event.breadcrumbs.map((b) => b.message)).toEqual(["opened"]);
	});
});
