import { findKeyWithOwner } from "../domain/keys/keyStore";

/** The key and its owner's access as its ProjectCollector answers for them. */
export type KnownKey = NonNullable<Awaited<ReturnType<typeof findKeyWithOwner>>>;

/**
 * The key as its object knows it: loaded from D1 on first use, one load shared by the calls that
 * wait on it, and dropped on every change (`changed`), so a load that started before one is not kept.
 */
export class KnownKeyCache {
	readonly #env: Env;
	#known: KnownKey | null = null;
	/** Moves on every change. */
	#generation = 0;
	#loading: Promise<KnownKey | undefined> | null = null;

	constructor(env: Env) {
		this.#env = env;
	}

	changed(): void {
		this.#generation++;
		this.#known = null;
	}

	/** The key, or undefined when D1 holds no such key. */
	async get(keyId: string): Promise<KnownKey | undefined> {
		while (!this.#known) {
			const generation = this.#generation;
			this.#loading ??= findKeyWithOwner(this.#env, keyId).finally(() => {
				this.#loading = null;
			});
			const loaded = await this.#loading;
			if (!loaded) return undefined;
			if (generation === this.#generation) this.#known = loaded;
		}
		return this.#known;
	}
}
