/** Analytics sites and their statistics (docs/api.md#sites, #statistics). Dependency-free: the console bundles it. */

export interface SiteView {
	tracking_id: string;
	name: string;
	domain: string | null;
	active: boolean;
	attack_mode: boolean;
	created_at: string;
	/**
	 * The first UTC day of the site's statistics (`YYYY-MM-DD`): the day it was added, or the first
	 * whole day the analytics retention keeps, whichever is later. The console's All time starts there.
	 */
	stats_from: string;
	/** The last `url_host` collection refused as outside the domain, and when; null when none since the domain was set. */
	refused_host: string | null;
	refused_at: string | null;
}

/**
 * A site in the list with its figures (`GET /api/sites?figures=last_24h`): its visitors in the last
 * 24 hours, counted as the dashboard counts them, and each hour's own.
 */
export interface SiteWithFiguresView extends SiteView {
	last_24h: { visitors: number; series: Array<{ t: string; visitors: number }> };
}

/** What AI crawlers come for: training data, an AI search index, a user's live question, an agent's task, an open archive. */
export const CRAWLER_PURPOSES = ["training", "search", "user_fetch", "agent", "archiver"] as const;
export type CrawlerPurpose = (typeof CRAWLER_PURPOSES)[number];
/** A crawler's purpose as the statistics show it: `unknown` where nobody documents what it does. */
export type CrawlerCategory = CrawlerPurpose | "unknown";

const HOUR_MS = 3_600_000;

/** The statistics' series buckets for a range of `spanMs`: an hour for ranges up to three days, else a UTC day. */
export const seriesBucketMs = (spanMs: number) => (spanMs <= 72 * HOUR_MS ? HOUR_MS : 24 * HOUR_MS);

/** Every bucket start of a range's series, the hours or days still to come included (the answer's series stop at the one under way). */
export function seriesBucketStarts(from: number, to: number, step = seriesBucketMs(to - from)): number[] {
	const starts: number[] = [];
	for (let t = Math.floor(from / step) * step; t < to; t += step) starts.push(t);
	return starts;
}

/** Filters of the statistics (`?page=/pricing&country=DE`): every one given must hold (domain/analytics/filters.ts). */
export const STATS_FILTER_NAMES = [
	"page",
	"entry_page",
	"exit_page",
	"country",
	"device",
	"browser",
	"os",
	"source",
	"referrer",
	"utm_source",
	"utm_medium",
	"utm_campaign",
	"utm_content",
	"utm_term",
	"ref",
	"event",
	"property",
] as const;
export type StatsFilterName = (typeof STATS_FILTER_NAMES)[number];
/**
 * The filters with no "contains": Plausible's dashboard offers contains on every text dimension but
 * the location and the screen size, so not `country` (a code under a name) nor `device` (three words).
 */
const WITHOUT_CONTAINS = ["country", "device"] as const;
export type ContainsFilterName = Exclude<StatsFilterName, (typeof WITHOUT_CONTAINS)[number]>;
/** Plausible's operators, as its API v2 names them: "is", "is not", "contains", "does not contain". */
export const STATS_FILTER_OPERATORS = ["is", "is_not", "contains", "contains_not"] as const;
export type StatsFilterOperator = (typeof STATS_FILTER_OPERATORS)[number];
/**
 * A filter's parameter: its name for "is" (`country=US`), its name and `_not` for "is not"
 * (`country_not=US`), `_contains` and `_contains_not` for the other two (`page_contains=blog`),
 * so that no value (a path, a source, a campaign) can be read as an operator.
 */
export type StatsFilterParam =
	| StatsFilterName
	| `${StatsFilterName}_not`
	| `${ContainsFilterName}_contains`
	| `${ContainsFilterName}_contains_not`;
export const negatedFilter = <N extends StatsFilterName>(name: N) => `${name}_not` as const;
const containsFilter = (name: StatsFilterName): name is ContainsFilterName => !(WITHOUT_CONTAINS as readonly string[]).includes(name);
/** The operators a filter offers: all four where it contains, else "is" and "is not". */
export const filterOperators = (name: StatsFilterName): readonly StatsFilterOperator[] =>
	containsFilter(name) ? STATS_FILTER_OPERATORS : STATS_FILTER_OPERATORS.slice(0, 2);
/** The parameter of a filter and one of its operators (`page`, `contains` → `page_contains`). */
export const filterParam = (name: StatsFilterName, operator: StatsFilterOperator) =>
	(operator === "is" ? name : `${name}_${operator === "is_not" ? "not" : operator}`) as StatsFilterParam;
/** Every filter's parameters, each of its operators'. */
export const STATS_FILTER_PARAMS: StatsFilterParam[] = STATS_FILTER_NAMES.flatMap((name) => filterOperators(name).map((operator) => filterParam(name, operator)));
/**
 * The filters of a goal (Plausible's goal is, goal contains): they keep the visits that converted,
 * and a conversion rate is out of the visitors the other filters keep.
 */
export const GOAL_FILTER_PARAMS = ["event", "property", "event_contains", "property_contains"] as const satisfies readonly StatsFilterParam[];
type StatsFilters = Partial<Record<StatsFilterParam, string>>;

interface PageViewCounts {
	visitors: number;
	pageviews: number;
}

