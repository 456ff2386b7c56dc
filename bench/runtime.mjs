// The runtime `npm run bench` measures on: workerd started through Miniflare's API, serving the
// app (bundled by wrangler from wrangler.toml, with its D1, R2 and SQLite-backed Durable Object
// bindings and its migrations) and the reference Worker, and in a second workerd the baseline
// Worker, each on its own loopback socket straight into the Worker: no entry worker or proxy in
// front of any of them. Fresh processes per measured path, so no path's leftover work (alarms,
// flushes) runs during another's. The baseline has a process of its own because workerd serves
// every isolate of a process on one thread: its isolate's last full garbage collection of a run,
// due as the run ended, fell at the start of the app's run, where it was counted as the app's and
// could hold the app's first requests.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
// The package exports only its API; its command line lives beside it.
const WRANGLER = join(dirname(createRequire(import.meta.url).resolve("wrangler")), "..", "bin", "wrangler.js");

/**
 * The app as `wrangler deploy` would upload it, with bench/countingWorker.mjs as the entry in
 * place of workers/index.ts (it re-exports the app's handler and classes).
 */
async function bundleApp(outdir) {
	// wrangler.toml serves the console's build as assets; the directory must exist even when the
	// console has not been built.
	await mkdir(join(ROOT, "console", "dist"), { recursive: true });
	await promisify(execFile)(process.execPath, [WRANGLER, "deploy", "bench/countingWorker.mjs", "--dry-run", "--outdir", outdir], {
		cwd: ROOT,
		env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
		maxBuffer: 16 * 1024 * 1024,
	});
	return join(outdir, "countingWorker.js");
}

/**
 * The bundle's modules, entry first, typed by wrangler's module rules (the tracker script is a
 * Text module beside the JavaScript).
 */
async function bundleModules(outdir, entry, modulesRules) {
	const typeOf = (file) => modulesRules.find((rule) => rule.include.some((glob) => file.endsWith(glob.replace("**/*", ""))))?.type;
	const others = (await readdir(outdir)).map((file) => join(outdir, file)).filter((path) => path !== entry && typeOf(path));
	return [{ type: "ESModule", path: entry }, ...others.map((path) => ({ type: typeOf(path), path }))];
}

/** Drizzle's migration files, split at its statement breakpoints, in order. */
async function migrationStatements() {
	const dir = join(ROOT, "schema", "migrations");
	const files = (await readdir(dir)).filter((name) => name.endsWith(".sql")).sort();
	const statements = [];
	for (const file of files) {
		const text = await readFile(join(dir, file), "utf8");
		statements.push(...text.split("--> statement-breakpoint").map((s) => s.trim()).filter(Boolean));
	}
	return statements;
}

/**
 * Where D1, R2 and the Durable Objects keep their SQLite files: BENCH_STATE_DIR, else memory
 * (/dev/shm) where the system has it. workerd syncs every local SQLite commit to disk; on a
 * shared disk that wait would swamp the app's own work and vary with the neighbours' I/O.
 */
const stateRoot = () => process.env.BENCH_STATE_DIR ?? (existsSync("/dev/shm") ? "/dev/shm" : tmpdir());

/**
 * Bundles the app once; answers `start()`, which starts a fresh workerd with the app, the
 * baseline and the reference Worker on empty state, and `dispose()`. Each start answers the
 * three URLs, the app's D1 and R2 as seen from Node (for seeding and for counting stored rows),
 * the inspector's URL when `extraOptions` asks for one, workerd's full garbage collections, and
 * `close`.
 */
