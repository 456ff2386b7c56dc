/** Crawler telemetry limits (spec 8). */
export const CRAWL_LIMITS = {
	bodyChars: 10_000,
	urlPath: 2_000,
	host: 500,
	userAgent: 1_000,
};

/** 429 window (spec 7.4): per tracking ID. */
export const CRAWL_RATE = { perSite: 6_000, windowSeconds: 60 };
