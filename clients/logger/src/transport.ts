/**
 * Sends events to the ingest endpoint without ever holding up or failing the host application:
 * a bounded queue, at most two requests at a time, every failure swallowed, and after a 429
 * nothing sent (events dropped) until its `Retry-After` has passed.
 */

/** Without a usable Retry-After, a 429 pauses sending for a minute. */
const DEFAULT_PAUSE_MS = 60_000;
const CONCURRENCY = 2;
/** Browsers allow 64 KiB of keepalive bodies in flight; leave room for headers. */
const KEEPALIVE_BUDGET = 60_000;

/** Seconds (`120`) or an HTTP date, as Retry-After may be; else the default pause. */
export function retryAfterMs(header: string | null, now = Date.now()): number {
	const value = header?.trim() ?? "";
	if (/^\d+$/.test(value)) return +value * 1000;
	const date = Date.parse(value);
	return Number.isNaN(date) ? DEFAULT_PAUSE_MS : Math.max(0, date - now);
}

export interface Transport {
	/** Queues an event's JSON; false when it was dropped (queue full, or paused by a 429). */
	send(body: string): boolean;
	/** On page unload: everything queued goes out now, past the concurrency bound. */
	drain(): void;
	/** True once nothing is queued or in flight; false if `timeoutMs` passes first. */
	flush(timeoutMs: number): Promise<boolean>;
}

/**
 * In a browser every request is a CORS "simple" one (text/plain, the key inside the body as
 * `svc_key`): a request that needs a preflight may not go out while the page is being left,
 * and one request is cheaper than two. Node sends the key in the `x-svc-key` header.
 */
const inBrowser = typeof document !== "undefined";

function request(url: string, key: string, body: string, keepalive: boolean) {
	if (!inBrowser) return fetch(url, { method: "POST", headers: { "content-type": "application/json", "x-svc-key": key }, body, keepalive });
	const withKey = `{"svc_key":${JSON.stringify(key)},${body.slice(1)}`;
	return fetch(url, { method: "POST", headers: { "content-type": "text/plain;charset=UTF-8" }, body: withKey, keepalive });
}

export function createTransport(url: string, key: string, maxQueue: number): Transport {
	const queue: string[] = [];
	let inFlight = 0;
	let keepaliveBytes = 0;
	let pausedUntil = 0;
	let idleWaiters: Array<() => void> = [];
	const isIdle = () => queue.length === 0 && inFlight === 0;

	const pump = () => {
		while (inFlight < CONCURRENCY) {
			const next = queue.shift();
			if (next === undefined) return;
			post(next);
		}
	};

	function post(body: string) {
		// keepalive lets a request outlive the page; browsers cap what may be in flight that way.
		const keepalive = keepaliveBytes + body.length <= KEEPALIVE_BUDGET;
		const bytes = keepalive ? body.length : 0;
		keepaliveBytes += bytes;
		inFlight++;
		const finished = () => {
			keepaliveBytes -= bytes;
			inFlight--;
			pump();
			if (isIdle()) for (const waiter of idleWaiters.slice()) waiter();
		};
		let sent: Promise<unknown>;
		try {
			sent = request(url, key, body, keepalive).then((response) => {
				if (response.status === 429) {
					pausedUntil = Date.now() + retryAfterMs(response.headers.get("retry-after"));
					queue.length = 0;
				}
				// Read the answer to the end, so Node releases the connection.
				return response.text();
			});
		} catch {
			sent = Promise.resolve();
		}
		sent.then(finished, finished);
	}

	return {
		send(body) {
			if (Date.now() < pausedUntil || queue.length + inFlight >= maxQueue) return false;
			queue.push(body);
			pump();
			return true;
		},
		drain() {
			for (let next = queue.shift(); next !== undefined; next = queue.shift()) post(next);
		},
		flush(timeoutMs) {
			if (isIdle()) return Promise.resolve(true);
			return new Promise((resolve) => {
				const done = (idle: boolean) => {
					clearTimeout(timer);
					idleWaiters = idleWaiters.filter((waiter) => waiter !== onIdle);
					resolve(idle);
				};
				const onIdle = () => done(true);
				const timer = setTimeout(() => done(false), Math.max(0, timeoutMs));
				idleWaiters.push(onIdle);
			});
		},
	};
}