export async function buildRuntime(extraOptions = {}) {
	// `extraOptions` go to Miniflare as they are: `{inspectorPort: 9229}` lets a profiler attach.
	const outdir = await mkdtemp(join(tmpdir(), "svc-bench-"));
	const entry = await bundleApp(outdir);
	const { workerOptions } = unstable_getMiniflareWorkerOptions(join(ROOT, "wrangler.toml"));
	// Without `assets`: Miniflare would put its asset router in front of the Worker, a hop the
	// baseline does not take (and in wrangler.toml /api/* and /functions/* run the Worker first).
	// No path measured here reads a static asset.
	const { modulesRules, assets: _, ...appOptions } = workerOptions;
	const modules = await bundleModules(outdir, entry, modulesRules);
	const migrations = await migrationStatements();
	const socket = { host: "127.0.0.1", port: 0 };
	const benchWorker = (name, file, bindings = {}) => ({
		name,
		modules: true,
		scriptPath: join(ROOT, "bench", file),
		compatibilityDate: workerOptions.compatibilityDate,
		compatibilityFlags: workerOptions.compatibilityFlags,
		unsafeDirectSockets: [socket],
		...bindings,
	});

	/** One workerd through Miniflare's API with `workers`, and its process id (the workerd under this process that was not there before). */
	async function startWorkerd(workers, stateDir, options = {}) {
		const gc = gcTrace();
		const before = await workerdProcesses();
		// Miniflare gives workerd V8 flags only from this variable, read as it builds the config.
		process.env.MINIFLARE_WORKERD_V8_FLAGS = "--trace-gc";
		const mf = new Miniflare(convertV4MiniflareOptions({ ...options, handleStructuredLogs: gc.handleLog, resourcePersistencePath: stateDir, workers }));
		await mf.ready;
		delete process.env.MINIFLARE_WORKERD_V8_FLAGS;
		const pid = (await workerdProcesses()).find((candidate) => !before.includes(candidate)) ?? null;
		return { mf, gc, pid, url: async (worker) => (await mf.unsafeGetDirectURL(worker)).href.replace(/\/$/, "") };
	}

	async function start() {
		const stateDir = await mkdtemp(join(stateRoot(), "svc-bench-state-"));
		const app = await startWorkerd(
			[
				{ ...appOptions, name: "app", rootPath: outdir, modules, unsafeDirectSockets: [socket] },
				benchWorker("reference", "referenceWorker.mjs", {
					d1Databases: { DB: "reference" },
					durableObjects: { REFERENCE: { className: "Reference", useSQLite: true } },
				}),
			],
			stateDir,
			extraOptions,
		);
		const baseline = await startWorkerd([benchWorker("baseline", "baselineWorker.mjs")], stateDir);
		const db = await app.mf.getD1Database("DB", "app");
		await db.batch(migrations.map((sql) => db.prepare(sql)));
		return {
			app: await app.url("app"),
			baseline: await baseline.url("baseline"),
			reference: await app.url("reference"),
			/** Milliseconds of CPU the workerd serving `target` ("app", "reference" or "baseline") has used, on all its threads; null where there is no /proc. */
			cpuMs: (target) => processCpuMs(target === "baseline" ? baseline.pid : app.pid),
			db,
			bucket: await app.mf.getR2Bucket("ATTACHMENTS", "app"),
			inspector: extraOptions.inspectorPort === undefined ? null : (await app.mf.getInspectorURL()).href,
			/** The app's bundle, for naming the source file of a profiled function. */
			bundle: entry,
			/** The full garbage collections of the app's workerd so far (gcTrace). */
			gcPauses: app.gc.pauses,
			close: async () => {
				await Promise.all([app.mf.dispose(), baseline.mf.dispose()]);
				await rm(stateDir, { recursive: true, force: true });
			},
		};
	}

	return { start, dispose: () => rm(outdir, { recursive: true, force: true }) };
}

/** Linux's unit for a process's CPU time in /proc/<pid>/stat (USER_HZ, 100 on every Linux port in use). */
const CLOCK_TICKS_PER_SECOND = 100;

/** A process's name, parent and CPU time (user and system, all threads) from /proc; null when it is gone or there is no /proc. */
async function processStat(pid) {
	const text = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => null);
	if (!text) return null;
	const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
	const name = text.slice(text.indexOf("(") + 1, text.lastIndexOf(")"));
	// Fields after the name, counted from 0: 1 is the parent, 11 and 12 user and system time.
	return { name, parent: Number(fields[1]), cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND };
}

/** The workerd processes started under this one (Miniflare starts each), by process id. */
async function workerdProcesses() {
	const found = [];
	for (const pid of (await readdir("/proc").catch(() => [])).filter((name) => /^\d+$/.test(name))) {
		const stat = await processStat(pid);
		if (stat?.name !== "workerd") continue;
		for (let parent = stat.parent; parent > 1; parent = (await processStat(parent))?.parent ?? 0) {
			if (parent === process.pid) {
				found.push(pid);
				break;
			}
		}
	}
	return found;
}

/**
 * Milliseconds of CPU the process has used; null when it is unknown. Other work on the machine
 * takes cores and moves requests per second, but barely moves the CPU each request costs.
 */
const processCpuMs = async (pid) => (pid === null ? null : ((await processStat(pid))?.cpuMs ?? null));

/**
 * V8's full collections in workerd, from its `--trace-gc` lines: each stops its isolate for the
 * whole collection, and every request waiting on that isolate waits with it. A line names the
 * isolate and its time since the isolate started, but isolates start when first used, and workerd's
 * output arrives in blocks, some lines seconds late. A line never arrives before it was written, so
 * an isolate's start is taken as the earliest of its lines' arrival less their time, and `pauses()`
 * answers each collection's time (`at`, on this process's `performance.now()` clock) and length.
 */
function gcTrace() {
	const isolateStart = new Map();
	const collections = [];
	const gcLine = /^\[\d+:(0x[0-9a-f]+)\]\s+(\d+) ms: (Scavenge|Mark-Compact|Mark-Sweep|Minor Mark-Sweep)\b.*?MB, (?:pooled: [\d.]+ MB, )?([\d.]+) \//;
	return {
		pauses: () => collections.map(({ isolate, sinceStart, ms }) => ({ isolate, at: isolateStart.get(isolate) + sinceStart, ms })),
		handleLog({ level, message }) {
			const line = gcLine.exec(message);
			if (!line) return (level === "error" || level === "warn" ? console.error : console.log)(message);
			const [, isolate, sinceStart, kind, ms] = line;
			const start = performance.now() - Number(sinceStart);
			if (!(isolateStart.get(isolate) <= start)) isolateStart.set(isolate, start);
			if (kind === "Mark-Compact" || kind === "Mark-Sweep") collections.push({ isolate, sinceStart: Number(sinceStart), ms: Number(ms) });
		},
	};
}

/**
 * workerd's full garbage collections (gcTrace, above) between two times: each
 * stops its isolate for up to about 100 ms, and whichever requests are waiting on it wait too.
 */
export function gcDuring(pauses, { from, to }) {
	const during = pauses.filter((pause) => pause.at >= from && pause.at <= to);
	return { fullGcs: during.length, longestGcMs: during.length ? Math.max(...during.map((pause) => pause.ms)) : 0 };
}
