// The app's API as `npm run bench` drives it (bench/run.mjs): a signed-up owner on a started
// runtime, fresh client addresses, and the waits after a run.

/** Seconds per load run (BENCH_SECONDS). */
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
export const HOST = "shop.example";
/** How long stored rows may take to reach D1 after a run: about two seconds (an isolate's buffer, then an outbox). */
const STORAGE_WAIT_MS = 30_000;

/** Runs `task` for each item, `concurrency` at a time. */
export async function eachConcurrently(items, concurrency, task) {
	const queue = [...items];
	const worker = async () => {
		for (let item = queue.shift(); item !== undefined; item = queue.shift()) await task(item);
	};
	await Promise.all(Array.from({ length: concurrency }, worker));
}

let ipCounter = 1;
const ipOf = (n) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
/** A block of addresses no earlier run used. */
export function freshAddresses(count) {
	const first = ipCounter;
	ipCounter += count;
	return Array.from({ length: count }, (_, i) => ipOf(first + i));
}

/** A signed-up owner on `runtime`, and the calls every measurement makes. */
export async function session(runtime) {
	const { db } = runtime;

	async function call(method, path, { json, token, ip, raw, headers: extra } = {}) {
		const headers = { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(ip ? { "cf-connecting-ip": ip } : {}), ...extra };
		if (json !== undefined) headers["content-type"] = "application/json";
		const res = await fetch(runtime.app + path, { method, headers, body: json === undefined ? raw : JSON.stringify(json) });
		const text = await res.text();
		// CSV exports answer text; everything else JSON.
		const isJson = res.headers.get("content-type")?.startsWith("application/json");
		return { status: res.status, body: text ? (isJson ? JSON.parse(text) : text) : null };
	}

	async function api(method, path, options = {}) {
		const { status, body } = await call(method, path, options);
		if (status >= 300) throw new Error(`${method} ${path}: ${status} ${JSON.stringify(body)}`);
		return body;
	}

	const { token, user } = await api("POST", "/api/auth/signup", { json: { email: "bench@example.com", password: "benchmark password" } });
	const owner = (method, path, json) => api(method, path, { json, token });

	return {
		runtime,
		db,
		user,
		token,
		call,
		api,
		owner,

		/** A new project key with windows wide enough for a benchmark; answers the raw key and its id. */
		async newKey(projectName) {
			const { raw_api_key: rawKey } = await owner("POST", "/api/feedback-key", { project_name: projectName });
			// Past the owner API's ceilings (600 and 6,000 a minute), written straight into D1: the
			// benchmark measures the hot path, and a window must never be what it hits.
			await db
				.prepare("UPDATE project_keys SET rate_limit_per_minute = 100000, logs_rate_limit_per_minute = 100000 WHERE user_id = ? AND project_name = ?")
				.bind(user.id, projectName)
				.run();
			const { id } = await db.prepare("SELECT id FROM project_keys WHERE user_id = ? AND project_name = ?").bind(user.id, projectName).first();
			return { rawKey, id };
		},

		newSites: (count, name) =>
			Promise.all(Array.from({ length: count }, async (_, i) => (await owner("POST", "/api/sites", { domain: HOST, name: `${name}-${i}` })).tracking_id)),

		/** What bench/countingWorker.mjs counted since the last reset. */
		counters: async () => (await fetch(`${runtime.app}/__bench/counters`)).json(),
		resetCounters: () => fetch(`${runtime.app}/__bench/counters/reset`, { method: "POST" }),

		/** Marker → rows, for the markers of one run (`<tag>.<n>`), from a query answering (marker, rows). */
		async rowsByMarker(sql, params, tag) {
			const { results } = await db.prepare(sql).bind(...params).all();
			return new Map(results.filter((r) => r.marker?.startsWith(`${tag}.`)).map((r) => [r.marker, r.rows]));
		},
	};
}

/** Waits until `condition` holds, at most `ms`; answers whether it did. */
export async function waitFor(condition, ms = STORAGE_WAIT_MS) {
	const deadline = Date.now() + ms;
	while (!(await condition())) {
		if (Date.now() > deadline) return false;
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
	return true;
}

/**
 * Counted calls divided by the requests the app answered in the run; D1 writes also per row
 * stored (accepted, plus any answered after the load generator stopped listening).
 */
export function perRequest(tally, storedRows) {
	const requests = Object.values(tally.responses).reduce((a, b) => a + b, 0);
	const per = (n) => (requests ? Math.round((n / requests) * 1000) / 1000 : 0);
	const sum = (record) => Object.values(record).reduce((a, b) => a + b, 0);
	return {
		requests,
		objectCalls: per(sum(tally.objectCalls)),
		objectCallsByClass: Object.fromEntries(Object.entries(tally.objectCalls).map(([k, v]) => [k, per(v)])),
		d1Statements: per(tally.d1.statements),
		d1Reads: per(tally.d1.reads),
		d1Writes: per(tally.d1.writes),
		d1RoundTrips: per(tally.d1.roundTrips),
		d1WritesPerStoredRow: storedRows ? Math.round((tally.d1.writes / storedRows) * 1000) / 1000 : null,
		d1StatementsByCaller: Object.fromEntries(Object.entries(tally.d1.byCaller).map(([k, v]) => [k, per(v)])),
		r2Operations: per(sum(tally.r2)),
		alarms: tally.alarms,
	};
}
