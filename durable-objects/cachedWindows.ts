import type { RateWindow } from "../domain/limits";
import type { WindowDecision } from "./slidingWindows";

/**
 * Exact sliding windows with the same rule as SlidingWindows ("more than N in any W seconds"),
 * counted in the object's memory and written to its SQLite (the same `hits` table) once per
 * batch of requests instead of several statements per hit. The table is read back when the object
 * starts, so a restart keeps what the windows counted; hits taken since the last `commit()` are
 * lost with the instance only if it dies before that call, which follows every batch synchronously.
 */
export class CachedWindows {
	readonly #sql: SqlStorage;
	/** Window name → expiry times of its hits, oldest first. */
	readonly #hits = new Map<string, number[]>();
	#uncommitted: Array<[window: string, expiresAt: number]> = [];

	constructor(sql: SqlStorage, now: number) {
		this.#sql = sql;
		sql.exec(`CREATE TABLE IF NOT EXISTS hits (window TEXT NOT NULL, expires_at INTEGER NOT NULL)`);
		sql.exec(`CREATE INDEX IF NOT EXISTS hits_window_expiry ON hits (window, expires_at)`);
		const rows = sql.exec<{ window: string; expires_at: number }>(`SELECT window, expires_at FROM hits WHERE expires_at > ? ORDER BY expires_at`, now);
		for (const { window, expires_at } of rows) this.#hitsOf(window).push(expires_at);
	}

	/** Takes one hit from every window, all or nothing: a full window leaves the others untouched. */
	take(now: number, windows: RateWindow[]): WindowDecision {
		for (const { name, limit, windowSeconds } of windows) {
			const hits = this.#live(name, now);
			if (hits.length >= limit) {
				const retryAfterMs = (hits[0] ?? now + windowSeconds * 1000) - now;
				return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) };
			}
		}
		for (const { name, windowSeconds } of windows) {
			const expiresAt = now + windowSeconds * 1000;
			insertSorted(this.#hitsOf(name), expiresAt);
			this.#uncommitted.push([name, expiresAt]);
		}
		return { allowed: true };
	}

	/** Writes the hits taken since the last commit, in one statement. */
	commit(): void {
		if (this.#uncommitted.length === 0) return;
		this.#sql.exec(`INSERT INTO hits (window, expires_at) SELECT value ->> 0, value ->> 1 FROM json_each(?)`, JSON.stringify(this.#uncommitted));
		this.#uncommitted = [];
	}

	/** Drops expired hits; answers when the last remaining one expires (null when none remain). */
	sweep(now: number): number | null {
		this.#sql.exec(`DELETE FROM hits WHERE expires_at <= ?`, now);
		let latest: number | null = null;
		for (const name of [...this.#hits.keys()]) {
			const hits = this.#live(name, now);
			if (hits.length === 0) this.#hits.delete(name);
			else latest = Math.max(latest ?? 0, hits[hits.length - 1]);
		}
		return latest;
	}

	#hitsOf(name: string): number[] {
		let hits = this.#hits.get(name);
		if (!hits) {
			hits = [];
			this.#hits.set(name, hits);
		}
		return hits;
	}

	/** The window's hits that have not expired at `now` (expired ones are dropped from memory). */
	#live(name: string, now: number): number[] {
		const hits = this.#hits.get(name);
		if (!hits) return [];
		let expired = 0;
		while (expired < hits.length && hits[expired] <= now) expired++;
		if (expired > 0) hits.splice(0, expired);
		return hits;
	}
}

/** Keeps the list ordered even if the clock stepped back between two hits. */
function insertSorted(list: number[], value: number): void {
	let i = list.length;
	while (i > 0 && list[i - 1] > value) i--;
	list.splice(i, 0, value);
}
