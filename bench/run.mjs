// `npm run bench`: the ingestion paths (bench/paths.mjs) and the owner's read side of the app,
// driven as an owner and its clients (bench/session.mjs), on workerd started through Miniflare's
// API (bench/runtime.mjs), against a trivial Worker on the same runtime path
// measured in the same run. The machine is shared and noisy: compare ratios, not absolute speeds;
// the ratio of CPU per request moves least with the neighbours.
//
// Environment: BENCH_SECONDS (per load run, default 5), BENCH_CONNECTIONS (default 20; every
// ingestion path is also run at 64), BENCH_EVENTS (analytics events seeded, default 1,000,000; as
// many crawler visits, BENCH_CRAWLER_VISITS),
// BENCH_ISSUES (log issues seeded, default 10,000), BENCH_ONLY (comma-separated path ids, and
// `read` for the read side, to measure only those; the results file then holds only them),
// BENCH_REPEAT (default 1: how many times each path is measured at each connection count, each
// time on a fresh workerd between its own baselines; the tables and targets then use the median
// and print the range), BENCH_PROFILE (set: CPU profiles of the app's isolate and of D1's per path,
// bench/results/<run>-<path>-<connections>-<isolate>.cpuprofile, and their self time by function
// printed; sampling slows the app, so the figures of such a run are not measurements).
import { mkdir, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { drawChart } from "./chart.mjs";
import { startProfile, summarizeProfile } from "./profile.mjs";
import { buildRuntime, gcDuring, ROOT } from "./runtime.mjs";
import { D1_WRITES_TARGET, IP_POOL, P99_TARGET_MS, PATHS, SITES_PER_RUN } from "./paths.mjs";
import { readSide } from "./read.mjs";
import { perRequest, SECONDS, session, waitFor } from "./session.mjs";

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const HIGH_CONNECTIONS = 64;
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(",").map((id) => id.trim())) : null;
const chosen = (id) => !ONLY || ONLY.has(id);

const REPEAT = Math.max(1, Math.trunc(Number(process.env.BENCH_REPEAT ?? 1)) || 1);
const PROFILE = Boolean(process.env.BENCH_PROFILE);
/** The isolates profiled: the app (the Worker and its Durable Objects) and Miniflare's D1. */
const PROFILED = ["core:user:app", "d1:db"];
const RESULTS = join(ROOT, "bench", "results");

const startedAt = new Date();
const stamp = startedAt.toISOString().replace(/[:.]/g, "-");
const loadBefore = os.loadavg();

// ---------------------------------------------------------------------------------------------
// Load

/**
 * One load run: `connections` keep-alive connections for SECONDS, each request built by
 * `body(marker, n)` and `ip(n)`. The baseline is driven through the same hooks, so the load
 * generator does the same work for both. Answers throughput, latency and the accepted markers.
 */
async function load(runtime, target, { request, body, ip }, connections, tag) {
	let sent = 0;
	const accepted = new Set();
	const url = runtime[target];
	const cpuBefore = await runtime.cpuMs(target);
	const from = performance.now();
	const run = await new Promise((resolve, reject) => {
		autocannon(
			{
				url,
				connections,
				duration: SECONDS,
				requests: [
					{
						...request,
						setupRequest: (req, context) => {
							const n = sent++;
							context.marker = `${tag}.${n}`;
							const headers = ip ? { ...req.headers, "cf-connecting-ip": ip(n) } : req.headers;
							return { ...req, headers, body: body ? body(context.marker, n) : undefined };
						},
						onResponse: (status, _body, context) => {
							if (status >= 200 && status < 300) accepted.add(context.marker);
						},
					},
				],
			},
			(err, result) => {
				if (err) return reject(err);
				const statuses = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => [code, count]));
				resolve({
					rps: result.requests.average,
					p50: result.latency.p50,
					p99: result.latency.p99,
					p999: result.latency.p99_9,
					max: result.latency.max,
					responses: result.requests.total,
					errors: result.errors + result.timeouts,
					statuses,
					accepted,
				});
			},
		);
	});
	run.measuredBetween = { from, to: performance.now() };
	const cpuAfter = await runtime.cpuMs(target);
	// Its workerd's CPU over the run (for the app: its objects, D1 and the alarms too) per answered request.
	run.cpuMsPerRequest = cpuBefore === null || cpuAfter === null || !run.responses ? null : (cpuAfter - cpuBefore) / run.responses;
	return run;
}

