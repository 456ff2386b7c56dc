// When to replace a displayed pairing code (codes live 120 s): 10 s before it
// expires, but never sooner than 5 s after the last refresh. Shared by the
// terminal (svc-local) and the pairing page, which imports this file.
const REFRESH_BEFORE_EXPIRY_MS = 10_000;
const MIN_REFRESH_DELAY_MS = 5_000;

/**
 * Milliseconds from `now` until the code should be refreshed.
 * @param {number} expiresAt when the displayed code expires (ms since epoch)
 * @param {number} lastRefreshAt when the code was fetched (ms since epoch)
 * @param {number} now
 */
export function nextRefreshDelay(expiresAt, lastRefreshAt, now) {
	const due = Math.max(expiresAt - REFRESH_BEFORE_EXPIRY_MS, lastRefreshAt + MIN_REFRESH_DELAY_MS);
	return Math.max(0, due - now);
}

/**
 * Keeps a displayed pairing code fresh: fetches one now, then again by the
 * rule above, and on demand (a key press, a "new code" button).
 * @template {{expiresAt: string | number}} Code
 */
export class CodeRefresher {
	/**
	 * @param {object} o
	 * @param {() => Promise<Code>} o.fetchCode gets a new code
	 * @param {(code: Code) => void | Promise<void>} o.show displays it
	 * @param {(err: unknown) => void} [o.onError] a failed fetch is retried after the minimum delay
	 * @param {() => number} [o.now]
	 */
	constructor({ fetchCode, show, onError, now }) {
		this.fetchCode = fetchCode;
		this.show = show;
		this.onError = onError ?? (() => {});
		this.now = now ?? (() => Date.now());
		/** @type {ReturnType<typeof setTimeout> | undefined} */
		this.timer = undefined;
		this.stopped = false;
	}

	/** Fetches and shows a new code now, then schedules the next one. */
	async refresh() {
		clearTimeout(this.timer);
		if (this.stopped) return;
		const fetchedAt = this.now();
		let delay = MIN_REFRESH_DELAY_MS;
		try {
			const code = await this.fetchCode();
			await this.show(code);
			const expiresAt = typeof code.expiresAt === "number" ? code.expiresAt : Date.parse(code.expiresAt);
			delay = nextRefreshDelay(expiresAt, fetchedAt, this.now());
		} catch (err) {
			this.onError(err);
		}
		if (!this.stopped) this.timer = setTimeout(() => void this.refresh(), delay);
	}

	stop() {
		this.stopped = true;
		clearTimeout(this.timer);
	}
}
