// The paths `npm run bench` measures (bench/run.mjs): how each builds its requests, warms up, and
// finds what it stored. Each request carries a marker (`<tag>.<n>`) stored with its row, so after a
// run every accepted request is checked to be stored exactly once.
import { eachConcurrently, freshAddresses, HOST, SECONDS, waitFor } from "./session.mjs";

/**
 * Returning source addresses per run: each takes at most 19 feedback submissions a run (its
 * window holds 20 a minute, one taken by the warm-up), so this serves 9,500 requests a second.
 */
export const IP_POOL = 500 * SECONDS;
/** Sites per analytics run: each site's window takes 6,000 events a minute; this serves 8,000 a second. */
export const SITES_PER_RUN = Math.ceil((8_000 * SECONDS) / 5_000);
const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const GPTBOT = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)";
const PNG_100KB = `data:image/png;base64,${Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.alloc(100 * 1024, 7)]).toString("base64")}`;

/** Feedback through one project key; `image` adds a 100 KB screenshot. */
function feedbackPath({ image, newIpPerRequest }) {
	return async (s, tag) => {
		const key = await s.newKey(`bench-${tag}`);
		const headers = { authorization: `Bearer ${key.rawKey}`, "content-type": "application/json" };
		const body = (marker) => JSON.stringify({ title: marker, description: "Steps: open, edit, save.", email: "u@example.com", app_version: "1.2.3", ...(image ? { screenshots: [PNG_100KB] } : {}) });
		const pool = newIpPerRequest ? null : freshAddresses(IP_POOL);
		return {
			request: { method: "POST", path: "/functions/v1/submit-feedback", headers },
			body,
			ip: pool ? (n) => pool[n % pool.length] : () => freshAddresses(1)[0],
			// Returning addresses: their rate-limit objects exist. The warm-up body is refused (400)
			// after the windows are taken, so it stores nothing.
			warm: pool && (() => eachConcurrently(pool, 20, (ip) => s.call("POST", "/functions/v1/submit-feedback", { ip, json: {}, token: key.rawKey }))),
			stored: async () => {
				const markers = await s.rowsByMarker(
					"SELECT data ->> '$.title' AS marker, count(*) AS rows FROM feedback WHERE user_id = ? AND project_name = ? GROUP BY 1",
					[s.user.id, `bench-${tag}`],
					tag,
				);
				if (!image) return { markers };
				const { attachments } = await s.db.prepare("SELECT count(*) AS attachments FROM feedback_attachments a JOIN feedback f ON f.id = a.feedback_id WHERE f.project_name = ?").bind(`bench-${tag}`).first();
				return { markers, attachments, objects: await objectsOfProject(s, tag) };
			},
		};
	};
}

/** R2 objects of the run's feedback (keys are feedback/<owner>/<feedback id>/<attachment id>). */
async function objectsOfProject(s, tag) {
	const { results } = await s.db.prepare("SELECT id FROM feedback WHERE user_id = ? AND project_name = ?").bind(s.user.id, `bench-${tag}`).all();
	const ids = new Set(results.map((r) => r.id));
	let count = 0;
	let cursor;
	do {
		const page = await s.runtime.bucket.list({ prefix: `feedback/${s.user.id}/`, cursor });
		count += page.objects.filter((o) => ids.has(o.key.split("/")[2])).length;
		cursor = page.truncated ? page.cursor : undefined;
	} while (cursor);
	return count;
}

export const LOG_EVENT = {
	level: "error",
	exception: {
		type: "TypeError",
		value: "Cannot read properties of undefined (reading 'id')",
		stacktrace: { frames: [{ filename: "src/checkout.ts", function: "submitOrder", lineno: 42, colno: 7, in_app: true }] },
	},
	environment: "production",
	release: "1.4.2",
	user: { id: "u_123" },
};

async function logsPath(s, tag) {
	const key = await s.newKey(`bench-${tag}`);
	const pool = freshAddresses(IP_POOL);
	return {
		request: { method: "POST", path: "/api/app-logs-ingest", headers: { "x-svc-key": key.rawKey, "content-type": "application/json" } },
		body: (marker) => JSON.stringify({ ...LOG_EVENT, tags: { bench: marker } }),
		ip: (n) => pool[n % pool.length],
		// The addresses' rate-limit objects (a body that is not JSON is refused after the window is
		// taken), and the key's ProjectCollector with the issue already known, its row moved to D1.
		warm: async () => {
			await eachConcurrently(pool, 20, (ip) => s.call("POST", "/api/app-logs-ingest", { ip, raw: "warm-up", token: key.rawKey }));
			await s.api("POST", "/api/app-logs-ingest", { json: { ...LOG_EVENT, tags: { bench: "warm-up" } }, token: key.rawKey, ip: pool[0] });
			await waitFor(async () => (await s.db.prepare("SELECT count(*) AS n FROM log_events WHERE key_id = ?").bind(key.id).first()).n === 1);
		},
		stored: async () => ({
			markers: await s.rowsByMarker("SELECT event ->> '$.tags.bench' AS marker, count(*) AS rows FROM log_events WHERE key_id = ? GROUP BY 1", [key.id], tag),
		}),
	};
}