async function baselineRun(runtime, connections) {
	const { accepted: _, measuredBetween: __, ...run } = await load(runtime, "baseline", { request: { method: "GET", path: "/" } }, connections, "baseline");
	return run;
}

/** Waits until every accepted marker is in D1 and nothing more arrives, then compares. */
async function checkStorage(path, accepted) {
	const total = (markers) => [...markers.values()].reduce((a, b) => a + b, 0);
	let last;
	let settled = 0;
	await waitFor(async () => {
		const current = await path.stored();
		const complete = [...accepted].every((m) => current.markers.has(m));
		const same = last && total(current.markers) === total(last.markers) && current.attachments === last.attachments;
		settled = complete && same ? settled + 1 : 0;
		last = current;
		// Complete, and unchanged for 1.5 s: past an isolate's half-second buffer and the outboxes' one-second flush.
		return settled >= 6;
	});
	const { markers, attachments, objects } = last;
	const missing = [...accepted].filter((m) => !markers.has(m)).length;
	const duplicated = [...markers.values()].filter((rows) => rows > 1).length;
	const storedRows = total(markers);
	const check = {
		accepted: accepted.size,
		storedRows,
		missing,
		duplicated,
		// Requests still in flight when the run stopped: stored, but their answer was never read.
		storedUnanswered: [...markers.keys()].filter((m) => !accepted.has(m)).length,
	};
	if (attachments !== undefined) Object.assign(check, { attachments, objects, attachmentsOk: attachments === storedRows && objects === storedRows });
	check.ok = missing === 0 && duplicated === 0 && (check.attachmentsOk ?? true);
	return check;
}

// Port 0: the system picks a free one.
const built = await buildRuntime(PROFILE ? { inspectorPort: 0 } : {});

/** A fresh workerd with a signed-up owner for `task`, closed after it. */
async function withRuntime(task) {
	const runtime = await built.start();
	try {
		return await task(await session(runtime));
	} finally {
		await runtime.close();
	}
}

let runNumber = 0;

/**
 * One path at one connection count, on its own workerd: set up and warm up, a baseline run, the
 * path's run, its rows checked, the counters read, another baseline run. The ratio divides by
 * the mean of the two baselines.
 */
