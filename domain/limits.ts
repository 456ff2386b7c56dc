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

export type WindowDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

const MiB = 1024 * 1024;

/** The longest email address taken, an account's or a feedback form's `email` field: the most a mail path holds (RFC 5321). */
export const EMAIL_MAX_CHARS = 254;

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
	/** Bytes of images one project may hold in storage; a submission that would pass it is refused. */
	attachmentBytesPerProject: 1024 * 1024 * 1024,
} as const;

export const FEEDBACK_RATE = {
	/** Per source IP per key (held in the key's object; named per IP there). */
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
	/** How far ahead of the time received a `timestamp` may be (a sender's clock running fast), as in Sentry; further is replaced by that time. */
	futureTimestampMs: 60_000,
	/** The least difference between a Sentry envelope's `sent_at` and the time received that is a sender's clock set wrong, corrected in its events' timestamps, as Relay does. */
	clockDriftMs: 55 * 60_000,
	/** How far behind the time received a `timestamp` may be (an SDK that held events offline), as in Sentry; further is replaced by that time. */
	pastTimestampMs: 30 * 24 * 3_600_000,
	/** Issues one project key may hold; a new one past it is refused (403), events of existing ones are not. */
	issuesPerProject: 10_000,
} as const;

/**
 * Sentry SDKs (POST /api/:project_id/envelope/ and /store/). Sentry bounds one event, not the
 * envelope around it: an SDK puts breadcrumbs, attachments and screenshots beside the event, and
 * an envelope refused whole loses the event too. Envelopes are read as they stream in and only
 * the payloads used are kept (at most one event and one user feedback item, `eventBytes` each),
 * so memory stays a few MiB however large the envelope; the bounds on the body cap the work one
 * request costs (reading and inflating it), scaled down from Sentry's 20 MB compressed and 100 MB
 * decompressed to what a Worker does well within its CPU time.
 */
export const SENTRY_LIMITS = {
	/** One event item, one user feedback item, one store body, decompressed: Sentry's max_event_size. */
	eventBytes: MiB,
	/** A body as sent, compressed or not. */
	sentBytes: 20 * MiB,
	/** An envelope decompressed. */
	envelopeBytes: 40 * MiB,
	/** Files attached to one user feedback item (the widget's screenshot) kept for its images: as many as a form's field takes. */
	feedbackFiles: FEEDBACK_LIMITS.imagesPerField,
	/** …and their bytes together, as a submission's body may hold its images. */
	feedbackFileBytes: 5 * MiB,
} as const;

/**
 * Log event bounds no documented rule states, so every stored string has one. Generous: they only
 * bite on input no SDK sends.
 */
export const LOG_STORAGE_BOUNDS = {
	exceptionType: 500,
	/** Exceptions of one chain or group, counted from the reported one; older causes go first. */
	chainedExceptions: 50,
	mechanismField: 200,
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
	/** Scripts with a debug id (`debug_meta.images`) kept per event. */
	debugImages: 100,
	/** free-form JSON: nesting, members per object or array, string length */
	jsonDepth: 4,
	jsonMembers: 50,
	jsonString: 1_000,
} as const;

