import type { RateDecision, RateWindow } from "../durable-objects/RateLimiter";
import { tooManyRequests } from "./http";

/** The RateLimiter object for one subject: `ip:<ip>`, `key:<id>`, `site:<tracking_id>`, `user:<id>`, ... */
export function rateLimiterFor(env: Env, subject: string) {
	return env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(subject));
}

/**
 * Takes a hit from every subject's windows, in parallel (one object call per subject), and throws
 * a 429 with the longest Retry-After when any of them is full.
 */
export async function enforceRateLimits(
	env: Env,
	limits: Array<{ subject: string; windows: RateWindow[] }>,
	what?: string,
): Promise<void> {
	const decisions: RateDecision[] = await Promise.all(
		limits.map(({ subject, windows }) => rateLimiterFor(env, subject).hit(windows)),
	);
	const waits = decisions.flatMap((d) => (d.allowed ? [] : [d.retryAfterSeconds]));
	if (waits.length > 0) throw tooManyRequests(Math.max(...waits), what);
}
