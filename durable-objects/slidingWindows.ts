import type { RateWindow, WindowDecision } from "../domain/limits";

/**
 * Exact sliding-window counting inside one Durable Object's SQLite, the same rule as RateLimiter
 * ("more than N in any W seconds"): each accepted hit is a row that expires W seconds later.
 * Callers must take hits synchronously (no await between check and insert) for the count to
 * stay exact under concurrent requests; SQLite calls in a Durable Object are synchronous.
 */

export class SlidingWindows {
	readonly #sql: SqlStorage;

	constructor(sql: SqlStorage) {
		this.#sql = sql;
		sql.exec(`CREATE TABLE IF NOT EXISTS hits (window TEXT NOT NULL, expires_at INTEGER NOT NULL)`);
		sql.exec(`CREATE INDEX IF NOT EXISTS hits_window_expiry ON hits (window, expires_at)`);
	}

	/** Takes one hit from every window, all or nothing: a full window leaves the others untouched. */
	take(now: number, windows: RateWindow[]): WindowDecision {
		for (const { name, limit, windowSeconds } of windows) {
			this.#sql.exec(`DELETE FROM hits WHERE window = ? AND expires_at <= ?`, name, now);
			const { used, oldest } = this.#sql
				.exec<{ used: number; oldest: number | null }>(`SELECT count(*) AS used, min(expires_at) AS oldest FROM hits WHERE window = ?`, name)
				.one();
			if (used >= limit) {
				const retryAfterMs = (oldest ?? now + windowSeconds * 1000) - now;
				return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) };
			}
		}
		for (const { name, windowSeconds } of windows) {
			this.#sql.exec(`INSERT INTO hits (window, expires_at) VALUES (?, ?)`, name, now + windowSeconds * 1000);
		}
		return { allowed: true };
	}

	/** Drops expired hits; answers when the last remaining one expires (null when none remain). */
	/** How many hits a window holds now, and when its oldest ends; nothing is taken. */
	peek(now: number, { name, windowSeconds }: RateWindow): { used: number; retryAfterSeconds: number } {
		this.#sql.exec(`DELETE FROM hits WHERE window = ? AND expires_at <= ?`, name, now);
		const { used, oldest } = this.#sql
			.exec<{ used: number; oldest: number | null }>(`SELECT count(*) AS used, min(expires_at) AS oldest FROM hits WHERE window = ?`, name)
			.one();
		return { used, retryAfterSeconds: Math.max(1, Math.ceil(((oldest ?? now + windowSeconds * 1000) - now) / 1000)) };
	}

	/** Gives back the newest hit of each window: a hit taken for a request that was then refused. */
	giveBack(windows: RateWindow[]): void {
		for (const { name } of windows) {
			this.#sql.exec(`DELETE FROM hits WHERE rowid = (SELECT rowid FROM hits WHERE window = ? ORDER BY expires_at DESC LIMIT 1)`, name);
		}
	}

	sweep(now: number): number | null {
		this.#sql.exec(`DELETE FROM hits WHERE expires_at <= ?`, now);
		return this.#sql.exec<{ latest: number | null }>(`SELECT max(expires_at) AS latest FROM hits`).one().latest;
	}
}
