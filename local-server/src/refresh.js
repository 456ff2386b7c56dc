// When to replace a displayed pairing code (spec 3.1): 10 s before it
// expires, but never sooner than 5 s after the last refresh. Shared by the
// terminal (svc-local) and the pairing page, which imports this file.
export const REFRESH_BEFORE_EXPIRY_MS = 10_000;
export const MIN_REFRESH_DELAY_MS = 5_000;

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
