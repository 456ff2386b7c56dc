import { useEffect } from "react";
import { Link, useParams } from "react-router";
import { api, type SiteStatsView, seriesBucketStarts, STATS_FILTER_NAMES, type StatsFilterName, type StatsQuery, UTM_NAMES } from "../api";
import { Breakdown, type BreakdownRow, tabParam } from "../components/Breakdown";
import { CustomEventsCard } from "../components/CustomEventsCard";
import { usePageTitle } from "../components/pageTitle";
import { Figure } from "../components/Figure";
import { lastUsed } from "../components/lastUsed";
import { PeriodPicker, periodQuery, usePeriod } from "../components/PeriodPicker";
import { SitePicker } from "../components/Pickers";
import { QueryState } from "../components/QueryState";
import { TimeChart } from "../components/TimeChart";
import { count, duration, oneDecimal, percent, plural } from "../format";
import { isoRange } from "../period";
import { useSites, useSiteStats } from "../queries";
import { useSearch } from "../searchParams";

/** How each filter is named on the page. */
const FILTER_LABELS: Record<StatsFilterName, string> = {
	page: "Page",
	entry_page: "Entry page",
	exit_page: "Exit page",
	country: "Country",
	device: "Device",
	browser: "Browser",
	os: "OS",
	source: "Source",
	referrer: "Referrer",
	utm_source: "UTM source",
	utm_medium: "UTM medium",
	utm_campaign: "UTM campaign",
	utm_content: "UTM content",
	utm_term: "UTM term",
	ref: "Ref",
	event: "Custom event",
	property: "Property",
};

/** A filter's value as the page shows it: a property filter (`plan:pro`) as its row reads, `plan = pro`. */
function filterText(name: StatsFilterName, value: string): string {
	if (name === "country") return countryName(value);
	if (name === "property") return value.replace(":", " = ");
	return value;
}

let regionNames: Intl.DisplayNames | undefined;
/** "Germany" for DE; the code itself when the browser does not know it. */
function countryName(code: string): string {
	if (!/^[A-Z]{2}$/.test(code)) return code;
	regionNames ??= new Intl.DisplayNames(undefined, { type: "region" });
	return regionNames.of(code) ?? code;
}

/** A figure with its change from the previous period, in words for screen readers. */
function Compared({ label, value, previous, format, lowerIsBetter = false }: { label: string; value: number; previous?: number; format: (n: number) => string; lowerIsBetter?: boolean }) {
	let change = null;
	if (previous !== undefined && previous > 0) {
		const ratio = (value - previous) / previous;
		const better = lowerIsBetter ? ratio < 0 : ratio > 0;
		const words = `${ratio > 0 ? "up" : "down"} ${percent(Math.abs(ratio))} from the previous period`;
		change =
			ratio === 0 ? (
				<span className="muted">no change</span>
			) : (
				<span className={`change ${better ? "up" : "down"}`} title={words}>
					<span aria-hidden="true">
						{ratio > 0 ? "↑" : "↓"} {percent(Math.abs(ratio))}
					</span>
					<span className="visually-hidden">{words}</span>
				</span>
			);
	} else if (previous === 0 && value > 0) change = <span className="muted">{format === count ? "none the period before" : `was ${format(0)}`}</span>;
	return <Figure label={label} value={format(value)} note={change} testId={`figure-${label}`} />;
}

/** Page views per visit (session), one decimal; 0 without visits. */
const viewsPerVisit = ({ pageviews, sessions }: { pageviews: number; sessions: number }) => (sessions > 0 ? Math.round((pageviews / sessions) * 10) / 10 : 0);

/** Rows of a list counted in visitors and page views (pages, referrers, countries, browsers...). */
const viewRows = <T extends { visitors: number; pageviews: number }>(list: T[], key: (row: T) => string, label: (row: T) => string = key): BreakdownRow[] =>
	list.map((row) => ({ key: key(row), label: label(row), value: row.visitors, extra: row.pageviews }));

/** Rows of a list counted in visits (sessions) and visitors (entry and exit pages, sources, campaigns). */
const visitRows = <T extends { visitors: number; visits: number }>(list: T[], key: (row: T) => string): BreakdownRow[] =>
	list.map((row) => ({ key: key(row), label: key(row), value: row.visits, extra: row.visitors }));

