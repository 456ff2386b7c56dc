import type { RateWindow, WindowDecision } from "./limits";

/**
 * Exact sliding windows with the same rule as the Durable Objects' stored ones ("more than N in
 * any W seconds"), counted in memory only: no storage write per hit. They start over with the
 * memory that holds them (an isolate or an object restarting), which suits the analytics windows,
 * a backstop against floods rather than a quota (docs/limits.md#browser-analytics).
 */
export class MemoryWindows {
	/** Window name → expiry times of its hits, oldest first. */
	readonly #hits = new Map<string, number[]>();

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
			let hits = this.#hits.get(name);
			if (!hits) {
				hits = [];
				this.#hits.set(name, hits);
			}
			insertSorted(hits, now + windowSeconds * 1000);
		}
		return { allowed: true };
	}

	/** Drops expired hits; answers when the last remaining one expires (null when none remain). */
	sweep(now: number): number | null {
		let latest: number | null = null;
		for (const name of [...this.#hits.keys()]) {
			const hits = this.#live(name, now);
			if (hits.length === 0) this.#hits.delete(name);
			else latest = Math.max(latest ?? 0, hits[hits.length - 1]);
		}
		return latest;
	}

	/** The window's hits that have not expired at `now` (expired ones are dropped). */
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
