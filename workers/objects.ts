/**
 * Typed stubs of the Durable Objects, the one place that turns a subject into an object id.
 * Each object is one per subject, never one global object:
 * - RateLimiter: one per rate subject (`ip:<ip>`, `user:<id>`, `email:<address>`);
 * - ProjectCollector: one per project key, every feedback submission and log event of the key goes through it;
 * - SiteCollector: one per analytics site, every collect and crawler event of the site.
 */

export function rateLimiterFor(env: Env, subject: string) {
	return env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(subject));
}

export function projectCollectorFor(env: Env, keyId: string) {
	return env.PROJECT_COLLECTOR.get(env.PROJECT_COLLECTOR.idFromName(`key:${keyId}`));
}

/** Tells the objects of `keyIds` that their keys changed in D1; they reload on their next request. */
export async function keysChanged(env: Env, keyIds: string[]): Promise<void> {
	await Promise.all(keyIds.map((keyId) => projectCollectorFor(env, keyId).keyChanged()));
}

/** Moves what the objects of `keyIds` accepted to D1: before an owner reads or changes feedback. */
export async function flushKeys(env: Env, keyIds: string[]): Promise<void> {
	await Promise.all(keyIds.map((keyId) => projectCollectorFor(env, keyId).flush()));
}

export function siteCollectorFor(env: Env, trackingId: string) {
	return env.SITE_COLLECTOR.get(env.SITE_COLLECTOR.idFromName(trackingId));
}
