// `npm run bench`: throughput of the ingestion paths on the embedded local runtime, measured
// against a baseline route in the same run. Absolute numbers depend on the machine (shared and
// noisy here); the ratios are what to compare between runs.
import autocannon from "autocannon";
import { startWorker } from "../e2e/stack.ts";

const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);

// The real wrangler.toml, bindings and migrations on the embedded runtime, with throw-away state:
// the same Worker the browser tests drive (Node 24 runs the TypeScript module as is).
const { url: base, close } = await startWorker();

async function post(path, body, headers = {}) {
	const res = await fetch(base + path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
	return res.json();
}

let ipCounter = 0;
const ipOf = (n) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
/**
 * Source addresses: either a new one per request (the worst case: every request creates its
 * per-IP rate-limit object) or a pool of returning ones, sized so none reaches its 20/min window.
 */
const addresses = (pool) => (pool ? () => ipOf(1_000_000 + (ipCounter++ % pool)) : () => ipOf(ipCounter++));

function load(title, options) {
	const nextIp = addresses(options.ipPool);
	return new Promise((resolve, reject) => {
		autocannon(
			{
				url: base,
				connections: CONNECTIONS,
				duration: DURATION,
				...options,
				requests: [
					{
						...options.request,
						setupRequest: (req) => ({ ...req, headers: { ...req.headers, "cf-connecting-ip": nextIp() } }),
					},
				],
			},
			(err, result) => {
				if (err) return reject(err);
				const bad = result.non2xx;
				resolve({ title, rps: result.requests.average, p99: result.latency.p99, bad });
			},
		);
	});
}

const { token } = await post("/api/auth/signup", { email: `bench-${Date.now()}@example.com`, password: "benchmark password" });
const { raw_api_key: key } = await post("/api/feedback-key", { project_name: "bench" }, { authorization: `Bearer ${token}` });
await fetch(`${base}/api/feedback-key`, {
	method: "PATCH",
	headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
	body: JSON.stringify({ project_name: "bench", rate_limit_per_minute: 600, logs_rate_limit_per_minute: 6000 }),
});

const site = await post("/api/sites", { domain: "shop.example", name: "bench" }, { authorization: `Bearer ${token}` });
const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

const png = `data:image/png;base64,${Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.alloc(100 * 1024, 7)]).toString("base64")}`;
const textSubmission = {
	method: "POST",
	path: "/functions/v1/submit-feedback",
	headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
	body: JSON.stringify({ title: "Crash on save", description: "Steps: open, edit, save.", email: "u@example.com", app_version: "1.2.3" }),
};
// Returning visitors: create their rate-limit objects before measuring.
const POOL = 400;
for (let i = 0; i < POOL; i += 20) {
	await Promise.all(
		Array.from({ length: 20 }, (_, j) =>
			fetch(base + textSubmission.path, { ...textSubmission, headers: { ...textSubmission.headers, "cf-connecting-ip": ipOf(1_000_000 + i + j) } }),
		),
	);
}

const runs = [
	await load("baseline: JSON 404 from the Worker", { request: { method: "GET", path: "/api/ping" } }),
	await load("feedback: text, returning IPs", { ipPool: POOL, request: textSubmission }),
	await load("feedback: text, a new IP per request", { request: textSubmission }),
	await load("logs: error event with a stack, returning IPs", {
		ipPool: POOL,
		request: {
			method: "POST",
			path: "/api/app-logs-ingest",
			headers: { "x-svc-key": key, "content-type": "application/json" },
			body: JSON.stringify({
				level: "error",
				exception: {
					type: "TypeError",
					value: "Cannot read properties of undefined (reading 'id')",
					stacktrace: { frames: [{ filename: "src/checkout.ts", function: "submitOrder", lineno: 42, colno: 7, in_app: true }] },
				},
				environment: "production",
				release: "1.4.2",
				user: { id: "u_123" },
			}),
		},
	}),
	await load("collect: page view, returning IPs", {
		ipPool: POOL,
		request: {
			method: "POST",
			path: "/api/collect",
			headers: { "content-type": "text/plain", "user-agent": CHROME },
			body: JSON.stringify({ tracking_id: site.tracking_id, v: "2", event_name: "", url_host: "shop.example", url_path: "/pricing", title: "Pricing" }),
		},
	}),
	await load("crawler telemetry: GPTBot visit", {
		request: {
			method: "POST",
			path: "/api/bot-crawl-ingest",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ tracking_id: site.tracking_id, url_host: "shop.example", url_path: "/docs", ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)", country: "US", status: 200 }),
		},
	}),
	await load("feedback: 100 KB screenshot, returning IPs", {
		ipPool: POOL,
		request: {
			method: "POST",
			path: "/functions/v1/submit-feedback",
			headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
			body: JSON.stringify({ title: "With image", description: "d", screenshots: [png] }),
		},
	}),
];

const baseline = runs[0].rps;
console.log(`\n${CONNECTIONS} connections, ${DURATION} s each, Node ${process.version}\n`);
console.log("| path | requests/s | ratio to baseline | p99 ms | non-2xx |");
console.log("|---|---:|---:|---:|---:|");
for (const r of runs) {
	console.log(`| ${r.title} | ${r.rps.toFixed(0)} | ${(r.rps / baseline).toFixed(2)} | ${r.p99} | ${r.title.startsWith("baseline") ? "(all 404)" : r.bad} |`);
}
await close();
