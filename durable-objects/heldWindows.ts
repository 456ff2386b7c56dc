import type { RateWindow, WindowDecision } from "../domain/limits";

/**
 * Exact sliding windows ("more than N in any W seconds", as in slidingWindows.ts, on the same
 * `hits` table) whose counts are held in memory: a busy window holds thousands of hits, and
 * counting them in SQLite on every request cost more than the rest of the request. Every
 * window's unexpired expiry times are loaded at once on first use (and again after `reload`) and
 * kept in order, so a window met for the first time (a new address) costs no read; a hit is one
 * INSERT, and expired rows are deleted by `sweep` (the object's alarm), not on every request.
 * Callers take hits synchronously, so the count stays exact under concurrent requests; when a
 * transaction that took hits fails, they call `reload`.
 */
export class HeldWindows {
	readonly #sql: SqlStorage;
	/** Per window: expiry times in ascending order from `head` on; earlier slots are spent. */
	readonly #held = new Map<string, { times: number[]; head: number }>();
	/** Whether `#held` holds every window with unexpired hits in `hits`. */
	#loaded = false;

	constructor(sql: SqlStorage) {
		this.#sql = sql;
		sql.exec(`CREATE TABLE IF NOT EXISTS hits (window TEXT NOT NULL, expires_at INTEGER NOT NULL)`);
		// Windows are read whole, once: an index would only cost every hit a second write.
		sql.exec(`DROP INDEX IF EXISTS hits_window_expiry`);
	}

	/** The window's unexpired hits, oldest first, from `head`. */
	#window(name: string, now: number) {
		if (!this.#loaded) this.#load(now);
		let held = this.#held.get(name);
		if (!held) {
			held = { times: [], head: 0 };
			this.#held.set(name, held);
		}
		while (held.head < held.times.length && held.times[held.head] <= now) held.head++;
		// Spent slots are dropped once they are half the array, so trimming costs O(1) per hit.
		if (held.head > 64 && held.head * 2 > held.times.length) {
			held.times = held.times.slice(held.head);
			held.head = 0;
		}
		return held;
	}

	#load(now: number) {
		const rows = this.#sql.exec<{ window: string; expires_at: number }>(
			`SELECT window, expires_at FROM hits WHERE expires_at > ? ORDER BY expires_at`,
			now,
		);
		for (const { window, expires_at } of rows) {
			let held = this.#held.get(window);
			if (!held) {
				held = { times: [], head: 0 };
				this.#held.set(window, held);
			}
			held.times.push(expires_at);
		}
		this.#loaded = true;
	}

	/** How many hits the window holds now, and when its oldest ends; nothing is taken. */
	peek(now: number, { name, windowSeconds }: RateWindow): { used: number; retryAfterSeconds: number } {
		const { times, head } = this.#window(name, now);
		const oldest = times[head] ?? now + windowSeconds * 1000;
		return { used: times.length - head, retryAfterSeconds: Math.max(1, Math.ceil((oldest - now) / 1000)) };
	}

	/** Takes one hit from every window, all or nothing; a refusal names the longest wait. */
	take(now: number, windows: RateWindow[]): WindowDecision {
		let wait = 0;
		for (const window of windows) {
			const { used, retryAfterSeconds } = this.peek(now, window);
			if (used >= window.limit) wait = Math.max(wait, retryAfterSeconds);
		}
		if (wait > 0) return { allowed: false, retryAfterSeconds: wait };
		const rows: number[] = [];
		for (const { name, windowSeconds } of windows) {
			const expiresAt = now + windowSeconds * 1000;
			insertInOrder(this.#window(name, now).times, expiresAt);
			rows.push(expiresAt);
		}
		this.#sql.exec(
			`INSERT INTO hits (window, expires_at) VALUES ${windows.map(() => "(?, ?)").join(", ")}`,
			...windows.flatMap(({ name }, i) => [name, rows[i]]),
		);
		return { allowed: true };
	}

	/** Forgets what is held: the next use reads SQLite (after a transaction that took hits rolled back). */
	reload(): void {
		this.#held.clear();
		this.#loaded = false;
	}

	/** Deletes expired hits, and windows left empty; answers when the last remaining hit expires (null when none remain). */
	sweep(now: number): number | null {
		this.#sql.exec(`DELETE FROM hits WHERE expires_at <= ?`, now);
		let latest: number | null = null;
		for (const name of [...this.#held.keys()]) {
			const { times, head } = this.#window(name, now);
			if (head === times.length) this.#held.delete(name);
			else latest = Math.max(latest ?? 0, times[times.length - 1]);
		}
		const stored = this.#sql.exec<{ latest: number | null }>(`SELECT max(expires_at) AS latest FROM hits`).one().latest;
		return stored === null ? latest : Math.max(stored, latest ?? 0);
	}
}

/** Keeps `times` ascending; hits nearly always arrive in order, so this is nearly always a push. */
function insertInOrder(times: number[], at: number): void {
	let i = times.length;
	while (i > 0 && times[i - 1] > at) i--;
	times.splice(i, 0, at);
}
