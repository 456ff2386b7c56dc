import { filterOperators, filterParam, type SiteStatsView, type StatsFilterName, UTM_NAMES } from "../api";
import { duration } from "../format";
import { Breakdown, type BreakdownRow } from "./Breakdown";
import { CustomEventsCard } from "./CustomEventsCard";

let regionNames: Intl.DisplayNames | undefined;
/** "Germany" for DE; the code itself when the browser does not know it. */
export function countryName(code: string): string {
	if (!/^[A-Z]{2}$/.test(code)) return code;
	regionNames ??= new Intl.DisplayNames(undefined, { type: "region" });
	return regionNames.of(code) ?? code;
}

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
export const SHOWN_ROWS = 10;

const VIEWS = { column: "Visitors", extraColumn: "Views" };
const VISITS = { column: "Visits", extraColumn: "Visitors" };

/** The dashboard's breakdown cards: pages, sources, campaigns, countries, devices and custom events. */
export function SiteBreakdowns({
	stats,
	conversionBase,
	filtered,
	pick,
	pickProperty,
	download,
}: {
	stats: SiteStatsView;
	/** The visitors a custom event's conversion rate is out of (undefined while they are read). */
	conversionBase: number | undefined;
	/** A filter is applied: an empty list says nothing matches it, not that the site sends none (the set-up hints would mislead). */
	filtered: boolean;
	pick: (name: StatsFilterName) => (value: string) => void;
	pickProperty: (event: string, property: string, value: string) => void;
	/** A list's CSV export; none where the lists are not the statistics' of a range (the realtime view). */
	download: (csv: string) => (() => Promise<void>) | undefined;
}) {
	const source = stats.filters.source;
	// A card opens on the list a filter was picked from, whatever its operator.
	const filteredBy = (name: StatsFilterName) => filterOperators(name).some((operator) => stats.filters[filterParam(name, operator)] !== undefined);
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
					{ title: "Entry pages", ...VISITS, picked: filteredBy("entry_page"), empty: "No visits.", onPick: pick("entry_page"), download: download("entry_pages"), rows: visitRows(stats.entry_pages, (r) => r.path) },
					{ title: "Exit pages", ...VISITS, picked: filteredBy("exit_page"), empty: "No visits.", onPick: pick("exit_page"), download: download("exit_pages"), rows: visitRows(stats.exit_pages, (r) => r.path) },
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
						picked: filteredBy("referrer"),
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
					picked: filteredBy(name),
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
					{ title: "OS", ...VIEWS, picked: filteredBy("os"), empty: "No page views.", onPick: pick("os"), download: download("os"), rows: viewRows(stats.os, (r) => r.os) },
					{ title: "Devices", ...VIEWS, picked: filteredBy("device"), empty: "No page views.", onPick: pick("device"), download: download("devices"), rows: viewRows(stats.devices, (r) => r.device) },
				]}
			/>
			<CustomEventsCard stats={stats} conversionBase={conversionBase} filtered={filtered} shownRows={SHOWN_ROWS} pickEvent={pick("event")} pickProperty={pickProperty} download={download} />
		</div>
	);
}
