import type { RateWindow } from "../domain/limits";
import { tooManyRequests } from "./http";
import { rateLimiterFor } from "./objects";

/** Gives back every hit a request took, when something after the windows refuses it. */
export type Refund = () => Promise<void>;

/**
 * Takes a hit from every subject's windows, in parallel (one object call per subject). A request
 * counts only when every window lets it through: when one is full, the hits taken from the others
 * are given back and a 429 with the longest Retry-After is thrown. Answers how to give back the
 * hits if the request is refused later (bad key, disabled project, a full window elsewhere).
 */
export async function enforceRateLimits(env: Env, limits: Array<{ subject: string; windows: RateWindow[] }>, what?: string): Promise<Refund> {
	const decisions = await Promise.all(limits.map(({ subject, windows }) => rateLimiterFor(env, subject).hit(windows)));
	const taken = limits.filter((_, i) => decisions[i].allowed);
	const refund: Refund = async () => {
		await Promise.all(taken.map(({ subject, windows }) => rateLimiterFor(env, subject).refund(windows)));
	};
	const waits = decisions.flatMap((d) => (d.allowed ? [] : [d.retryAfterSeconds]));
	if (waits.length > 0) {
		await refund();
		throw tooManyRequests(Math.max(...waits), what);
	}
	return refund;
}
