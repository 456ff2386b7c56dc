import type { RateWindow, WindowDecision } from "../domain/limits";
import { jsonArraysOf } from "../domain/jsonRows";
import { MemoryWindows } from "../domain/memoryWindows";

/**
 * Exact sliding windows that survive the object restarting: counted in memory (MemoryWindows; a
 * busy window holds thousands of hits, and counting them in SQLite on every request cost more than
 * the rest of the request) and each hit also stored as a row of `hits`. Every window's unexpired
 * hits are read back at once on first use, so a window met for the first time (a new address)
 * costs no read. Hits taken are stored by `writeTaken`, which an object calls once per batch of
 * calls before it answers them: one statement for the batch, not one per hit. Expired rows are
 * deleted by `sweep` (the object's alarm), not on every request.
 */
export class HeldWindows {
	readonly #sql: SqlStorage;
	readonly #memory = new MemoryWindows();
	/** Whether memory holds every unexpired hit of `hits`. */
	#loaded = false;
	/** Hits taken and held in memory, not yet rows of `hits`: [window, expires_at]. */
	#unwritten: [string, number][] = [];

	constructor(sql: SqlStorage) {
		this.#sql = sql;
		sql.exec(`CREATE TABLE IF NOT EXISTS hits (window TEXT NOT NULL, expires_at INTEGER NOT NULL)`);
		// Windows are read whole, once: an index would only cost every hit a second write.
		sql.exec(`DROP INDEX IF EXISTS hits_window_expiry`);
	}

	#memoryAt(now: number): MemoryWindows {
		if (!this.#loaded) {
			const rows = this.#sql.exec<{ window: string; expires_at: number }>(`SELECT window, expires_at FROM hits WHERE expires_at > ?`, now);
			for (const { window, expires_at } of rows) this.#memory.hold(window, expires_at);
			this.#loaded = true;
		}
		return this.#memory;
	}

	/** How many hits the window holds now, and when its oldest ends; nothing is taken. */
	peek(now: number, window: RateWindow): { used: number; retryAfterSeconds: number } {
		return this.#memoryAt(now).peek(now, window);
	}

	/** Whether `take` would let one more hit through every window now; nothing is taken. */
	check(now: number, windows: RateWindow[]): WindowDecision {
		return this.#memoryAt(now).check(now, windows);
	}

	/** Takes one hit from every window, all or nothing; a refusal names the longest wait. Stored by `writeTaken`. */
	take(now: number, windows: RateWindow[]): WindowDecision {
		const decision = this.#memoryAt(now).take(now, windows);
		if (decision.allowed) for (const { name, windowSeconds } of windows) this.#unwritten.push([name, now + windowSeconds * 1000]);
		return decision;
	}

	/**
	 * Stores the hits taken since the last call as rows of `hits`, in one statement per ~1 MB. Until
	 * then they count in memory alone: an object that restarts before this forgets them, as it
	 * does the answers of the calls that took them, which had not left.
	 */
	writeTaken(): void {
		if (this.#unwritten.length === 0) return;
		const rows = this.#unwritten;
		this.#unwritten = [];
		for (const json of jsonArraysOf(rows)) {
			this.#sql.exec(`INSERT INTO hits (window, expires_at) SELECT value ->> 0, value ->> 1 FROM json_each(?)`, json);
		}
	}

	/** Gives back the newest hit of each window: one taken for a request that was then refused. */
	giveBack(windows: RateWindow[]): void {
		this.#memoryAt(Date.now()).giveBack(windows);
		for (const { name } of windows) {
			const unwritten = this.#unwritten.findLastIndex(([window]) => window === name);
			if (unwritten >= 0) this.#unwritten.splice(unwritten, 1);
			else this.#sql.exec(`DELETE FROM hits WHERE rowid = (SELECT rowid FROM hits WHERE window = ? ORDER BY expires_at DESC LIMIT 1)`, name);
		}
	}

	/**
	 * Deletes expired hits; answers when the last remaining hit ends (null when none remain).
	 * Hits go in in time order, so the expired ones of equal windows are the first rows: the
	 * delete walks them and stops at the first hit still running, where a `WHERE expires_at <= ?`
	 * read the whole table (a busy key holds hundreds of thousands of hits, and the object answers
	 * nothing while it reads). Behind a longer window's hit, shorter ones that have ended wait for
	 * it to end too: rows only, as memory and a reload count running hits alone.
	 */
	sweep(now: number): number | null {
		const latest = this.#memoryAt(now).sweep(now);
		this.#sql.exec(
			`DELETE FROM hits WHERE rowid < coalesce(
				(SELECT rowid FROM hits WHERE expires_at > ? ORDER BY rowid LIMIT 1),
				(SELECT max(rowid) + 1 FROM hits))`,
			now,
		);
		return latest;
	}
}