function measurePath(def, connections) {
	return withRuntime(async (s) => {
		const tag = `r${++runNumber}`;
		const path = await def.setup(s, tag);
		await path.warm?.();
		const loadAverage = os.loadavg()[0];
		const before = await baselineRun(s.runtime, connections);
		await s.resetCounters();
		const stopProfiles = PROFILE && !path.target ? await Promise.all(PROFILED.map((target) => startProfile(s.runtime.inspector, target))) : null;
		const run = await load(s.runtime, path.target ?? "app", path, connections, tag);
		const profile =
			stopProfiles &&
			Object.fromEntries(
				await Promise.all(
					PROFILED.map(async (target, i) => [target, await profileOf(await stopProfiles[i](), s.runtime.bundle, `${def.id}-${connections}-${target.replace(/\W+/g, "-")}`)]),
				),
			);
		const storage = path.stored ? await checkStorage(path, run.accepted) : null;
		// bench/countingWorker.mjs counts the app only.
		const counted = path.target ? null : perRequest(await s.counters(), storage?.storedRows);
		const after = await baselineRun(s.runtime, connections);
		const baselineRps = (before.rps + after.rps) / 2;
		const baselineCpu = before.cpuMsPerRequest === null || after.cpuMsPerRequest === null ? null : (before.cpuMsPerRequest + after.cpuMsPerRequest) / 2;
		// The same ratio from CPU per request: the baseline's over the path's.
		const cpuRatio = baselineCpu === null || !run.cpuMsPerRequest ? null : baselineCpu / run.cpuMsPerRequest;
		const { accepted: _, measuredBetween, ...figures } = run;
		// The baseline run after it took SECONDS: the path's collections have been reported by now.
		Object.assign(figures, gcDuring(s.runtime.gcPauses(), measuredBetween));
		console.error(
			`${connections} conn  ${def.title}: ${run.rps.toFixed(0)}/s (baseline ${baselineRps.toFixed(0)}/s, ${(run.rps / baselineRps).toFixed(2)}), p99 ${run.p99} ms, p99.9 ${run.p999}, max ${run.max}, ${figures.fullGcs} full GCs (longest ${figures.longestGcMs} ms)` +
				(cpuRatio === null ? "" : `, CPU ${(run.cpuMsPerRequest * 1000).toFixed(0)} µs/request (baseline ${(baselineCpu * 1000).toFixed(0)}, ${cpuRatio.toFixed(2)})`) +
				(storage ? `, stored ${storage.ok ? "exactly once" : `WRONG ${JSON.stringify(storage)}`}` : ""),
		);
		return { id: def.id, title: def.title, connections, ...figures, ratio: run.rps / baselineRps, baselineRps, cpuRatio, baselines: [before, after], loadAverage, counted, storage, profile };
	});
}

