/** Analytics sites and their statistics (docs/api.md#sites, #statistics). Dependency-free: the console bundles it. */

export interface SiteView {
	tracking_id: string;
	name: string;
	domain: string | null;
	active: boolean;
	attack_mode: boolean;
	created_at: string;
}

interface Counts {
	visitors: number;
	pageviews: number;
}

export interface SiteStatsView {
	from: string;
	to: string;
	pageviews: number;
	visitors: number;
	sessions: number;
	events: number;
	identified_visitors: number;
	/** Share of sessions that bounced, 0 to 1. */
	bounce_rate: number;
	/** Seconds, one decimal. */
	avg_duration: number;
	series: Array<{ t: string } & Counts>;
	top_pages: Array<{ path: string } & Counts>;
	top_referrers: Array<{ referrer: string } & Counts>;
	countries: Array<{ country: string } & Counts>;
	browsers: Array<{ browser: string } & Counts>;
	os: Array<{ os: string } & Counts>;
	devices: Array<{ device: string } & Counts>;
	custom_events: Array<{ name: string; events: number; visitors: number }>;
	/** The first page view of each session. */
	entry_pages: Array<{ path: string; entries: number; visitors: number }>;
	/** Scalar members of custom events' data, per event name, member and value. */
	event_properties: Array<{ name: string; property: string; value: string; events: number }>;
}

export interface CrawlerStatsView {
	from: string;
	to: string;
	visits: number;
	crawlers: Array<{ name: string; operator: string; category: string; visits: number }>;
	categories: Array<{ category: string; visits: number }>;
	top_paths: Array<{ path: string; visits: number }>;
	statuses: Array<{ status: number; visits: number }>;
	series: Array<{ t: string; visits: number }>;
	recent: Array<{ crawler: string; url_host: string | null; url_path: string; country: string; status: number; ts: string }>;
	/** AI-crawler reads beside human page views, per path. */
	pages: Array<{ path: string; crawler_visits: number; pageviews: number }>;
}
