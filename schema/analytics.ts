import { type AnySQLiteColumn, index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./accounts";

/** An analytics site: public tracking ID, configured domain, active flag, Attack Mode. */
export const sites = sqliteTable(
	"sites",
	{
		/** Public and random (128 bits): knowing one site's ID says nothing about another's. */
		trackingId: text("tracking_id").primaryKey(),
		userId: text("user_id")
			.notNull()
			.references(() => users.id, { onDelete: "cascade" }),
		name: text("name").notNull(),
		/** Lower-case host name without scheme, port or leading `www.`; null means collection is 403. */
		domain: text("domain"),
		active: integer("active", { mode: "boolean" }).notNull().default(true),
		attackMode: integer("attack_mode", { mode: "boolean" }).notNull().default(false),
		/**
		 * The last `url_host` collection refused as outside the domain, and when (noted at most once a
		 * minute per Worker isolate); cleared when the domain changes. Tells the owner where a tag runs
		 * that counts nothing.
		 */
		refusedHost: text("refused_host"),
		refusedAt: integer("refused_at", { mode: "timestamp_ms" }),
		createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
		updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
	},
	(t) => [index("sites_user_idx").on(t.userId, t.createdAt)],
);

/**
 * Browser analytics events as accepted by /api/collect. Rows arrive in batches from
 * the site's SiteCollector object, never one INSERT per request. No raw IP is ever stored:
 * `visitor_id` is the tracker's own id or a hash salted with a per-site salt that rotates daily.
 *
 * Events carry no foreign key to `sites`: a batch must never fail because its site was deleted
 * meanwhile; deleting a site deletes its events explicitly.
 */
export const analyticsEvents = sqliteTable(
	"analytics_events",
	{
		trackingId: text("tracking_id").notNull(),
		/** The client's event_id (a repeated one is stored once) or a generated UUID. */
		eventId: text("event_id").notNull(),
		/** Received time, ms since the epoch. */
		ts: integer("ts").notNull(),
		/** "" is a page view; `_leave`, `_identify` and custom names otherwise. */
		name: text("name").notNull().default(""),
		data: text("data"),
		urlHost: text("url_host"),
		urlPath: text("url_path").notNull().default("/"),
		urlQuery: text("url_query").notNull().default(""),
		referrer: text("referrer").notNull().default(""),
		/** Host of an external referrer, lower-case; "" for direct visits and internal navigation. */
		referrerHost: text("referrer_host").notNull().default(""),
		/**
		 * Where the visit came from: the page URL's utm_source, source or ref, else the referrer
		 * grouped by the vendored list of known referrers (domain/analytics/sources.ts), else the
		 * referrer's host; "" for direct visits and internal navigation.
		 */
		source: text("source").notNull().default(""),
		/** Campaign parameters of the page URL (url_query), "" when absent. */
		utmSource: text("utm_source").notNull().default(""),
		utmMedium: text("utm_medium").notNull().default(""),
		utmCampaign: text("utm_campaign").notNull().default(""),
		utmContent: text("utm_content").notNull().default(""),
		utmTerm: text("utm_term").notNull().default(""),
		title: text("title").notNull().default(""),
		language: text("language").notNull().default(""),
		screen: text("screen").notNull().default(""),
		visitorId: text("visitor_id").notNull(),
		distinctId: text("distinct_id"),
		sessionId: text("session_id"),
		/** Seconds on the page, on a `_leave` from a tracker before engagement reports (see engaged_ms). */
		duration: integer("duration"),
		/**
		 * On `_leave` (an engagement report): milliseconds the page was visible since the previous
		 * report of the same page view. Null on older trackers' `_leave`, which carry `duration`.
		 */
		engagedMs: integer("engaged_ms"),
		/** On `_leave`: the deepest point of the page seen so far, percent 0-100. */
		scrollDepth: integer("scroll_depth"),
		seq: integer("seq").notNull().default(0),
		v: text("v").notNull().default(""),
		browser: text("browser").notNull().default(""),
		os: text("os").notNull().default(""),
		/** desktop, mobile, tablet, or another ua-parser-js device type. */
		device: text("device").notNull().default(""),
		/** Two upper-case letters, or "" when unknown. */
		country: text("country").notNull().default(""),
		/**
		 * The page URL's `ref` parameter (`?ref=producthunt`), decoded, trimmed, "" when absent: a
		 * breakdown of its own beside the campaign's. Added by migration 0013: events stored before
		 * it have "" here (their `ref` still named their `source`).
		 */
		ref: text("ref").notNull().default(""),
	},
	(t) => [
		primaryKey({ columns: [t.trackingId, t.eventId] }),
		// Every statistic is a range scan of one site's events in time order.
		index("analytics_events_site_ts_idx").on(t.trackingId, t.ts),
		// The clean-up deletes expired events of every site, oldest first.
		index("analytics_events_ts_idx").on(t.ts),
		// A collector reads back a visitor's day it does not hold (domain/analytics/rollupWriter.ts).
		index("analytics_events_visitor_idx").on(t.trackingId, t.visitorId, t.ts),
		// Not expressible here, so created by migration 0011 by hand: analytics_events_sample_idx on
		// (tracking_id, substr(visitor_id, 1, 2), ts), the visitor sample of filtered statistics
		// (domain/analytics/sampling.ts).
	],
);

/** The key of a rollup table: per site, breakdown (`dim`), bucket and label (`value`). */
const rollupKey = () => ({
	trackingId: text("tracking_id").notNull(),
	dim: text("dim").notNull(),
	/** 3,600,000 (an hour) or 86,400,000 (a UTC day). */
	span: integer("span").notNull(),
	/** The bucket's first millisecond. */
	start: integer("start").notNull(),
	value: text("value").notNull(),
});

type RollupKey = { [K in keyof ReturnType<typeof rollupKey>]: AnySQLiteColumn };

/** A rollup table's primary key (clustered: the migrations create the tables WITHOUT ROWID), and the clean-up's index. */
const rollupIndexes = (table: string, t: RollupKey) => [
	primaryKey({ columns: [t.trackingId, t.dim, t.span, t.start, t.value] }),
	// The clean-up deletes expired buckets of every site, oldest first.
	index(`${table}_start_idx`).on(t.start),
];

/**
 * Pre-summed statistics (domain/analytics/rollups.ts): per site, breakdown (`dim`), hour or day
 * (`span` ms, `start` its first ms) and label (`value`), the counters the statistics answer adds
 * up. Written in the same D1 transaction as the events themselves; which counters a breakdown
 * uses is in docs/data-model.md#analytics_rollups. The migration creates it WITHOUT ROWID (by
 * hand: drizzle cannot say so), clustered on its key.
 */
export const analyticsRollups = sqliteTable(
	"analytics_rollups",
	{
		// dim: "" for the site as a whole, else a breakdown name (pages, countries, entry_pages...).
		...rollupKey(),
		/** Visitors whose first counted event of the UTC day with this label is in the bucket. */
		visitors: integer("visitors").notNull().default(0),
		/** Visitors whose first counted event of the hour is in the bucket (the hourly series). */
		hourVisitors: integer("hour_visitors").notNull().default(0),
		pageviews: integer("pageviews").notNull().default(0),
		events: integer("events").notNull().default(0),
		/** Sessions that started in the bucket. */
		visits: integer("visits").notNull().default(0),
		bounces: integer("bounces").notNull().default(0),
		engagedMs: integer("engaged_ms").notNull().default(0),
		engagedN: integer("engaged_n").notNull().default(0),
		depthSum: integer("depth_sum").notNull().default(0),
		depthN: integer("depth_n").notNull().default(0),
	},
	(t) => rollupIndexes("analytics_rollups", t),
);

/** `_identify` links: which distinct_id (the site's own user id) a visitor turned out to be. */
export const analyticsIdentities = sqliteTable(
	"analytics_identities",
	{
		trackingId: text("tracking_id").notNull(),
		visitorId: text("visitor_id").notNull(),
		distinctId: text("distinct_id").notNull(),
		firstSeen: integer("first_seen").notNull(),
		lastSeen: integer("last_seen").notNull(),
	},
	(t) => [
		primaryKey({ columns: [t.trackingId, t.visitorId, t.distinctId] }),
		index("analytics_identities_distinct_idx").on(t.trackingId, t.distinctId),
		// The clean-up deletes links not seen within the analytics retention.
		index("analytics_identities_last_seen_idx").on(t.lastSeen),
	],
);

/**
 * Crawler visits pre-counted per site, breakdown, hour (and UTC day) and label, so the crawler
 * statistics and the pages report read a row per label and bucket instead of every visit
 * (domain/crawl/visitStore.ts). Created WITHOUT ROWID by the migration (by hand), like
 * analytics_rollups.
 */
export const crawlerRollups = sqliteTable(
	"crawler_rollups",
	{
		// dim: "" for the site as a whole, else crawlers, paths, statuses or page_crawlers.
		...rollupKey(),
		visits: integer("visits").notNull().default(0),
		/** Visits from inside and from outside the operator's published ranges (the rest could not be checked). */
		verified: integer("verified").notNull().default(0),
		unverified: integer("unverified").notNull().default(0),
	},
	(t) => rollupIndexes("crawler_rollups", t),
);

/** AI-crawler visits reported by /api/bot-crawl-ingest. */
export const crawlerVisits = sqliteTable(
	"crawler_visits",
	{
		id: text("id").primaryKey(),
		trackingId: text("tracking_id").notNull(),
		ts: integer("ts").notNull(),
		/** Name from the crawler table in domain/crawl/crawlers.ts; operator and purpose come from there. */
		crawler: text("crawler").notNull(),
		urlHost: text("url_host"),
		urlPath: text("url_path").notNull(),
		country: text("country").notNull().default(""),
		status: integer("status").notNull(),
		ua: text("ua").notNull(),
		/**
		 * Whether the crawler's address (`ip` in the report) is inside the ranges its operator
		 * publishes; null when the operator publishes none or the report carried no address.
		 */
		verified: integer("verified", { mode: "boolean" }),
	},
	(t) => [
		index("crawler_visits_site_ts_idx").on(t.trackingId, t.ts),
		// The clean-up deletes expired visits of every site, oldest first.
		index("crawler_visits_ts_idx").on(t.ts),
	],
);