type CampaignName = keyof SiteStatsView["campaigns"];
const CAMPAIGN_NAMES: CampaignName[] = [...UTM_NAMES, "ref"];
const CAMPAIGN_TABS: Record<CampaignName, string> = {
	utm_source: "Source",
	utm_medium: "Medium",
	utm_campaign: "Campaign",
	utm_content: "Content",
	utm_term: "Term",
	ref: "Ref",
};

/** Rows a breakdown card shows; the CSV holds the whole list. */
const SHOWN_ROWS = 10;

const VIEWS = { column: "Visitors", extraColumn: "Views" };
const VISITS = { column: "Visits", extraColumn: "Visitors" };

function Breakdowns({
	stats,
	filtered,
	pick,
	pickProperty,
	download,
}: {
	stats: SiteStatsView;
	/** A filter is applied: an empty list says nothing matches it, not that the site sends none (the set-up hints would mislead). */
	filtered: boolean;
	pick: (name: StatsFilterName) => (value: string) => void;
	pickProperty: (event: string, property: string, value: string) => void;
	download: (csv: string) => () => Promise<void>;
}) {
	const source = stats.filters.source;
	// A source picked (in the URL as its filter) opens on the referrers behind it: the raw referrer one click from the source.
	const referrerUrls =
		source !== undefined && stats.referrer_urls
			? [
					{
						title: "Referrer URLs",
						...VIEWS,
						empty: `No visit from ${source} came with a referrer.`,
						download: download("referrer_urls"),
						rows: viewRows(stats.referrer_urls, (r) => r.referrer_url),
					},
				]
			: [];
	const engaged = stats.top_pages.filter((p) => p.time_on_page !== null || p.scroll_depth !== null);
	return (
		<div className="breakdowns">
			<Breakdown
				shownRows={SHOWN_ROWS}
				heading="Pages"
				tabs={[
					{ title: "Top pages", ...VIEWS, empty: "No page views.", onPick: pick("page"), download: download("pages"), rows: viewRows(stats.top_pages, (r) => r.path) },
					{ title: "Entry pages", ...VISITS, picked: stats.filters.entry_page !== undefined, empty: "No visits.", onPick: pick("entry_page"), download: download("entry_pages"), rows: visitRows(stats.entry_pages, (r) => r.path) },
					{ title: "Exit pages", ...VISITS, picked: stats.filters.exit_page !== undefined, empty: "No visits.", onPick: pick("exit_page"), download: download("exit_pages"), rows: visitRows(stats.exit_pages, (r) => r.path) },
					{
						title: "Engagement",
						column: "Time on page",
						extraColumn: "Scroll depth",
						empty: filtered
							? "No page under the filters reported engagement."
							: "No page reported engagement yet (the tracker reports it when a page is hidden or left).",
						onPick: pick("page"),
						rows: engaged.map((p) => ({
							key: p.path,
							label: p.path,
							value: p.time_on_page ?? 0,
							valueText: p.time_on_page === null ? "–" : duration(p.time_on_page),
							extra: p.scroll_depth === null ? "–" : `${p.scroll_depth}%`,
						})),
					},
				]}
			/>
			<Breakdown
				shownRows={SHOWN_ROWS}
				heading="Sources"
				tabs={[
					...referrerUrls,
					{
						title: "Sources",
						...VISITS,
						empty: "No visits.",
						onPick: pick("source"),
						download: download("sources"),
						rows: visitRows(stats.sources, (r) => r.source),
					},
					{
						title: "Referrers",
						...VIEWS,
						picked: stats.filters.referrer !== undefined,
						empty: "No visits came from another site.",
						onPick: pick("referrer"),
						download: download("referrers"),
						rows: viewRows(stats.top_referrers, (r) => r.referrer),
					},
				]}
			/>
			<Breakdown
				shownRows={SHOWN_ROWS}
				heading="Campaigns"
				tabs={CAMPAIGN_NAMES.map((name) => ({
					title: CAMPAIGN_TABS[name],
					...VISITS,
					picked: stats.filters[name] !== undefined,
					empty: `No visit arrived with ${name}.`,
					onPick: pick(name),
					download: download(name),
					rows: visitRows<{ visitors: number; visits: number }>(stats.campaigns[name], (r) => String((r as Record<string, unknown>)[name])),
				}))}
			/>
			<Breakdown
				shownRows={SHOWN_ROWS}
				heading="Countries"
				tabs={[
					{
						title: "Countries",
						...VIEWS,
						empty: "No page views.",
						onPick: pick("country"),
						download: download("countries"),
						rows: viewRows(stats.countries, (r) => r.country, (r) => countryName(r.country)),
					},
				]}
			/>
			<Breakdown
				shownRows={SHOWN_ROWS}
				heading="Devices"
				tabs={[
					{ title: "Browsers", ...VIEWS, empty: "No page views.", onPick: pick("browser"), download: download("browsers"), rows: viewRows(stats.browsers, (r) => r.browser) },
					{ title: "OS", ...VIEWS, picked: stats.filters.os !== undefined, empty: "No page views.", onPick: pick("os"), download: download("os"), rows: viewRows(stats.os, (r) => r.os) },
					{ title: "Devices", ...VIEWS, picked: stats.filters.device !== undefined, empty: "No page views.", onPick: pick("device"), download: download("devices"), rows: viewRows(stats.devices, (r) => r.device) },
				]}
			/>
			<CustomEventsCard stats={stats} filtered={filtered} shownRows={SHOWN_ROWS} pickEvent={pick("event")} pickProperty={pickProperty} download={download} />
		</div>
	);
}