export const LOG_RATE = {
	/** Second backstop, per source IP per key (held in the key's object; named per IP there). */
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
	/** What one account may hold, so no owner can grow storage without bound. */
	sitesPerOwner: 50,
	keysPerOwner: 50,
	/** Ceilings for a key's own windows: an owner cannot open a key to a flood. */
	feedbackRatePerMinuteMax: 600,
	logsRatePerMinuteMax: 6_000,
	/** Owner API bodies are small; 1 MB of JSON is far beyond any legitimate configuration. */
	bodyChars: 1_000_000,
	feedbackList: 1_000,
	/** Records per list page unless `limit` says otherwise. */
	feedbackPage: 100,
	/** A list page stops before its JSON passes this many characters; the rest is on the next. */
	feedbackPageChars: 2_000_000,
	/** In a list a text value is cut to this many characters; the whole record is one request away. */
	feedbackListText: 500,
	feedbackMutationIds: 500,
	/** Issues one status change may name (PATCH /api/issues). */
	issueMutationHashes: 100,
	/** The longest an issue can be ignored for (`ignore_for_minutes`): a year. */
	ignoreMinutesMax: 525_600,
	/** The most events an issue can be ignored until (`ignore_until_events`). */
	ignoreEventsMax: 1_000_000,
	/** The most more users an issue can be ignored until (`ignore_until_users`). */
	ignoreUsersMax: 1_000_000,
	/** Issues per list page: `limit`'s default and ceiling (GET /api/issues). */
	issueList: 1_000,
	/** Environments, and releases, the issue list's filters offer (the most recently seen). */
	issueFilterValues: 1_000,
	issueEvents: 100,
	/** An issue's activity kept (the key's object keeps its newest this many entries) and answered. */
	issueActivity: 100,
	/** A note left on an issue, in characters once trimmed (POST /api/issues/:hash/notes). */
	issueNoteChars: 2_000,
	/** The latest events of an issue a search of its events reads (GET /api/issues/:hash?q=): each is read and matched in turn. */
	issueEventSearch: 10_000,
	/** Each of an issue's tags answers its most common values, this many (GET /api/issues/:hash/tags). */
	issueTagValues: 10,
	/** The user feedback given about an issue's events answered, newest first (GET /api/issues/:hash/feedback). */
	issueFeedback: 100,
	/** Tags one search of the issue list can name (`browser.name:Chrome url:*pay*`). */
	issueSearchTags: 10,
	/** Tag keys the search box is offered (GET /api/issues/tag-keys), in order; the skip-scan reads one index entry per key. */
	issueSearchKeys: 200,
	/**
	 * In an environment, a tag key is offered when one of its first this many rows (in value order,
	 * one per value, issue and environment) is there: an exact test could read every value of a
	 * request id. 200 keys × 1,000 rows of the tag index is the most one request reads.
	 */
	issueSearchKeyProbeRows: 1_000,
	/** A tag's most common values the search box is offered (GET /api/issues/tag-values): Sentry's search bar shows about as many. */
	issueSearchValues: 10,
	/**
	 * Rows of a tag (one per value, issue and environment, in value order from the typed prefix)
	 * counted for its most common values: a tag with a million values (a request id) costs no more
	 * than one with this many; values past them go uncounted (`partial`).
	 */
	issueSearchValueRows: 10_000,
	/** Days of log event outcomes a key's object keeps, and the most one request reads (`days`; 30 unless asked). */
	logOutcomeDays: 90,
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
	/**
	 * A filtered statistics answer over more events than this (page views and custom events in its
	 * range, by the rollups) counts a sample of the visitors that holds about this many
	 * (domain/analytics/sampling.ts). The statement also reads the engagement reports the tracker
	 * sends, one as each page view ends and one more on every hide, which the rollups do not
	 * count: about as many rows again. 7,000 keeps a filtered month of a busy site under 100 ms
	 * (docs/benchmarks.md#filtered-statistics-an-engagement-report-per-page-view).
	 */
	statsSampleEvents: 7_000,
	/** Longest value of one statistics filter (a page path, a source...). */
	filterValue: 2_000,
	/**
	 * Statistics filters in one request, operators counted apart (`page` and `page_contains_not`
	 * are two): as many as every filter's "is" and "is not". Each filter of the visit adds its
	 * own cut of the sessions to the one statement, and 34 of the longest keep it near 85,000
	 * bytes, under D1's 100,000 (test/stats-filters-contains.test.ts tries them).
	 */
	statsFilters: 34,
};

export const ACCOUNT_RATE = {
	/** Failed sign-ins from one address for one account: the guesser's own window. */
	loginFailuresPerAddress: { name: "login-failures", limit: 10, windowSeconds: 15 * 60 },
	/**
	 * Failed sign-ins for one account from anywhere: far higher, and it never stops an address
	 * that has not failed for that account, so strangers cannot lock the owner out.
	 */
	loginFailuresPerAccount: { name: "login-failures", limit: 100, windowSeconds: 15 * 60 },
	/** Failed sign-ins from one address, whatever the account: one client spraying many. */
	loginFailuresPerIp: { name: "login-ip", limit: 50, windowSeconds: 15 * 60 },
	signupPerIp: { name: "signup", limit: 10, windowSeconds: 60 * 60 },
	keyRegeneration: { name: "key-regenerate", limit: 5, windowSeconds: 60 },
} satisfies Record<string, RateWindow>;

// ---------------------------------------------------------------------------------------------
// Source maps: uploads (sentry-cli's chunk upload and the plain upload) and symbolication

export const ARTIFACT_LIMITS = {
	/** One uploaded file (a source map, a minified script), uncompressed. */
	fileBytes: 16 * MiB,
	/** What one project may keep: its artifacts plus its chunks waiting for assembly. */
	projectBytes: 256 * MiB,
	filesPerProject: 10_000,
	/** Files in one plain upload or one sentry-cli bundle. */
	filesPerUpload: 1_000,
	/** A plain upload's multipart body as sent. */
	plainUploadBytes: 24 * MiB,
	/** A file's URL (`~/assets/app.js`) and a release name. */
	urlChars: 2_000,
	releaseChars: 500,
	uploadTokensPerProject: 20,
	/** Rows of the owner's artifact list. */
	listRows: 1_000,
} as const;

