import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, it } from "vitest";
import { type Recorder, startRecorder } from "./recorder";

/** A Node application importing the built package by its name (see fixtures/node-app.mjs). */
const APP = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "node-app.mjs");
const KEY = "svc_process_test_key";

let recorder: Recorder;
beforeEach(async () => {
	recorder = await startRecorder();
});
afterEach(() => recorder.close());

function runApp(mode: string, env: Record<string, string> = {}) {
	const child = spawn(process.execPath, [APP, mode], {
		env: { ...process.env, SVC_ENDPOINT: recorder.url, SVC_KEY: KEY, ...env },
	});
	let stdout = "";
	let stderr = "";
	child.stdout.on("data", (chunk) => (stdout += chunk));
	child.stderr.on("data", (chunk) => (stderr += chunk));
	return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
		child.on("close", (code) => resolve({ code, stdout, stderr })),
	);
}

/** The fixture's line `n` and the five lines either side of it. */
function sourceAround(n: number) {
	const lines = readFileSync(APP, "utf8").split("\n");
	return { pre_context: lines.slice(n - 6, n - 1), context_line: lines[n - 1], post_context: lines.slice(n, n + 5) };
}

/** Node's own report of an uncaught error opens with the throwing line and a caret; the rest is the error. */
const withoutSourceArrow = (stderr: string) => stderr.replace(/^file:\/\/\S+:\d+\n.*\n\s*\^+\n\n/m, "");

describe("in a Node process", () => {
	it("reports an uncaught exception, then crashes as Node would: same output, exit code 1", async ({ expect }) => {
		const [withSdk, nodeAlone] = await Promise.all([runApp("uncaught"), runApp("uncaught", { NO_SDK: "1" })]);
		expect(withSdk.code).toBe(1);
		expect(nodeAlone.code).toBe(1);
		expect(withSdk.stderr).toBe(withoutSourceArrow(nodeAlone.stderr));
		expect(withSdk.stderr).toContain(`TypeError: card declined for order 7\n    at chargeCard (file://${APP}:`);
		expect(withSdk.stderr).toContain(`[cause]: Error: issuer unavailable`);

		const [{ headers, event }] = await recorder.until(1);
		expect(headers["x-svc-key"]).toBe(KEY);
		expect(event).toMatchObject({
			level: "fatal",
			platform: "node",
			environment: "test",
			release: "node-app@1.0.0",
			user: { id: "user-1" },
			tags: { sdk_name: "@svcapp/logger", sdk_version: "1.0.0", mode: "uncaught" },
		});
		expect(event.breadcrumbs.map((b) => b.message)).toEqual(["started", "about to charge the card"]);
		const [cause, reported] = event.exception!.values;
		expect(cause).toMatchObject({ type: "Error", value: "issuer unavailable", mechanism: { source: "cause", parent_id: 0 } });
		expect(reported).toMatchObject({ type: "TypeError", value: "card declined for order 7", mechanism: { type: "onuncaughtexception", handled: false } });
		// Named and read as @sentry/node names and reads them: the main script's directory is the app's.
		expect(reported.stacktrace!.frames.slice(-2)).toEqual([
			{ function: "Timeout.processPayment [as _onTimeout]", filename: APP, module: "node-app", lineno: 30, colno: 4, in_app: true, ...sourceAround(30) },
			{ function: "chargeCard", filename: APP, module: "node-app", lineno: 24, colno: 8, in_app: true, ...sourceAround(24) },
		]);
		expect(reported.stacktrace!.frames.at(-1)?.context_line).toMatch(/^\tthrow new TypeError\(/);
		expect(reported.stacktrace!.frames.slice(0, -2).every((frame) => frame.in_app === false)).toBe(true);
	});

	it("reports an unhandled rejection, which Node by default also crashes on", async ({ expect }) => {
		const [withSdk, nodeAlone] = await Promise.all([runApp("rejection"), runApp("rejection", { NO_SDK: "1" })]);
		expect([withSdk.code, nodeAlone.code]).toEqual([1, 1]);
		expect(withSdk.stderr).toBe(withoutSourceArrow(nodeAlone.stderr));
		const [{ event }] = await recorder.until(1);
		expect(event.exception!.values.at(-1)).toMatchObject({
			type: "TypeError",
			value: "card declined for order 8",
			mechanism: { type: "onunhandledrejection", handled: false },
		});
	});

	it("leaves the process running when the application listens for uncaught exceptions itself", async ({ expect }) => {
		const run = await runApp("own-listener");
		expect(run.code).toBe(0);
		expect(run.stdout).toBe("the app handled: card declined for order 9\nstill running\n");
		const [{ event }] = await recorder.until(1);
		expect(event.exception!.values.at(-1)?.value).toBe("card declined for order 9");
	});

	it("still exits after an uncaught exception when the endpoint does not answer", async ({ expect }) => {
		recorder.answerWith("hold");
		const run = await runApp("uncaught", { SHUTDOWN_MS: "200" });
		expect(run.code).toBe(1);
		expect(run.stderr).toContain("TypeError: card declined for order 7");
		expect(await recorder.until(1)).toHaveLength(1);
	});

	it("lets a short-lived process flush before it exits", async ({ expect }) => {
		const run = await runApp("short-lived");
		expect(run).toMatchObject({ code: 0, stdout: "flushed: true\n" });
		expect(recorder.received.map((r) => r.event.message)).toEqual(["nightly job done"]);
		// With the stack it was captured at, as @sentry/node sends a message: the SDK's own frame left out.
		const [site] = recorder.received[0].event.exception!.values;
		expect(site).toMatchObject({ value: "nightly job done", mechanism: { type: "generic", handled: true, synthetic: true } });
		expect(site.type).toBeUndefined();
		expect(site.stacktrace!.frames.at(-1)).toMatchObject({ filename: APP, module: "node-app", lineno: 42, in_app: true, context_line: '\t\tlogger.captureMessage("nightly job done");' });
		expect(site.stacktrace!.frames.filter((frame) => frame.filename?.includes("svc-logger"))).toEqual([]);
	});
});