interface VisitCounts {
	visitors: number;
	visits: number;
}

export const UTM_NAMES = ["utm_source", "utm_medium", "utm_campaign", "utm_content", "utm_term"] as const;
/** The campaign breakdowns: the utm_ parameters and `ref` of each visit's landing page URL. */
type CampaignName = (typeof UTM_NAMES)[number] | "ref";

/**
 * A bucket of a period's series: page views and visitors in it, and the visits (sessions) that
 * began in it with their bounce rate and visit duration, null where no visit began (no share or
 * mean of nothing). Views per visit is `pageviews / sessions`, as for the period.
 */
export interface SeriesPointView extends PageViewCounts {
	t: string;
	sessions: number;
	bounce_rate: number | null;
	avg_duration: number | null;
}

/** The totals and series of a period: the range asked for, or the one before it (`previous`). */
export interface PeriodTotalsView {
	from: string;
	to: string;
	pageviews: number;
	visitors: number;
	events: number;
	identified_visitors: number;
	sessions: number;
	/** Share of sessions that bounced, 0 to 1. */
	bounce_rate: number;
	/** Mean engaged time per session in seconds, one decimal. */
	avg_duration: number;
	series: SeriesPointView[];
	/**
	 * Only under the `event` or `property` filter (a goal's): the visitors of the other filters,
	 * in all and per bucket, which a goal's conversion rate is out of, as Plausible counts it.
	 */
	conversion_base?: { visitors: number; series: Array<{ t: string; visitors: number }> };
}

export interface SiteStatsView extends PeriodTotalsView {
	/**
	 * Visitors with any event in the last 5 minutes, whatever the range and filters; in the realtime
	 * answer (`/stats/realtime`), among the events the filters keep.
	 */
	visitors_now: number;
	filters: StatsFilters;
	/**
	 * Share of the visitors counted, in percent: 100, or, for a filtered answer over many events
	 * without `exact=true`, the sample's share, every count then scaled up to an estimate.
	 */
	sample_percent: number;
	/** `scroll_depth` (percent) and `time_on_page` (seconds) are null when no visitor reported one. */
	top_pages: Array<{ path: string; scroll_depth: number | null; time_on_page: number | null } & PageViewCounts>;
	entry_pages: Array<{ path: string } & VisitCounts>;
	exit_pages: Array<{ path: string } & VisitCounts>;
	sources: Array<{ source: string } & VisitCounts>;
	top_referrers: Array<{ referrer: string } & PageViewCounts>;
	/** With the `source` filter: that source's referrers, as host and path without the query (`news.ycombinator.com/item`). */
	referrer_urls?: Array<{ referrer_url: string } & PageViewCounts>;
	campaigns: { [Name in CampaignName]: Array<{ [K in Name]: string } & VisitCounts> };
	countries: Array<{ country: string } & PageViewCounts>;
	browsers: Array<{ browser: string } & PageViewCounts>;
	os: Array<{ os: string } & PageViewCounts>;
	devices: Array<{ device: string } & PageViewCounts>;
	custom_events: Array<{ name: string; events: number; visitors: number }>;
	/** Scalar members of custom events' data, per event name, member and value. */
	event_properties: Array<{ name: string; property: string; value: string; events: number }>;
	/** With `compare=previous`: the period of equal length just before `from`. */
	previous?: PeriodTotalsView;
}

/** The pages report's order (`?sort=`): page views and crawler visits together, crawler visits first, or page views first. */
export const PAGES_SORTS = ["total", "ai", "people"] as const;
export type PagesSort = (typeof PAGES_SORTS)[number];
/** The pages report's selection (`?only=`): the pages only AI crawlers read, or only people viewed. */
export const PAGES_ONLY = ["ai", "people"] as const;
export type PagesOnly = (typeof PAGES_ONLY)[number];

/** `GET /api/sites/:tracking_id/pages`: what people and AI crawlers read, page by page. */
export interface SitePagesView {
	from: string;
	to: string;
	sort: PagesSort;
	only: PagesOnly | null;
	pages: Array<{ path: string; pageviews: number; visitors: number; crawler_visits: number; crawlers: Array<{ name: string; visits: number }> }>;
}

/**
 * Visits `verified` from inside the operator's published address ranges, `unverified` from
 * outside them; the rest could not be checked (no published ranges, or no address reported).
 */
interface VerifiedCounts {
	verified: number;
	unverified: number;
}

export interface CrawlerStatsView {
	from: string;
	to: string;
	visits: number;
	verified_visits: number;
	unverified_visits: number;
	crawlers: Array<{ name: string; operator: string; category: CrawlerCategory; visits: number } & VerifiedCounts>;
	categories: Array<{ category: CrawlerCategory; visits: number }>;
	top_paths: Array<{ path: string; visits: number }>;
	statuses: Array<{ status: number; visits: number }>;
	series: Array<{ t: string; visits: number }>;
	/** The busiest crawlers' own series (at most 5, in the order of `crawlers`), bucketed as `series`. */
	crawler_series: Array<{ name: string; series: Array<{ t: string; visits: number }> }>;
	/** The newest 50; `verified` is null when the visit could not be checked. */
	recent: Array<{ crawler: string; url_host: string | null; url_path: string; country: string; status: number; verified: boolean | null; ts: string }>;
}