/** Browser analytics or crawler telemetry, spread over the run's own sites. */
function sitePath({ crawler }) {
	return async (s, tag) => {
		const sites = await s.newSites(SITES_PER_RUN, `bench-${tag}`);
		const pool = freshAddresses(IP_POOL);
		const inSites = `(${sites.map(() => "?").join(", ")})`;
		return crawler
			? {
					request: { method: "POST", path: "/api/bot-crawl-ingest", headers: { "content-type": "application/json" } },
					body: (marker, n) =>
						JSON.stringify({ tracking_id: sites[n % sites.length], url_host: HOST, url_path: `/docs/${marker}`, ua: GPTBOT, country: "US", status: 200 }),
					ip: null,
					// The sites' collectors, their settings loaded: a User-Agent that is no AI crawler is answered and not stored.
					warm: () => eachConcurrently(sites, 4, (site) => s.api("POST", "/api/bot-crawl-ingest", { json: { tracking_id: site, url_host: HOST, ua: "curl/8.5.0" } })),
					stored: async () => ({
						markers: await s.rowsByMarker(`SELECT substr(url_path, 7) AS marker, count(*) AS rows FROM crawler_visits WHERE tracking_id IN ${inSites} GROUP BY 1`, sites, tag),
					}),
				}
			: {
					request: { method: "POST", path: "/api/collect", headers: { "content-type": "text/plain", "user-agent": CHROME } },
					body: (marker, n) =>
						JSON.stringify({ tracking_id: sites[n % sites.length], v: "2", event_name: "", url_host: HOST, url_path: "/pricing", url_query: marker, title: "Pricing" }),
					ip: (n) => pool[n % pool.length],
					// A prefetch is excluded traffic: it loads the collector and its settings, and is not stored.
					warm: () =>
						eachConcurrently(sites, 4, (site) =>
							s.api("POST", "/api/collect", { json: { tracking_id: site, url_host: HOST }, headers: { "user-agent": CHROME, "sec-purpose": "prefetch" } }),
						),
					stored: async () => ({
						markers: await s.rowsByMarker(`SELECT url_query AS marker, count(*) AS rows FROM analytics_events WHERE tracking_id IN ${inSites} GROUP BY 1`, sites, tag),
					}),
				};
	};
}

/** One binding call per request from a Worker that does nothing else: what the app's figures are made of. */
const reference = (route) => async () => ({ target: "reference", request: { method: "GET", path: route } });

/** A request shaped as a text feedback submission (headers and body), read whole and answered with JSON, nothing else. */
const referencePost = async () => ({
	target: "reference",
	request: { method: "POST", path: "/post", headers: { authorization: `Bearer svc_${"k".repeat(43)}`, "content-type": "application/json" } },
	body: (marker) => JSON.stringify({ title: marker, description: "Steps: open, edit, save.", email: "u@example.com", app_version: "1.2.3" }),
	ip: () => "10.0.0.1",
});

/**
 * The hot ingestion paths' targets (docs/benchmarks.md#targets): the least ratio to the baseline
 * at both connection counts; each also has p99 under P99_TARGET_MS at 64 connections, every
 * accepted request stored exactly once, and at most D1_WRITES_TARGET D1 write statements per
 * stored row. The screenshot path has none: it is measured, not held to a hot path's figures.
 */
export const P99_TARGET_MS = 100;
export const D1_WRITES_TARGET = 0.05;

export const PATHS = [
	{ id: "reference-d1-read", title: "reference: one D1 read", setup: reference("/d1-read") },
	{ id: "reference-do-call", title: "reference: one Durable Object call", setup: reference("/do-call") },
	{ id: "reference-do-write", title: "reference: one Durable Object SQLite write", setup: reference("/do-write") },
	{ id: "reference-post", title: "reference: a feedback-sized POST read, a JSON answer", setup: referencePost },
	{ id: "app-404", title: "app: unknown API route (JSON 404)", setup: async () => ({ request: { method: "GET", path: "/api/ping" } }) },
	{ id: "feedback", title: "feedback, text, returning IPs", setup: feedbackPath({ image: false, newIpPerRequest: false }), minRatio: 0.25 },
	{ id: "feedback-new-ip", title: "feedback, text, a new IP per request", setup: feedbackPath({ image: false, newIpPerRequest: true }), minRatio: 0.15 },
	{ id: "logs", title: "logs, error event, returning IPs", setup: logsPath, minRatio: 0.25 },
	{ id: "collect", title: "collect, page view, returning IPs", setup: sitePath({ crawler: false }), minRatio: 0.4 },
	{ id: "crawler", title: "crawler telemetry, GPTBot visit", setup: sitePath({ crawler: true }), minRatio: 0.4 },
	{ id: "feedback-image", title: "feedback with a 100 KB screenshot", setup: feedbackPath({ image: true, newIpPerRequest: false }) },
];

