/**
 * Typed stubs of the Durable Objects, the one place that turns a subject into an object id.
 * Each object is one per subject, never one global object:
 * - RateLimiter: one per rate subject (`ip:<ip>`, `key:<id>`, `user:<id>`, `email:<address>`);
 * - IssueGrouper: one per project key, every log event of the key goes through it;
 * - SiteCollector: one per analytics site, every collect and crawler event of the site.
 */

export function rateLimiterFor(env: Env, subject: string) {
	return env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(subject));
}

export function issueGrouperFor(env: Env, keyId: string) {
	return env.ISSUE_GROUPER.get(env.ISSUE_GROUPER.idFromName(`key:${keyId}`));
}

export function siteCollectorFor(env: Env, trackingId: string) {
	return env.SITE_COLLECTOR.get(env.SITE_COLLECTOR.idFromName(trackingId));
}
