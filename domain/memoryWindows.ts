import type { RateWindow, WindowDecision } from "./limits";

/**
 * Exact sliding windows ("more than N in any W seconds"), counted in memory: each window keeps the
 * expiry times of the hits it let through, in order. Used as they are, they start over with the
 * memory that holds them (an isolate or an object restarting), which suits the analytics windows,
 * a backstop against floods rather than a quota (docs/limits.md#browser-analytics); a Durable
 * Object that must keep its windows across restarts stores each hit as well (HeldWindows).
 * Callers take hits synchronously, so the count stays exact under concurrent requests.
 */
export class MemoryWindows {
	/** Per window: expiry times in ascending order from `head` on; earlier slots are spent. */
	readonly #held = new Map<string, { times: number[]; head: number }>();

	/** The window's unexpired hits, from `head`. */
	#window(name: string, now: number) {
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

	/** Holds a hit that ends at `expiresAt` (one read back from storage). */
	hold(name: string, expiresAt: number): void {
		insertInOrder(this.#window(name, -Infinity).times, expiresAt);
	}

	/** How many hits the window holds now, and when its oldest ends; nothing is taken. */
	peek(now: number, { name, windowSeconds }: RateWindow): { used: number; retryAfterSeconds: number } {
		const { times, head } = this.#window(name, now);
		const oldest = times[head] ?? now + windowSeconds * 1000;
		return { used: times.length - head, retryAfterSeconds: Math.max(1, Math.ceil((oldest - now) / 1000)) };
	}

	/** Whether every window has room for one more hit now; a refusal names the longest wait. Nothing is taken. */
	check(now: number, windows: RateWindow[]): WindowDecision {
		let wait = 0;
		for (const window of windows) {
			const { used, retryAfterSeconds } = this.peek(now, window);
			if (used >= window.limit) wait = Math.max(wait, retryAfterSeconds);
		}
		return wait > 0 ? { allowed: false, retryAfterSeconds: wait } : { allowed: true };
	}

	/** Takes one hit from every window, all or nothing, as `check` decides: a full window leaves the others untouched. */
	take(now: number, windows: RateWindow[]): WindowDecision {
		const decision = this.check(now, windows);
		if (decision.allowed) for (const { name, windowSeconds } of windows) insertInOrder(this.#window(name, now).times, now + windowSeconds * 1000);
		return decision;
	}

	/** Gives back the newest hit of each window: one taken for a request that was then refused. */
	giveBack(windows: Pick<RateWindow, "name">[]): void {
		for (const { name } of windows) {
			const held = this.#held.get(name);
			if (held && held.times.length > held.head) held.times.pop();
		}
	}

	/** Drops expired hits and empty windows; answers when the last remaining hit ends (null when none remain). */
	sweep(now: number): number | null {
		let latest: number | null = null;
		for (const name of [...this.#held.keys()]) {
			const { times, head } = this.#window(name, now);
			if (head === times.length) this.#held.delete(name);
			else latest = Math.max(latest ?? 0, times[times.length - 1]);
		}
		return latest;
	}
}

/** Keeps `times` ascending; hits nearly always arrive in order, so this is nearly always a push. */
function insertInOrder(times: number[], at: number): void {
	let i = times.length;
	while (i > 0 && times[i - 1] > at) i--;
	times.splice(i, 0, at);
}
