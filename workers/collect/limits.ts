/** Browser analytics limits (spec 8). */
export const COLLECT_LIMITS = {
	bodyChars: 10_000,
	eventName: 200,
	eventData: 8_000,
	urlPart: 2_000,
	host: 500,
	title: 500,
	identity: 200,
	/** language and screen */
	short: 20,
	/** The tracker sends "2"; nothing longer is a version. */
	version: 20,
	seqMax: 4_294_967_295,
	durationMax: 3_600,
};

/** 429 windows (spec 7.3): normal mode, and Attack Mode's tighter ones. */
export const COLLECT_RATE = {
	windowSeconds: 60,
	normal: { perIp: 30, perSite: 6_000 },
	attack: { perIp: 3, perSite: 600 },
};