export function DashboardPage() {
	const { site = "" } = useParams();
	const [search, change] = useSearch();
	const { current } = usePeriod();
	const filters: StatsQuery = Object.fromEntries(STATS_FILTER_NAMES.map((name) => [name, search.get(name) ?? undefined]));
	// A filtered view over many events is estimated from a sample of the visitors unless the owner
	// asks for every one; its CSV exports count the same way.
	const exact = search.get("exact") === "true";
	const query = { ...isoRange(current), ...filters, ...(exact ? { exact: "true" } : {}) };
	// One row more than a card shows: a card whose list holds it says there are more.
	const stats = useSiteStats(site, { ...query, compare: "previous", limit: String(SHOWN_ROWS + 1) });
	const siteView = useSites().data?.find((s) => s.tracking_id === site);
	const paused = siteView?.active === false;
	usePageTitle(siteView?.name, "Analytics");
	useEffect(() => lastUsed.site.set(site), [site]);

	const setParam = (name: string, value: string) => change({ [name]: value });
	// A source picked opens its card on the referrer URLs behind it, whichever list it was picked from.
	const pick = (name: StatsFilterName) => (value: string) => (name === "source" ? change({ source: value, [tabParam("Sources")]: null }) : setParam(name, value));
	const pickProperty = (event: string, property: string, value: string) => change({ event, property: `${property}:${value}` });
	const unpick = (name: string) => change({ [name]: null });
	// `exact` goes with them: it only chooses how a filtered answer is counted.
	const clearFilters = () => change(Object.fromEntries([...STATS_FILTER_NAMES, "exact"].map((name) => [name, null])));
	const download = (csv: string) => () => api.downloadCsv(site, csv, query);
	const data = stats.data;
	const old = data?.previous;
	// Shares and means of visits compare only with a period that had visits.
	const oldVisits = old && old.sessions > 0 ? old : undefined;
	const active = STATS_FILTER_NAMES.filter((name) => search.has(name));
	// Each of the chart's buckets over the whole period (bucket i is both series' i): the answer's
	// series, and the period before's while the period is under way, stop at the bucket under way,
	// and their lines stop there instead of dropping to zero.
	const times = data ? seriesBucketStarts(Date.parse(data.from), Date.parse(data.to)) : [];

	return (
		<section>
			<div className="row spread">
				<h1>Dashboard</h1>
				<div className="row">
					<SitePicker area="analytics" current={site} />
					<PeriodPicker />
				</div>
			</div>
			<p className="row muted">
				<Link to="/analytics">All sites and their tags</Link>
				<Link to={`/crawlers/${site}?${periodQuery(search)}`}>AI crawlers of this site</Link>
			</p>
			{paused && (
				<p className="card notice" role="status">
					Collection is off for this site: its page views, events and crawler visits are refused until Collecting is ticked again under{" "}
					<Link to="/analytics">Analytics</Link>. What was collected before is below.
				</p>
			)}
			{active.length > 0 && (
				<div className="row filters-active">
					<span className="muted">Filtered to</span>
					{active.map((name) => {
						const value = filterText(name, search.get(name) ?? "");
						// The accessible name starts with the visible text, so a voice command naming what is seen finds it.
						return (
							<button key={name} type="button" className="chip" onClick={() => unpick(name)} aria-label={`${FILTER_LABELS[name]}: ${value}, remove filter`}>
								{FILTER_LABELS[name]}: {value} <span aria-hidden="true">×</span>
							</button>
						);
					})}
				</div>
			)}
			<QueryState query={stats} loading="Loading statistics…" empty="" isEmpty={() => false} />
			{data && data.sample_percent < 100 && (
				<p className="row muted" data-testid="sample-note">
					Estimated from {data.sample_percent} % of visitors, as this filtered view spans many events.
					<button type="button" className="link" onClick={() => setParam("exact", "true")}>
						Count every visitor
					</button>
				</p>
			)}
			{exact && active.length > 0 && (
				<p className="row muted">
					Every visitor counted; long periods take longer.
					<button type="button" className="link" onClick={() => unpick("exact")}>
						Estimate instead
					</button>
				</p>
			)}
			{data && (
				<div aria-busy={stats.isPlaceholderData} className={stats.isPlaceholderData ? "stale" : undefined}>
					<div className="figures">
						<Figure
							label="On the site now"
							value={count(data.visitors_now)}
							note={<span className="muted">visitors in the last 5 minutes</span>}
							testId="figure-now"
						/>
						<Compared label="Visitors" value={data.visitors} previous={old?.visitors} format={count} />
						<Compared label="Page views" value={data.pageviews} previous={old?.pageviews} format={count} />
						<Compared label="Visits" value={data.sessions} previous={old?.sessions} format={count} />
						<Compared label="Views per visit" value={viewsPerVisit(data)} previous={oldVisits && viewsPerVisit(oldVisits)} format={oneDecimal} />
						<Compared label="Bounce rate" value={data.bounce_rate} previous={oldVisits?.bounce_rate} format={percent} lowerIsBetter />
						<Compared label="Visit duration" value={data.avg_duration} previous={oldVisits?.avg_duration} format={duration} />
					</div>
					{data.pageviews === 0 &&
						data.events === 0 &&
						// Under filters an empty answer says nothing about the tag: the filters left nothing.
						(active.length > 0 ? (
							<p className="muted empty" role="status">
								Nothing in this period matches the filters{data.sample_percent < 100 ? " among the sampled visitors" : ""}. Remove one with its × above, or{" "}
								<button type="button" className="link" onClick={clearFilters}>
									remove every filter
								</button>
								.
							</p>
						) : (
							<p className="muted empty">
								Nothing was collected in this period. Check that <Link to="/analytics">the site's tag</Link> is on your pages and that the site is
								collecting.
							</p>
						))}
					<section className="card" aria-labelledby="over-time">
						<h2 id="over-time">Visitors and page views</h2>
						<TimeChart
							times={times}
							series={[
								{ label: "Visitors", values: times.map((_, i) => data.series[i]?.visitors ?? null), color: "--chart-1", total: data.visitors },
								{ label: "Page views", values: times.map((_, i) => data.series[i]?.pageviews ?? null), color: "--chart-2", total: data.pageviews },
								// The period before, bucket by bucket from its start: the same length, so the same place on the chart.
								...(old ? [{ label: "Visitors, period before", values: times.map((_, i) => old.series[i]?.visitors ?? null), color: "--chart-3", dashed: true, total: old.visitors }] : []),
							]}
							label={`Visitors and page views over the period: ${plural(data.visitors, "visitor")}, ${plural(data.pageviews, "page view")}${old ? `; ${plural(old.visitors, "visitor")} in the period before` : ""}`}
						/>
					</section>
					<Breakdowns stats={data} filtered={active.length > 0} pick={pick} pickProperty={pickProperty} download={download} />
				</div>
			)}
		</section>
	);
}
