// Fixed-window attempt counters on the injectable clock: one window per
// key (a remote address) and one shared by everybody.
export class Throttle {
	/**
	 * @param {object} o
	 * @param {number} o.perKey attempts per window from one key
	 * @param {number} o.global attempts per window from everyone
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

	/**
	 * Counts one attempt; answers 0 when allowed, else the seconds to wait.
	 * @param {string} key
	 */
	hit(key) {
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
		if (w.count >= this.perKey) return Math.max(1, Math.ceil((w.start + this.windowMs - now) / 1000));
		if (this.all.count >= this.global) return Math.max(1, Math.ceil((this.all.start + this.windowMs - now) / 1000));
		w.count++;
		this.all.count++;
		return 0;
	}
}
