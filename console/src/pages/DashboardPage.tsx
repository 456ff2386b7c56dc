import { useEffect } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import type { SiteStatsView } from "../api";
import { Breakdown, type BreakdownRow } from "../components/Breakdown";
import { Figure } from "../components/Figure";
import { lastUsed } from "../components/lastUsed";
import { PeriodPicker, usePeriod } from "../components/PeriodPicker";
import { SitePicker } from "../components/Pickers";
import { QueryState } from "../components/QueryState";
import { TimeChart } from "../components/TimeChart";
import { count, duration, percent } from "../format";
import { isoRange } from "../period";
import { useSiteStats } from "../queries";

const FILTERS = [
	["page", "Page"],
	["referrer", "Source"],
	["country", "Country"],
	["browser", "Browser"],
	["os", "OS"],
	["device", "Device"],
] as const;
type FilterName = (typeof FILTERS)[number][0];

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
	} else if (previous === 0 && value > 0) change = <span className="muted">new this period</span>;
	return <Figure label={label} value={format(value)} note={change} testId={`figure-${label}`} />;
}

function rows<T>(list: T[], key: (row: T) => string, value: (row: T) => number, extra?: (row: T) => number, label?: (row: T) => string): BreakdownRow[] {
	return list.map((row) => ({ key: key(row), label: label ? label(row) : key(row), value: value(row), extra: extra?.(row) }));
}

function Breakdowns({ stats, pick }: { stats: SiteStatsView; pick: (name: FilterName) => (value: string) => void }) {
	const visitorsAndViews = { column: "Visitors", extraColumn: "Views" };
	const properties = stats.event_properties;
	return (
		<div className="breakdowns">
			<Breakdown
				heading="Pages"
				tabs={[
					{ title: "Top pages", ...visitorsAndViews, empty: "No page views.", onPick: pick("page"), rows: rows(stats.top_pages, (r) => r.path, (r) => r.visitors, (r) => r.pageviews) },
					{
						title: "Entry pages",
						column: "Entries",
						extraColumn: "Visitors",
						empty: "No visits.",
						onPick: pick("page"),
						rows: rows(stats.entry_pages, (r) => r.path, (r) => r.entries, (r) => r.visitors),
					},
				]}
			/>
			<Breakdown
				heading="Sources"
				tabs={[
					{
						title: "Referrers",
						...visitorsAndViews,
						empty: "No visits came from another site.",
						onPick: pick("referrer"),
						rows: rows(stats.top_referrers, (r) => r.referrer, (r) => r.visitors, (r) => r.pageviews),
					},
				]}
			/>
			<Breakdown
				heading="Countries"
				tabs={[
					{
						title: "Countries",
						...visitorsAndViews,
						empty: "No page views.",
						onPick: pick("country"),
						rows: rows(stats.countries, (r) => r.country, (r) => r.visitors, (r) => r.pageviews, (r) => countryName(r.country)),
					},
				]}
			/>
			<Breakdown
				heading="Devices"
				tabs={[
					{ title: "Browsers", ...visitorsAndViews, empty: "No page views.", onPick: pick("browser"), rows: rows(stats.browsers, (r) => r.browser, (r) => r.visitors, (r) => r.pageviews) },
					{ title: "OS", ...visitorsAndViews, empty: "No page views.", onPick: pick("os"), rows: rows(stats.os, (r) => r.os, (r) => r.visitors, (r) => r.pageviews) },
					{ title: "Devices", ...visitorsAndViews, empty: "No page views.", onPick: pick("device"), rows: rows(stats.devices, (r) => r.device, (r) => r.visitors, (r) => r.pageviews) },
				]}
			/>
			<Breakdown
				heading="Custom events"
				tabs={[
					{
						title: "Custom events",
						column: "Events",
						extraColumn: "Visitors",
						empty: "No custom events. Send them with svc.track(name, data).",
						rows: rows(stats.custom_events, (r) => r.name, (r) => r.events, (r) => r.visitors),
					},
					{
						title: "Properties",
						column: "Events",
						empty: "No custom event carried data.",
						rows: rows(
							properties,
							(r) => `${r.name}\u0000${r.property}\u0000${r.value}`,
							(r) => r.events,
							undefined,
							(r) => `${r.name} · ${r.property} = ${r.value}`,
						),
					},
				]}
			/>
		</div>
	);
}

export function DashboardPage() {
	const { site = "" } = useParams();
	const [search, setSearch] = useSearchParams();
	const { current, previous } = usePeriod();
	const filters = Object.fromEntries(FILTERS.map(([name]) => [name, search.get(name) ?? undefined]));
	const stats = useSiteStats(site, { ...isoRange(current), ...filters });
	const before = useSiteStats(site, { ...isoRange(previous), ...filters, limit: "1" });
	useEffect(() => lastUsed.site.set(site), [site]);

	const pick = (name: FilterName) => (value: string) =>
		setSearch((s) => {
			s.set(name, value);
			return s;
		});
	const unpick = (name: string) =>
		setSearch((s) => {
			s.delete(name);
			return s;
		});
	const data = stats.data;
	const old = before.data;
	const active = FILTERS.filter(([name]) => search.has(name));

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
				<Link to={`/crawlers/${site}?${search}`}>AI crawlers of this site</Link>
			</p>
			{active.length > 0 && (
				<div className="row filters-active">
					<span className="muted">Filtered to</span>
					{active.map(([name, label]) => (
						<button key={name} type="button" className="chip" onClick={() => unpick(name)} aria-label={`Remove filter ${label}: ${search.get(name)}`}>
							{label}: {name === "country" ? countryName(search.get(name) ?? "") : search.get(name)} <span aria-hidden="true">×</span>
						</button>
					))}
				</div>
			)}
			<QueryState query={stats} loading="Loading statistics…" empty="" isEmpty={() => false} />
			{data && (
				<>
					<div className="figures">
						<Compared label="Visitors" value={data.visitors} previous={old?.visitors} format={count} />
						<Compared label="Page views" value={data.pageviews} previous={old?.pageviews} format={count} />
						<Compared label="Sessions" value={data.sessions} previous={old?.sessions} format={count} />
						<Compared label="Bounce rate" value={data.bounce_rate} previous={old?.bounce_rate} format={percent} lowerIsBetter />
						<Compared label="Time on page" value={data.avg_duration} previous={old?.avg_duration} format={duration} />
					</div>
					{data.pageviews === 0 && data.events === 0 && (
						<p className="muted empty">
							Nothing was collected in this period. Check that <Link to="/analytics">the site's tag</Link> is on your pages and that the site is
							collecting.
						</p>
					)}
					<section className="card" aria-labelledby="over-time">
						<h2 id="over-time">Visitors and page views</h2>
						<TimeChart
							times={data.series.map((b) => Date.parse(b.t))}
							series={[
								{ label: "Visitors", values: data.series.map((b) => b.visitors), color: "--chart-1" },
								{ label: "Page views", values: data.series.map((b) => b.pageviews), color: "--chart-2" },
							]}
							label={`Visitors and page views over the period: ${data.visitors} visitors, ${data.pageviews} page views`}
						/>
					</section>
					<Breakdowns stats={data} pick={pick} />
				</>
			)}
		</section>
	);
}
