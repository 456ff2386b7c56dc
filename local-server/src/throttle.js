// Fixed-window failure counters on the injectable clock: one window per key
// (a remote address) and one shared by everybody. An attempt counts as a
// failure from the moment it is let through (so a burst cannot outrun the
// count) until it is known to have succeeded. The shared window stops only
// keys that have failed themselves: guessers elsewhere cannot lock the owner
// out, since a right answer from a clean address always gets through.
export class Throttle {
	/**
	 * @param {object} o
	 * @param {number} o.perKey failures per window from one key
	 * @param {number} o.global failures per window from everyone
	 * @param {number} o.windowMs
	 * @param {() => number} o.now
	 */
	constructor({ perKey, global, windowMs, now }) {
		this.perKey = perKey;
		this.global = global;
		this.windowMs = windowMs;
		this.now = now;
		/** @type {Map<string, {start: number, count: number}>} */
		this.windows = new Map();
		this.all = { start: -Infinity, count: 0 };
	}

	/** @param {string} key */
	#window(key) {
		const now = this.now();
		if (this.windows.size > 10_000) {
			for (const [k, w] of this.windows) if (now - w.start >= this.windowMs) this.windows.delete(k);
		}
		let w = this.windows.get(key);
		if (!w || now - w.start >= this.windowMs) {
			w = { start: now, count: 0 };
			this.windows.set(key, w);
		}
		if (now - this.all.start >= this.windowMs) this.all = { start: now, count: 0 };
		return w;
	}

	/** @param {{start: number}} w */
	#wait(w) {
		return Math.max(1, Math.ceil((w.start + this.windowMs - this.now()) / 1000));
	}

	/**
	 * Lets an attempt through, counted as a failure until `succeeded`; answers 0
	 * when allowed, else the seconds to wait.
	 * @param {string} key
	 */
	attempt(key) {
		const w = this.#window(key);
		if (w.count >= this.perKey) return this.#wait(w);
		if (w.count > 0 && this.all.count >= this.global) return this.#wait(this.all);
		w.count++;
		this.all.count++;
		return 0;
	}

	/**
	 * The attempt let through for `key` succeeded: it is no failure.
	 * @param {string} key
	 */
	succeeded(key) {
		const w = this.#window(key);
		w.count = Math.max(0, w.count - 1);
		this.all.count = Math.max(0, this.all.count - 1);
	}
}
