import type { RateWindow } from "../domain/limits";
import { tooManyRequests } from "./http";
import { rateLimiterFor } from "./objects";

/**
 * Takes a hit from every subject's windows, in parallel (one object call per subject), and throws
 * a 429 with the longest Retry-After when any of them is full.
 */
export async function enforceRateLimits(
	env: Env,
	limits: Array<{ subject: string; windows: RateWindow[] }>,
	what?: string,
): Promise<void> {
	const decisions = await Promise.all(limits.map(({ subject, windows }) => rateLimiterFor(env, subject).hit(windows)));
	const waits = decisions.flatMap((d) => (d.allowed ? [] : [d.retryAfterSeconds]));
	if (waits.length > 0) throw tooManyRequests(Math.max(...waits), what);
}
