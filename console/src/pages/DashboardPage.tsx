import { useEffect } from "react";
import { Link, useParams } from "react-router";
import { api, GOAL_FILTER_PARAMS, negatedFilter, seriesBucketStarts, STATS_FILTER_PARAMS, type StatsFilterName, type StatsQuery } from "../api";
import { tabParam } from "../components/Breakdown";
import { usePageTitle } from "../components/pageTitle";
import { Figure } from "../components/Figure";
import { FilterChips } from "../components/FilterChips";
import { FilterDialog } from "../components/FilterDialog";
import { lastUsed } from "../components/lastUsed";
import { PeriodPicker, periodQuery, usePeriod } from "../components/PeriodPicker";
import { SitePicker } from "../components/Pickers";
import { QueryState } from "../components/QueryState";
import { RefusedHost } from "../components/RefusedHost";
import { SHOWN_ROWS, SiteBreakdowns } from "../components/SiteBreakdowns";
import { MetricChart, RealtimeFigures, realtimeMetric, TopFigures, useGraphMetric } from "../components/TopStats";
import { focusOnceShown } from "../focus";
import { count, utcDate } from "../format";
import { isOpenEnded, isoRange, type Range } from "../period";
import { useRealtimeStats, useSites, useSiteStats } from "../queries";
import { useSearch } from "../searchParams";

/**
 * A period without a page view or event. One that ended before the site was added could hold
 * nothing, whatever its tag: saying so, not that the tag may be missing, when the tag counts today.
 */
function NothingCollected({ range, addedAt }: { range: Range; addedAt: string | undefined }) {
	if (addedAt && range.to <= Date.parse(addedAt))
		return <p className="muted empty">Nothing was collected in this period: it ended before the site was added, on {utcDate(addedAt)}.</p>;
	return (
		<p className="muted empty">
			Nothing was collected in this period. Check that <Link to="/analytics">the site's tag</Link> is on your pages and that the site is collecting.
		</p>
	);
}

/** The realtime view's chart buckets: minutes. */
const MINUTE_MS = 60_000;

export function DashboardPage() {
	const { site = "" } = useParams();
	const [search, change] = useSearch();
	const siteView = useSites().data?.find((s) => s.tracking_id === site);
	const periodOptions = { realtime: true, statsFrom: siteView?.stats_from };
	const { period, current } = usePeriod(periodOptions);
	const realtime = period === "realtime";
	const filters: StatsQuery = Object.fromEntries(STATS_FILTER_PARAMS.map((name) => [name, search.get(name) ?? undefined]));
	// A filtered view over many events is estimated from a sample of the visitors unless the owner
	// asks for every one; its CSV exports count the same way.
	const exact = search.get("exact") === "true";
	const counting = { ...filters, ...(exact ? { exact: "true" } : {}) };
	const query = { ...isoRange(current), ...counting };
	// One row more than a card shows: a card whose list holds it says there are more.
	const limit = String(SHOWN_ROWS + 1);
	// The period before is compared with, as Plausible does, but for the realtime view and all time.
	// All time waits for the site's first day: until then its range would be the longest, asked for in vain.
	const ranged = useSiteStats(site, { ...query, ...(isOpenEnded(period) ? {} : { compare: "previous" }), limit }, !realtime && (period !== "all" || siteView !== undefined));
	// The realtime view's own statistics (the last 30 minutes), read again every 30 seconds.
	const live = useRealtimeStats(site, { ...counting, limit }, realtime);
	const stats = realtime ? live : ranged;
	// Filtered to a custom event (or one of its properties), the visitors are the converted ones:
	// a conversion rate is out of the visitors the other filters keep, as Plausible counts a goal's.
	const converting = GOAL_FILTER_PARAMS.some((param) => filters[param] !== undefined);
	// The answer carries those visitors under a goal's filter (conversion_base).
	const conversionBase = converting ? stats.data?.conversion_base?.visitors : stats.data?.visitors;
	const [metric, chooseMetric] = useGraphMetric(converting);
	const paused = siteView?.active === false;
	usePageTitle(siteView?.name, "Analytics");
	useEffect(() => lastUsed.site.set(site), [site]);

	const setParam = (name: string, value: string) => change({ [name]: value });
	// A filter picked from a row is focused as its chip: the pick may take the row, and focus with
	// it, off the page (a source's row gives way to the referrer URLs behind it).
	const focusChip = (name: StatsFilterName) => focusOnceShown(`[data-filter="${name}"]`);
	// A row picked is "is": it takes the place of that filter's "is not", as a filter's operator is changed in Plausible.
	// A source picked opens its card on the referrer URLs behind it, whichever list it was picked from.
	const pick = (name: StatsFilterName) => (value: string) => {
		if (name === "source") change({ source: value, source_not: null, [tabParam("Sources")]: null });
		else change({ [name]: value, [negatedFilter(name)]: null });
		focusChip(name);
	};
	const pickProperty = (event: string, property: string, value: string) => {
		change({ event, event_not: null, property: `${property}:${value}`, property_not: null });
		focusChip("property");
	};
	const unpick = (name: string) => change({ [name]: null });
	// `exact` goes with them: it only chooses how a filtered answer is counted.
	const clearFilters = () => change(Object.fromEntries([...STATS_FILTER_PARAMS, "exact"].map((name) => [name, null])));
	// A CSV export counts whole hours: none for the realtime view's minutes.
	const download = (csv: string) => (realtime ? undefined : () => api.downloadCsv(site, csv, query));
	const data = stats.data;
	const active = STATS_FILTER_PARAMS.filter((name) => search.has(name));
	// Each of the chart's buckets over the whole period (bucket i is both series' i): the answer's
	// series, and the period before's while the period is under way, stop at the bucket under way,
	// and their lines stop there instead of dropping to zero.
	const times = data ? seriesBucketStarts(Date.parse(data.from), Date.parse(data.to), realtime ? MINUTE_MS : undefined) : [];

	return (
		<section>
			<div className="row spread">
				<h1>Dashboard</h1>
				<div className="row">
					<SitePicker area="analytics" current={site} />
					<PeriodPicker {...periodOptions} />
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
			<div className="row">
				<FilterDialog site={site} query={query} change={change} />
				<FilterChips search={search} change={change} />
			</div>
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
					{realtime ? (
						<RealtimeFigures data={data} converting={converting} chosen={metric} choose={chooseMetric} />
					) : (
						<TopFigures data={data} converting={converting} chosen={metric} choose={chooseMetric}>
							<Figure
								label="On the site now"
								value={count(data.visitors_now)}
								note={<span className="muted">visitors in the last 5 minutes</span>}
								testId="figure-now"
							/>
						</TopFigures>
					)}
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
						) : realtime ? (
							<p className="muted empty">Nothing was collected in the last 30 minutes.</p>
						) : (
							<>
								<NothingCollected range={current} addedAt={siteView?.created_at} />
								{siteView && <RefusedHost site={siteView} />}
							</>
						))}
					<MetricChart metric={realtime ? realtimeMetric(metric) : metric} data={data} times={times} />
					<SiteBreakdowns
						stats={data}
						conversionBase={conversionBase}
						filtered={active.length > 0}
						pick={pick}
						pickProperty={pickProperty}
						download={download}
					/>
				</div>
			)}
		</section>
	);
}