const median = (values) => {
	const sorted = values.filter((v) => typeof v === "number").sort((a, b) => a - b);
	if (sorted.length === 0) return null;
	const middle = sorted.length >> 1;
	return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/**
 * A path at one connection count measured REPEAT times: single runs on this shared machine spread
 * by about ±15 % in ratio, and a p99 set by a few garbage-collection pauses by far more. With
 * repeats, each figure is the median of the runs' own (so one row's figures may come from
 * different runs), storage is checked in every run, the counters are those of the run with the
 * median ratio, and `repeats` keeps every run's figures.
 */
async function measureRepeated(def, connections) {
	const runs = [];
	for (let i = 0; i < REPEAT; i++) runs.push(await measurePath(def, connections));
	if (runs.length === 1) return runs[0];
	const byRatio = runs.toSorted((a, b) => a.ratio - b.ratio)[runs.length >> 1];
	const figures = Object.fromEntries(["rps", "p50", "p99", "p999", "max", "ratio", "cpuRatio", "baselineRps", "fullGcs", "longestGcMs"].map((key) => [key, median(runs.map((r) => r[key]))]));
	figures.longestGcMs = Math.round(figures.longestGcMs * 100) / 100;
	return {
		...byRatio,
		...figures,
		storage: runs.find((r) => r.storage && !r.storage.ok)?.storage ?? byRatio.storage,
		repeats: runs.map((r) => ({ rps: r.rps, ratio: r.ratio, cpuRatio: r.cpuRatio, p50: r.p50, p99: r.p99, p999: r.p999, max: r.max, fullGcs: r.fullGcs, longestGcMs: r.longestGcMs, stored: r.storage?.ok ?? null })),
	};
}

/** Writes the profile beside the results and prints its self time by function. */
async function profileOf(profile, bundle, name) {
	await mkdir(RESULTS, { recursive: true });
	const file = join(RESULTS, `${stamp}-${name}.cpuprofile`);
	await writeFile(file, JSON.stringify(profile));
	const summary = await summarizeProfile(profile, bundle);
	console.error(`profile ${name}: ${summary.totalMs} ms sampled, self time by function:`);
	for (const { name: fn, selfMs, share } of summary.functions) console.error(`  ${String(share).padStart(5)} %  ${String(selfMs).padStart(8)} ms  ${fn}`);
	return { file: file.slice(ROOT.length + 1), ...summary };
}

// ---------------------------------------------------------------------------------------------

const ingestion = [];
let read;
try {
	for (const def of PATHS.filter((p) => chosen(p.id))) ingestion.push(await measureRepeated(def, CONNECTIONS));
	// The references are the runtime's, not the app's: one connection count is enough.
	for (const def of PATHS.filter((p) => chosen(p.id) && !p.id.startsWith("reference"))) ingestion.push(await measureRepeated(def, HIGH_CONNECTIONS));
	if (chosen("read")) read = await withRuntime(readSide);
} finally {
	await built.dispose();
}

/**
 * Each hot path's targets (bench/paths.mjs) against this run's figures: its ratio at both
 * connection counts, p99 at the higher, rows stored exactly once, D1 writes per stored row.
 */
function targetsOf(rows) {
	const targets = [];
	const check = (target, figure, met, range) => targets.push({ target, figure, met, ...(range && { range }) });
	/** The lowest and highest of a figure over a row's repeated runs. */
	const rangeOf = (row, key) => (row.repeats ? [Math.min(...row.repeats.map((r) => r[key])), Math.max(...row.repeats.map((r) => r[key]))] : undefined);
	for (const def of PATHS.filter((p) => p.minRatio !== undefined)) {
		const runs = rows.filter((r) => r.id === def.id);
		if (runs.length === 0) continue;
		for (const run of runs) check(`${def.title}: ratio at ${run.connections} connections ≥ ${def.minRatio}`, run.ratio, run.ratio >= def.minRatio, rangeOf(run, "ratio"));
		const high = runs.find((r) => r.connections === HIGH_CONNECTIONS);
		if (high) check(`${def.title}: p99 at ${HIGH_CONNECTIONS} connections < ${P99_TARGET_MS} ms`, high.p99, high.p99 < P99_TARGET_MS, rangeOf(high, "p99"));
		const storedOnce = runs.every((r) => r.storage?.ok);
		check(`${def.title}: every accepted request stored exactly once`, storedOnce, storedOnce);
		const writes = Math.max(...runs.map((r) => r.counted?.d1WritesPerStoredRow ?? 0));
		check(`${def.title}: D1 writes per stored row ≤ ${D1_WRITES_TARGET}`, writes, writes <= D1_WRITES_TARGET);
	}
	return targets;
}

const versionOf = async (pkg) => JSON.parse(await readFile(join(ROOT, "node_modules", pkg, "package.json"), "utf8")).version;
const results = {
	startedAt: startedAt.toISOString(),
	machine: {
		cpus: os.cpus().length,
		cpuModel: os.cpus()[0]?.model,
		memoryGiB: Math.round(os.totalmem() / 2 ** 30),
		loadAverage: { before: loadBefore, after: os.loadavg() },
		node: process.version,
		workerd: await versionOf("workerd"),
		miniflare: await versionOf("miniflare"),
		wrangler: await versionOf("wrangler"),
	},
	settings: { seconds: SECONDS, repeat: REPEAT, connections: CONNECTIONS, highConnections: HIGH_CONNECTIONS, ipPool: IP_POOL, sitesPerRun: SITES_PER_RUN },
	baseline: "a Worker answering 204 to GET /, on the same workerd, socket and load generator, measured just before and just after each path",
	stateDir: process.env.BENCH_STATE_DIR ?? "memory (/dev/shm) where present",
	ingestion,
	targets: targetsOf(ingestion),
	read,
};

await mkdir(RESULTS, { recursive: true });
await writeFile(join(RESULTS, `${stamp}.json`), `${JSON.stringify(results, null, "\t")}\n`);
await drawChart(results, join(RESULTS, `${stamp}.png`));

const fixed = (n, digits = 0) => (n === null || n === undefined ? "" : n.toFixed(digits));
/** Two significant digits: a ratio of 0.004 is not 0.00. */
const ratio = (n) => (n === undefined || n === null ? "" : String(Number(n.toPrecision(2))));
const lines = [
	`${SECONDS} s per run${REPEAT > 1 ? `, each path measured ${REPEAT} times (medians; ranges in the targets)` : ""}, ${os.cpus().length} cores, load average ${loadBefore.map((l) => l.toFixed(1)).join(" ")} at the start, Node ${process.version}, workerd ${results.machine.workerd}`,
	"",
	`| path | requests/s | ratio to baseline | CPU ratio | p50 ms | p99 ms | ratio at ${HIGH_CONNECTIONS} | CPU ratio at ${HIGH_CONNECTIONS} | p99 ms at ${HIGH_CONNECTIONS} | full GCs in workerd at ${HIGH_CONNECTIONS} (longest ms) | DO calls/request | D1 statements/request | D1 writes/stored row | stored exactly once |`,
	"|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
];
for (const row of ingestion.filter((r) => r.connections === CONNECTIONS)) {
	const high = ingestion.find((r) => r.id === row.id && r.connections === HIGH_CONNECTIONS) ?? {};
	const stored = (s) => (s ? (s.ok ? `yes (${s.accepted})` : "NO") : "");
	const gcs = high.fullGcs === undefined ? "" : `${high.fullGcs} (${high.longestGcMs})`;
	lines.push(
		`| ${row.title} | ${fixed(row.rps)} | ${ratio(row.ratio)} | ${ratio(row.cpuRatio)} | ${row.p50} | ${row.p99} | ${ratio(high.ratio)} | ${ratio(high.cpuRatio)} | ${high.p99 ?? ""} | ${gcs} | ${row.counted?.objectCalls ?? ""} | ${row.counted?.d1Statements ?? ""} | ${fixed(row.counted?.d1WritesPerStoredRow, 3)} | ${[stored(row.storage), stored(high.storage)].filter(Boolean).join(", ")} |`,
	);
}
if (results.targets.length > 0) {
	lines.push("", `| target (docs/benchmarks.md#targets) | this run${REPEAT > 1 ? ` (median, range of ${REPEAT})` : ""} | met |`, "|---|---:|---|");
	const figure = (f) => (typeof f === "boolean" ? (f ? "yes" : "no") : typeof f === "number" && f < 10 ? ratio(f) : String(f));
	for (const { target, figure: f, met, range } of results.targets) {
		lines.push(`| ${target} | ${figure(f)}${range ? ` (${range.map(figure).join("–")})` : ""} | ${met ? "yes" : "**no**"} |`);
	}
}
if (read) lines.push("", `| read (${read.seed.events.toLocaleString("en")} events, ${read.seed.crawlerVisits.toLocaleString("en")} crawler visits, ${read.seed.issues.toLocaleString("en")} issues) | p50 ms | p99 ms | slowest ms | requests | over 100 ms | full GCs in workerd (longest ms) | D1 statements/request | visitors counted | page views, visitors |`, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const row of read?.endpoints ?? []) {
	const counted = row.samplePercent === undefined ? ["", ""] : [`${row.samplePercent} %`, `${row.figures.pageviews}, ${row.figures.visitors}`];
	const gcs = row.fullGcs ? `${row.fullGcs} (${row.longestGcMs})` : "0";
	lines.push(`| ${row.title} | ${row.p50} | ${row.p99} | ${row.max} | ${row.requests} | ${row.over100ms} | ${gcs} | ${row.d1Statements} | ${counted.join(" | ")} |`);
}
if (read) lines.push("", `Seeding: ${fixed(read.seed.eventSeconds, 1)} s for the events, ${fixed(read.seed.visitSeconds, 1)} s for the crawler visits, ${fixed(read.seed.issueSeconds, 1)} s for the issues. Results: bench/results/${stamp}.json and .png`);
console.log(lines.join("\n"));

if (ingestion.some((r) => r.storage && !r.storage.ok)) {
	console.error("Some accepted requests were not stored exactly once: see the storage figures in the JSON.");
	process.exitCode = 1;
}
