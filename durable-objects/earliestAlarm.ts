/**
 * A Durable Object's one alarm, kept at the earliest time anything asked for. Callers may ask on
 * every request: storage is written only when the alarm moves earlier, and the alarm handler asks
 * again for whatever is still due when it runs.
 */
export class EarliestAlarm {
	readonly #storage: DurableObjectStorage;
	#at: number | null = null;

	constructor(storage: DurableObjectStorage) {
		this.#storage = storage;
	}

	/** Reads the alarm already set; call it inside blockConcurrencyWhile. */
	async load(): Promise<void> {
		this.#at = await this.#storage.getAlarm();
	}

	/** The alarm is running: the next request sets a new one. */
	fired(): void {
		this.#at = null;
	}

	async noLaterThan(at: number): Promise<void> {
		if (this.#at !== null && this.#at <= at) return;
		this.#at = at;
		await this.#storage.setAlarm(at);
	}

	async clear(): Promise<void> {
		this.#at = null;
		await this.#storage.deleteAlarm();
	}
}
