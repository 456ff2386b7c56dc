import type { EarliestAlarm } from "./earliestAlarm";

/**
 * Moving an object's outbox to D1, shared by the objects that answer before D1 has their rows
 * (ProjectCollector, SiteCollector): accepted rows sit in the object's own SQLite, durable, and
 * move to D1 in batches from the alarm, or at once when an owner reads.
 *
 * `writeBatch` writes one batch in one D1 transaction and removes from the outbox only what D1
 * now has; it answers whether more may be waiting. Flushes never overlap, and a flush asked for
 * during another runs after it, so it also covers rows accepted meanwhile.
 */
/**
 * One table's share of a batch: its statements for the D1 transaction, `written` to call once D1
 * has them (it removes or marks only those rows), `more` when the batch was full.
 */
export interface OutboxBatch {
	statements: D1PreparedStatement[];
	more: boolean;
	written: () => void;
}

export class Outbox {
	readonly #alarm: EarliestAlarm;
	readonly #writeBatch: () => Promise<boolean>;
	readonly #retryMs: number;
	#running: Promise<void> | null = null;

	constructor(alarm: EarliestAlarm, writeBatch: () => Promise<boolean>, { retryMs }: { retryMs: number }) {
		this.#alarm = alarm;
		this.#writeBatch = writeBatch;
		this.#retryMs = retryMs;
	}

	/** Writes everything accepted so far to D1; rejects when D1 fails (the rows stay). */
	flush(): Promise<void> {
		return this.exclusive(() => this.#drain());
	}

	/**
	 * Runs `task` (a flush, or a delete of rows D1 holds) once no other is under way, and holds the
	 * others off until it ends: rows accepted during a delete reach D1 after it, so it never deletes them.
	 */
	async exclusive<T>(task: () => Promise<T>): Promise<T> {
		while (this.#running) await this.#running;
		const running = task();
		// Its failure is the caller's to see (`running`), not the flushes' that wait on it.
		this.#running = running
			.then(
				() => {},
				() => {},
			)
			.finally(() => {
				this.#running = null;
			});
		return running;
	}

	/**
	 * The flush an alarm runs: on failure the rows stay and the next attempt is scheduled here,
	 * since the runtime's own alarm retries give up after a few. Answers whether it succeeded.
	 */
	async flushOrRetry(): Promise<boolean> {
		try {
			await this.flush();
			return true;
		} catch (err) {
			console.error("could not move outbox rows to D1; retrying:", err);
			await this.#alarm.noLaterThan(Date.now() + this.#retryMs);
			return false;
		}
	}

	async #drain(): Promise<void> {
		while (await this.#writeBatch()) {
			// one batch, one transaction, per round
		}
	}
}
