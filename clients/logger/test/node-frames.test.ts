import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { contextLinesIntegration, createGetModuleFromFilename, type Event as SentryEvent } from "@sentry/node";
import { afterAll, afterEach, beforeAll, beforeEach, describe, it } from "vitest";
import { type Client, createClient, type Options } from "../src/client";
import type { LogEvent, StackFrame } from "../src/event";
import { enrichFrames, moduleOf } from "../src/node/frames";
import "../src/node/index";
import { type Recorder, startRecorder } from "./recorder";

/**
 * What the Node entry adds to frames, checked against @sentry/node itself (from the npm registry):
 * the same module names and the same lines of source, so grouping keys both SDKs' frames alike.
 */

let dir: string;
beforeAll(async () => {
	dir = await mkdtemp(join(tmpdir(), "svc-logger-frames-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const eventWith = (frames: StackFrame[]): LogEvent => ({
	level: "error",
	tags: {},
	breadcrumbs: [],
	platform: "node",
	timestamp: new Date().toISOString(),
	exception: { values: [{ type: "Error", value: "boom", stacktrace: { frames }, mechanism: { type: "generic", handled: true, exception_id: 0 } }] },
});
const framesOf = (event: LogEvent) => event.exception?.values[0].stacktrace?.frames ?? [];
const frame = (filename: string, lineno: number, colno = 5): StackFrame => ({ filename, lineno, colno, function: "f", in_app: true });

describe("module names", () => {
	const base = "/srv/app";
	it.for([
		"/srv/app/server.js",
		"/srv/app/lib/payments/charge.mjs",
		"/srv/app/lib/legacy.cjs",
		"/srv/app/src/orders.ts",
		"/srv/app/node_modules/express/lib/router/layer.js",
		"/srv/app/node_modules/.pnpm/express@5.0.1/node_modules/express/lib/router/layer.js",
		"/srv/app/node_modules/@scope/pkg/index.js",
		"/srv/application/main.js",
		"/usr/lib/other/tool.js",
		"/srv/app/with%20space.js",
		"node:internal/process/task_queues",
		"<anonymous>",
		"main.js",
	])("%s: as @sentry/node names it", (path, { expect }) => {
		expect(moduleOf(path, base)).toBe(createGetModuleFromFilename(base, false)(path));
	});

	it("keeps a name that is not valid percent-encoding as it is (@sentry/node throws on it)", ({ expect }) => {
		expect(moduleOf("/srv/app/lib/100%.js", base)).toBe("lib:100%");
	});
});

describe("lines of source", () => {
	let source: string;
	beforeAll(async () => {
		source = join(dir, "source.js");
		const lines = Array.from({ length: 30 }, (_, i) => `const line${i + 1} = ${i + 1};`);
		lines[11] = `const long = "${"x".repeat(200)}";`;
		lines[13] = "\t\tif (indented) throw new Error('tabs');";
		await writeFile(source, lines.join("\n"));
		await writeFile(join(dir, "windows.ts"), "first();\r\nsecond();\r\nthird();\r\n");
		await writeFile(join(dir, "bundle.min.js"), "a();\nb();\n");
		await writeFile(join(dir, "data.json"), '{"a":1}\n');
	});

	it("are the lines @sentry/node's ContextLines reads, frame by frame", async ({ expect }) => {
		const frames = [
			...[0, 1, 3, 12, 14, 15, 26, 29, 30, 31, 40].map((line) => frame(source, line)),
			frame(source, 15, 1_000),
			frame(source, 15, 1_001),
			frame(join(dir, "windows.ts"), 2),
			frame(join(dir, "bundle.min.js"), 1),
			frame(join(dir, "data.json"), 1),
			frame(join(dir, "missing.js"), 1),
			frame("node:internal/timers", 1),
		];
		const ours = eventWith(structuredClone(frames));
		await enrichFrames(ours, 5);
		const theirs = (await contextLinesIntegration({ frameContextLines: 5 }).processEvent?.(
			{ exception: { values: [{ stacktrace: { frames: structuredClone(frames) } }] } } as SentryEvent,
			{},
			undefined as never,
		)) as SentryEvent;
		const lines = ({ pre_context, context_line, post_context }: Pick<StackFrame, "pre_context" | "context_line" | "post_context">) => ({
			pre_context,
			context_line,
			post_context,
		});
		const expected = theirs.exception?.values?.[0].stacktrace?.frames?.map(lines);
		expect(framesOf(ours).map(lines)).toEqual(expected);
		// Not all empty: the comparison says something.
		expect(framesOf(ours).filter((f) => f.context_line !== undefined).length).toBeGreaterThanOrEqual(9);
		expect(framesOf(ours)[3].context_line).toMatch(/^const long = "x+ \{snip\}$/);
	});

	it("reads none with contextLines 0, and still names the module", async ({ expect }) => {
		const event = eventWith([frame(source, 3)]);
		await enrichFrames(event, 0);
		expect(framesOf(event)[0].module).toBe("source");
		expect(framesOf(event)[0].context_line).toBeUndefined();
	});

	it("reads at most 50 lines before and after: asked for 51, it gives 50", async ({ expect }) => {
		const long = join(dir, "long.js");
		await writeFile(long, Array.from({ length: 200 }, (_, i) => `line(${i + 1});`).join("\n"));
		const at50 = eventWith([frame(long, 100)]);
		const at51 = eventWith([frame(long, 100)]);
		await enrichFrames(at50, 50);
		await enrichFrames(at51, 51);
		for (const event of [at50, at51]) {
			expect(framesOf(event)[0].pre_context).toHaveLength(50);
			expect(framesOf(event)[0].post_context).toHaveLength(50);
		}
		expect(framesOf(at50)[0].pre_context?.[0]).toBe("line(50);");
	});

	it("keeps the files it read: a file gone since still gives its lines", async ({ expect }) => {
		const gone = join(dir, "gone.js");
		await writeFile(gone, "one();\ntwo();\nthree();\n");
		await enrichFrames(eventWith([frame(gone, 2)]), 1);
		await unlink(gone);
		const again = eventWith([frame(gone, 2)]);
		await enrichFrames(again, 1);
		expect(framesOf(again)[0]).toMatchObject({ pre_context: ["one();"], context_line: "two();", post_context: ["three();"] });
	});

	it("reads no further than 4 MiB: a line ending at the limit is read, the line the limit cuts is not", async ({ expect }) => {
		// 4,100 lines of 1,024 bytes with their newline, so line 4,096 ends at 4 MiB, or one byte past it.
		const write = async (name: string, width4096: number) => {
			const path = join(dir, name);
			const line = (n: number) => `// ${String(n).padStart(5, "0")} ${"-".repeat((n === 4_096 ? width4096 : 1_024) - 10)}`;
			await writeFile(path, `${Array.from({ length: 4_100 }, (_, i) => line(i + 1)).join("\n")}\n`);
			return { path, line };
		};
		const exact = await write("exact.js", 1_024);
		const over = await write("over.js", 1_025);
		const event = eventWith([frame(exact.path, 4_095), frame(exact.path, 4_096), frame(exact.path, 4_097), frame(over.path, 4_095), frame(over.path, 4_096)]);
		await enrichFrames(event, 1);
		const snipped = (text: string) => `${text.slice(0, 140)} {snip}`;
		expect(framesOf(event).map((f) => [f.context_line, f.post_context?.length])).toEqual([
			[snipped(exact.line(4_095)), 1],
			[snipped(exact.line(4_096)), 0],
			[undefined, undefined],
			[snipped(over.line(4_095)), 0],
			[undefined, undefined],
		]);
	});

	it("opens only regular files: FIFOs named like source give nothing and hold none of libuv's threads", async ({ expect }) => {
		// Opening a FIFO waits for a writer in one of libuv's threads (4 unless UV_THREADPOOL_SIZE
		// says more): had these been opened, the file reads after them would never finish.
		const fifos = Array.from({ length: 16 }, (_, i) => join(dir, `pipe-${i}.js`));
		for (const fifo of fifos) execFileSync("mkfifo", [fifo]);
		const event = eventWith([...fifos.map((fifo) => frame(fifo, 1)), frame(source, 3)]);
		await enrichFrames(event, 1);
		expect(framesOf(event).map((f) => f.context_line)).toEqual([...fifos.map(() => undefined), "const line3 = 3;"]);
		expect(await Promise.all(Array.from({ length: 16 }, () => readFile(source, "utf8")))).toHaveLength(16);
	});
});

describe("a client with the Node entry", () => {
	const KEY = "svc_node_frames_key";
	let recorder: Recorder;
	let client: Client | undefined;
	beforeEach(async () => {
		recorder = await startRecorder();
	});
	afterEach(async () => {
		await client?.close(0);
		await recorder.close();
	});
	const start = (options: Partial<Options> = {}) => {
		client = createClient({ key: KEY, endpoint: recorder.url, captureUncaught: false, consoleBreadcrumbs: false, ...options });
		return client;
	};

	it("sends frames with their module and lines, which beforeSend sees, and flush waits for them", async ({ expect }) => {
		const seen: (string | undefined)[] = [];
		const log = start({
			beforeSend(event) {
				seen.push(event.exception?.values.at(-1)?.stacktrace?.frames.at(-1)?.context_line);
				return event;
			},
		});
		function failHere() {
			return new RangeError("out of stock");
		}
		log.captureException(failHere());
		expect(await log.flush(5_000)).toBe(true);
		const [{ event }] = await recorder.until(1);
		const crashSite = framesOf(event).at(-1);
		expect(crashSite).toMatchObject({ function: "failHere", module: expect.stringMatching(/node-frames\.test\.ts$/), context_line: '\t\t\treturn new RangeError("out of stock");' });
		expect(crashSite?.pre_context).toHaveLength(5);
		expect(seen).toEqual([crashSite?.context_line]);
	});

	it("holds at most maxQueue events while their lines are read: the one past the bound is dropped", async ({ expect }) => {
		const log = start({ maxQueue: 2 });
		for (const n of [1, 2, 3]) log.captureException(new Error(`error ${n}`));
		expect(await log.flush(5_000)).toBe(true);
		// Which events were kept, not the order they arrived in: two sends may be under way at once.
		expect(recorder.received.map((r) => r.event.exception?.values[0].value).sort()).toEqual(["error 1", "error 2"]);
	});
});
