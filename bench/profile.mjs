// BENCH_PROFILE=1: a V8 CPU profile of the app's isolate (the Worker and its Durable Objects run
// in one) while a path is under load, taken over workerd's DevTools inspector with the Chrome
// DevTools Protocol's Profiler domain, and a summary of self time by function. The .cpuprofile
// opens in Chrome DevTools (Performance panel) or VS Code. Sampling slows the isolate down: a
// profiled run's throughput is not a measurement.
import { readFile } from "node:fs/promises";

/** Microseconds between samples: fine enough for handlers that take well under a millisecond. */
const SAMPLING_INTERVAL_US = 100;
/** The most one sample stands for: ten intervals (the sampler runs late under load, never that late). */
const MAX_SAMPLE_US = 10 * SAMPLING_INTERVAL_US;

/** One DevTools Protocol session over the inspector's WebSocket (Node's own WebSocket client). */
async function connect(url) {
	const socket = new WebSocket(url);
	await new Promise((resolve, reject) => {
		socket.addEventListener("open", resolve, { once: true });
		socket.addEventListener("error", () => reject(new Error(`cannot reach the inspector at ${url}`)), { once: true });
	});
	let nextId = 1;
	const pending = new Map();
	socket.addEventListener("message", ({ data }) => {
		const message = JSON.parse(String(data));
		const call = pending.get(message.id);
		if (!call) return;
		pending.delete(message.id);
		if (message.error) call.reject(new Error(`${call.method}: ${message.error.message}`));
		else call.resolve(message.result);
	});
	return {
		send: (method, params = {}) =>
			new Promise((resolve, reject) => {
				const id = nextId++;
				pending.set(id, { method, resolve, reject });
				socket.send(JSON.stringify({ id, method, params }));
			}),
		close: () => socket.close(),
	};
}

/**
 * Starts profiling one of workerd's isolates, by inspector target: `core:user:<worker>` for a
 * Worker with its Durable Objects, `d1:db` for Miniflare's D1; answers `stop()`, which answers
 * the profile.
 */
export async function startProfile(inspectorUrl, target) {
	// Not new URL(): "core:" would read as a scheme.
	const session = await connect(`${inspectorUrl.replace(/\/$/, "")}/${target}`);
	await session.send("Profiler.enable");
	await session.send("Profiler.setSamplingInterval", { interval: SAMPLING_INTERVAL_US });
	await session.send("Profiler.start");
	return async () => {
		const { profile } = await session.send("Profiler.stop");
		await session.send("Profiler.disable");
		session.close();
		return profile;
	};
}

/**
 * The source file of each line of wrangler's bundle: esbuild writes `// path/to/file.ts` before
 * each module's code, so a function's line in the bundle tells which file it came from.
 */
async function sourceFilesOfBundle(bundlePath) {
	const lines = (await readFile(bundlePath, "utf8")).split("\n");
	const fileAt = [];
	let current = "";
	for (const line of lines) {
		const marker = /^\/\/ ((?:\.\.\/)*[\w@./-]+\.(?:[cm]?[jt]s|json|txt))$/.exec(line);
		if (marker) current = marker[1].replace(/^(\.\.\/)+/, "").replace(/^.*node_modules\//, "");
		fileAt.push(current);
	}
	return fileAt;
}

/**
 * Self time by function over the whole profile, largest first: name, source file (for the
 * bundle's code) and milliseconds, with each one's share of the sampled time.
 */
export async function summarizeProfile(profile, bundlePath, top = 25) {
	const fileAt = bundlePath ? await sourceFilesOfBundle(bundlePath) : [];
	const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
	// V8 samples an isolate only while a thread runs it: a sample after a gap (the isolate not
	// running at all, as Miniflare's D1 between two batches) carries the whole gap in its delta.
	// Each sample counts for at most MAX_SAMPLE_US; the rest of the gap is idle.
	const selfUs = new Map();
	const idle = (profile.nodes.find((node) => node.callFrame.functionName === "(idle)") ?? profile.nodes[0]).id;
	const add = (id, us) => selfUs.set(id, (selfUs.get(id) ?? 0) + us);
	for (let i = 0; i < profile.samples.length; i++) {
		const delta = profile.timeDeltas[i] ?? 0;
		add(profile.samples[i], Math.min(delta, MAX_SAMPLE_US));
		if (delta > MAX_SAMPLE_US) add(idle, delta - MAX_SAMPLE_US);
	}
	const parentOf = new Map();
	for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node);
	const describe = ({ functionName, url, lineNumber }) => {
		const file = url.endsWith("countingWorker.js") ? fileAt[lineNumber] || "bundle" : url.replace(/^.*\//, "");
		return `${functionName || "(anonymous)"}${file ? `  ${file}` : ""}`;
	};
	const byFunction = new Map();
	let total = 0;
	for (const [id, us] of selfUs) {
		const { callFrame } = nodes.get(id);
		// A built-in (SQL exec, a Response...) is named with the function that called it.
		const caller = callFrame.url ? undefined : parentOf.get(id);
		const name = caller?.callFrame.url ? `${describe(callFrame)}  ← ${describe(caller.callFrame)}` : describe(callFrame);
		byFunction.set(name, (byFunction.get(name) ?? 0) + us);
		total += us;
	}
	const rows = [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top);
	return {
		totalMs: Math.round(total / 1000),
		functions: rows.map(([name, us]) => ({ name, selfMs: Math.round(us / 100) / 10, share: Math.round((us / total) * 1000) / 10 })),
	};
}