/**
 * What the chunk-upload options tell sentry-cli, and what the endpoints then hold it to. A bundle
 * is cut into chunks of `chunkBytes`, sent `chunksPerRequest` at a time (gzip-compressed).
 */
export const CHUNK_UPLOAD = {
	chunkBytes: 8 * MiB,
	chunksPerRequest: 2,
	/** A chunk request's body as sent: two whole chunks, uncompressed, and the multipart framing. */
	requestBytes: 17 * MiB,
	/** The whole bundle (a zip), and so the chunks one assembly may name. */
	bundleBytes: 32 * MiB,
	concurrency: 4,
	/** A chunk not assembled into a bundle within this long is deleted by the clean-up. */
	pendingHours: 24,
} as const;

/**
 * Source lines kept around a frame's line, whether an SDK sent them (`pre_context`, `post_context`)
 * or a source map gave them: so many before and after, each cut to so many characters, for the
 * frames nearest the crash only, so a deep stack stays a bounded event.
 */
export const FRAME_CONTEXT = { lines: 5, lineChars: 200, frames: 50 } as const;

/**
 * A frame's local variables (Sentry's `vars`, which sentry-python sends by default), kept for the
 * frames nearest the crash only, each value as text: enough to read a crash by, bounded so that
 * an event's stored copy stays small (at most 10 × 30 × 300 characters).
 */
export const FRAME_VARS = { frames: 10, names: 30, nameChars: 100, valueChars: 300 } as const;

/**
 * Symbolication at ingestion. Parsing a source map takes memory about five times its size and
 * time in proportion, so both the maps and what one event may parse are bounded; a map parsed once
 * stays cached in the isolate, least recently used first out. Workers' clocks stand still while
 * code runs, so the time budget counts waiting for storage and the parse budget counts the work.
 */
export const SYMBOLICATION_LIMITS = {
	/** A larger source map is stored but not used: the event says so. */
	mapBytes: 8 * MiB,
	/** Source maps held parsed per isolate, by their size. */
	cacheBytes: 16 * MiB,
	/** Source maps one event may parse that were not cached. */
	parseBytesPerEvent: 16 * MiB,
	/** Waiting for D1 and R2 per event. */
	waitMsPerEvent: 2_000,
	/** Notes saying why frames were left as they came, per event. */
	notes: 10,
	/** An artifact's `used_at` moves at most this often, so a busy map costs no write per event. */
	usedAtRefreshMs: 24 * 60 * 60 * 1000,
} as const;

// ---------------------------------------------------------------------------------------------
// Retention: the scheduled clean-up (docs/data-model.md#growth-and-retention)

/**
 * Days each kind of data is kept; the self-hoster overrides them with the Worker vars named here.
 * Analytics and crawler visits: 400 days, the longest range the statistics answer, so a
 * year-on-year comparison still has both years. Logs: 90 days, what Sentry keeps by default.
 */
export const RETENTION_DAYS = {
	analytics: { variable: "ANALYTICS_RETENTION_DAYS", default: 400 },
	crawler: { variable: "CRAWLER_RETENTION_DAYS", default: 400 },
	logs: { variable: "LOG_RETENTION_DAYS", default: 90 },
} as const;

export const RETENTION_LIMITS = {
	/** A setting outside this range (or not a whole number) falls back to its default. 36,500 days keeps data for a century. */
	minDays: 1,
	maxDays: 36_500,
	/** Rows one delete statement removes at most: each statement holds D1's write lock for only a few milliseconds. */
	rowsPerStatement: 1_000,
	/**
	 * D1 statements and Durable Object calls one run makes at most, under the 50 subrequests a
	 * free-plan invocation may make. With a run every 15 minutes that is up to 3.84 million rows a
	 * day; the next run carries on where one stopped.
	 */
	operationsPerRun: 40,
} as const;

/** Alerts by webhook, of issues and of new feedback (docs/limits.md#alerts). */
export const ALERT_LIMITS = {
	/** Webhook URLs longer than this are refused. */
	urlChars: 2_000,
	/** One alert per issue and action within this long: a flapping issue alerts once. */
	perIssueMs: 30 * 60_000,
	/** Alerts per project per hour (sliding), issue and feedback alerts together; those past it are counted as suppressed. */
	perHour: 60,
	/** A receiver that has not answered within this long is given up on. */
	timeoutMs: 5_000,
	/**
	 * An alert the receiver did not take and may take later (no answer, 429, 5xx) is sent again
	 * after each of these waits. With every try timing out, all of them end within 25 s: inside the
	 * 30 s a Worker may go on after its answer. The owner's test alert is tried once.
	 */
	retryWaitsMs: [1_000, 4_000],
	/** A failed delivery's error is kept cut to this many characters. */
	errorChars: 200,
	/** The issue title in an alert's line is cut to this many characters. */
	titleChars: 150,
} as const;
