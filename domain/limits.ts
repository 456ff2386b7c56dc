/**
 * Every limit of the service, one block per surface. docs/limits.md lists them for readers;
 * the rules that use them live beside their surface's code.
 */

/** A counted rate window: at most `limit` accepted hits in any `windowSeconds`. */
export interface RateWindow {
	name: string;
	limit: number;
	windowSeconds: number;
}

// ---------------------------------------------------------------------------------------------
// Feedback (POST /functions/v1/submit-feedback)

export const FEEDBACK_LIMITS = {
	bodyChars: 5 * 1024 * 1024,
	text: 500,
	longText: 10_000,
	extraFields: 20,
	extraString: 500,
	imagesPerField: 5,
	imageBase64Chars: 5 * 1024 * 1024 * 1.4,
	/** Not a documented field rule: extra keys longer than this are dropped rather than stored. */
	extraKeyChars: 100,
	url: 2_000,
} as const;

export const FEEDBACK_RATE = {
	perIp: { name: "feedback", limit: 20, windowSeconds: 60 },
	/** The key's own window uses its `rate_limit_per_minute`. */
	perKeyWindowSeconds: 60,
} satisfies Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// Application logs (POST /api/app-logs-ingest)

export const LOG_LIMITS = {
	bodyChars: 512_000,
	message: 8_192,
	exceptionValue: 8_192,
	frames: 200,
	breadcrumbs: 100,
	tags: 50,
	tagValue: 500,
	headerValue: 500,
	requestBody: 4_096,
	userField: 500,
} as const;

/**
 * Log event bounds no documented rule states, so every stored string has one. Generous: they only
 * bite on input no SDK sends.
 */
export const LOG_STORAGE_BOUNDS = {
	exceptionType: 500,
	level: 100,
	/** environment, release, platform, SDK name and version */
	name: 500,
	frameString: 1_000,
	tagKey: 200,
	headers: 100,
	headerName: 200,
	url: 2_000,
	method: 32,
	queryString: 2_000,
	ipAddress: 100,
	breadcrumbMessage: 2_000,
	breadcrumbField: 200,
	fingerprintParts: 50,
	fingerprintPart: 500,
	/** free-form JSON: nesting, members per object or array, string length */
	jsonDepth: 4,
	jsonMembers: 50,
	jsonString: 1_000,
} as const;

export const LOG_RATE = {
	/** Second backstop, per source IP whatever the key. */
	perIp: { name: "logs", limit: 120, windowSeconds: 60 },
	/** The key's `logs_rate_limit_per_minute` when it has none usable. */
	defaultPerKey: 60,
	perKeyWindowSeconds: 60,
};

// ---------------------------------------------------------------------------------------------
// Browser analytics (POST /api/collect)

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
	/** An engagement report's visible time: the same hour as `duration`, in milliseconds. */
	engagedMsMax: 3_600_000,
	scrollDepthMax: 100,
	/** Each of utm_source, utm_medium, utm_campaign, utm_content, utm_term (and source, ref) read from url_query. */
	campaignValue: 200,
};

/** Normal mode, and Attack Mode's tighter windows. */
export const COLLECT_RATE = {
	windowSeconds: 60,
	normal: { perIp: 30, perSite: 6_000 },
	attack: { perIp: 3, perSite: 600 },
};

// ---------------------------------------------------------------------------------------------
// Crawler telemetry (POST /api/bot-crawl-ingest)

export const CRAWL_LIMITS = {
	bodyChars: 10_000,
	urlPath: 2_000,
	host: 500,
	userAgent: 1_000,
	/** The crawler's address, `ip`: the longest IPv6 text is 45 characters. */
	address: 64,
};

export const CRAWL_RATE = { perSite: 6_000, windowSeconds: 60 };

// ---------------------------------------------------------------------------------------------
// Owner side

export const OWNER_LIMITS = {
	/** Owner API bodies are small; 1 MB of JSON is far beyond any legitimate configuration. */
	bodyChars: 1_000_000,
	feedbackList: 1_000,
	feedbackMutationIds: 500,
	issueList: 1_000,
	issueEvents: 100,
	analyticsEvents: 1_000,
	recentCrawlerVisits: 50,
	/** Rows per breakdown list in the statistics answer (`limit`, default 10). */
	breakdownRows: 100,
	/** Rows of one breakdown's CSV export. */
	csvRows: 10_000,
	/** Longest range a statistics request may cover. */
	statsRangeDays: 400,
	/** `visitors_now` counts the visitors active this recently. */
	visitorsNowMs: 5 * 60 * 1000,
	/** Longest value of one statistics filter (a page path, a source...). */
	filterValue: 2_000,
};

export const ACCOUNT_RATE = {
	loginPerEmail: { name: "login-email", limit: 10, windowSeconds: 15 * 60 },
	loginPerIp: { name: "login-ip", limit: 50, windowSeconds: 15 * 60 },
	signupPerIp: { name: "signup", limit: 10, windowSeconds: 60 * 60 },
	keyRegeneration: { name: "key-regenerate", limit: 5, windowSeconds: 60 },
} satisfies Record<string, RateWindow>;
