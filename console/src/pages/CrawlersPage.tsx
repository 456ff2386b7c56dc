import { useEffect, useState } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import type { CrawlerStatsView, PagesOnly, PagesSort } from "../../../domain/api/sites";
import { OWNER_LIMITS } from "../../../domain/limits";
import { Breakdown } from "../components/Breakdown";
import { usePageTitle } from "../components/pageTitle";
import { Figure } from "../components/Figure";
import { lastUsed } from "../components/lastUsed";
import { PeriodPicker, periodQuery, usePeriod } from "../components/PeriodPicker";
import { SitePicker } from "../components/Pickers";
import { CopyButton } from "../components/CopyButton";
import { QueryState } from "../components/QueryState";
import { crawlerForwarder } from "../crawlerForwarder";
import { TableWrap } from "../components/TableWrap";
import { type Series, TimeChart } from "../components/TimeChart";
import { ago, count, plural, utcDateTime } from "../format";
import { isoRange } from "../period";
import type { CrawlerPurpose } from "../api";
import { useCrawlerStats, useSitePages, useSites } from "../queries";
import { useSearch } from "../searchParams";

const PURPOSES: Record<CrawlerPurpose | "unknown", string> = {
	training: "AI training",
	search: "AI search",
	user_fetch: "AI fetch for a user",
	agent: "AI agent",
	archiver: "Open archive",
	unknown: "Purpose unknown",
};

/** Whether a visit came from its operator's published addresses; null when it could not be checked. */
function Verified({ verified }: { verified: boolean | null }) {
	if (verified === null) return <span className="muted">not checked</span>;
	return verified ? <span className="tag verified">verified</span> : <span className="tag unverified">not from its operator</span>;
}

/** Each crawler's line: the chart's three colours, then dashed (a few lines are all a chart can tell apart). */
const CRAWLER_LINES: Array<Pick<Series, "color" | "dashed">> = [
	{ color: "--chart-1" },
	{ color: "--chart-2" },
	{ color: "--chart-3" },
	{ color: "--chart-1", dashed: true },
	{ color: "--chart-2", dashed: true },
];

/** Visits over time, a line for each of the busiest crawlers and one for the rest (docs/api.md#crawler-statistics). */
function VisitsOverTime({ data }: { data: CrawlerStatsView }) {
	const others = data.series.map((bucket, i) => bucket.visits - data.crawler_series.reduce((sum, c) => sum + c.series[i].visits, 0));
	const othersTotal = others.reduce((a, b) => a + b, 0);
	const lines: Series[] = [
		...data.crawler_series.map((c, i) => ({
			label: c.name,
			values: c.series.map((b) => b.visits),
			total: c.series.reduce((sum, b) => sum + b.visits, 0),
			...CRAWLER_LINES[i % CRAWLER_LINES.length],
		})),
		...(othersTotal > 0 ? [{ label: "Other crawlers", values: others, color: "--chart-3", dashed: true, total: othersTotal }] : []),
		// Nothing in the period: the zeros of all of them, so the chart still shows the period.
		...(data.crawler_series.length === 0 ? [{ label: "Crawler visits", values: others, color: "--chart-1", total: 0 }] : []),
	];
	const totals = data.crawlers.filter((c) => data.crawler_series.some((s) => s.name === c.name)).map((c) => `${c.name} ${count(c.visits)}`);
	if (othersTotal > 0) totals.push(`other crawlers ${count(othersTotal)}`);
	return (
		<TimeChart
			height={200}
			times={data.series.map((b) => Date.parse(b.t))}
			series={lines}
			label={`AI crawler visits over the period, per crawler: ${totals.join(", ") || "none"}; ${count(data.visits)} in all`}
		/>
	);
}

/** The pages table's views, kept in the URL as `pages`: each a sort and a selection of the pages report. */
const NO_PAGES = "No page was read or viewed in this period.";
const PAGE_VIEWS: Record<string, { label: string; sort: PagesSort; only?: PagesOnly; empty: string }> = {
	total: { label: "Busiest, AI and people together", sort: "total", empty: NO_PAGES },
	ai: { label: "Most read by AI", sort: "ai", empty: NO_PAGES },
	people: { label: "Most viewed by people", sort: "people", empty: NO_PAGES },
	"ai-only": { label: "Read by AI only", sort: "ai", only: "ai", empty: "Every page AI crawlers read in this period was viewed by people too." },
	"people-only": { label: "Viewed by people only", sort: "people", only: "people", empty: "Every page people viewed in this period was read by AI crawlers too." },
};
const PAGES_STEP = 20;
/** The most the pages report answers at once (docs/api.md#pages-people-and-crawlers). */
const PAGES_MAX = OWNER_LIMITS.breakdownRows;

/** Pages next to their AI reads and human views, in the view the URL names, 20 more at a time up to the API's most. */
function PagesReadAndViewed({ site, range }: { site: string; range: Record<string, string> }) {
	const [search, change] = useSearch();
	const asked = search.get("pages") ?? "";
	const view = Object.hasOwn(PAGE_VIEWS, asked) ? asked : "total";
	const { sort, only, empty } = PAGE_VIEWS[view];
	// "Show more" counts for the view it was pressed in: another view starts from 20 again.
	const [shown, setShown] = useState({ view, limit: PAGES_STEP });
	const limit = shown.view === view ? shown.limit : PAGES_STEP;
	const pages = useSitePages(site, { ...range, limit: String(limit), sort, only });
	const rows = pages.data?.pages ?? [];
	const choose = (next: string) => change({ pages: next === "total" ? null : next });

	return (
		<section className="card" aria-labelledby="read-vs-viewed">
			<h2 id="read-vs-viewed">Read by AI, viewed by people</h2>
			<p className="muted">Each page AI crawlers read or people viewed: which pages AI systems read and people don't, and the reverse.</p>
			<label className="inline wraps">
				Which pages
				<select value={view} onChange={(e) => choose(e.target.value)}>
					{Object.entries(PAGE_VIEWS).map(([value, { label }]) => (
						<option key={value} value={value}>
							{label}
						</option>
					))}
				</select>
			</label>
			<QueryState query={pages} loading="Loading pages…" empty={empty} isEmpty={(answer) => answer.pages.length === 0} />
			{rows.length > 0 && (
				<TableWrap label="Pages read and viewed">
					<table>
						<thead>
							<tr>
								<th>Page</th>
								<th className="num">AI reads</th>
								<th className="num">Views</th>
								<th className="num">Visitors</th>
							</tr>
						</thead>
						<tbody>
							{rows.map((p) => (
								<tr key={p.path}>
									<td className="shrinks">
										{p.path}
										{p.pageviews === 0 && <span className="tag">AI only</span>}
										{p.crawler_visits === 0 && <span className="tag feature_request">people only</span>}
										{p.crawlers.length > 0 && <div className="muted small">{p.crawlers.map((c) => `${c.name} ${count(c.visits)}`).join(" · ")}</div>}
									</td>
									<td className="num">{count(p.crawler_visits)}</td>
									<td className="num">{count(p.pageviews)}</td>
									<td className="num">{count(p.visitors)}</td>
								</tr>
							))}
						</tbody>
					</table>
				</TableWrap>
			)}
			{rows.length > 0 && (
				<p className="row">
					{limit < PAGES_MAX && (rows.length >= limit || pages.isPlaceholderData) && (
						<button type="button" onClick={() => setShown({ view, limit: Math.min(limit + PAGES_STEP, PAGES_MAX) })} disabled={pages.isPlaceholderData}>
							{pages.isPlaceholderData ? "Loading more pages…" : "Show more pages"}
						</button>
					)}
					<span className="muted">
						{plural(rows.length, "page")} shown
						{rows.length >= PAGES_MAX ? `: the most one list holds; choose another view for the rest` : ""}
					</span>
				</p>
			)}
		</section>
	);
}

export function CrawlersPage() {
	const { site = "" } = useParams();
	const forwarder = crawlerForwarder(location.origin, site);
	const [search] = useSearchParams();
	const siteView = useSites().data?.find((s) => s.tracking_id === site);
	// No realtime view here: crawler visits are counted by the hour. All time starts at the site's first day.
	const periodOptions = { statsFrom: siteView?.stats_from };
	const { period, current } = usePeriod(periodOptions);
	const range = isoRange(current);
	const stats = useCrawlerStats(site, { ...range, limit: "20" }, period !== "all" || siteView !== undefined);
	useEffect(() => lastUsed.site.set(site), [site]);
	usePageTitle(siteView?.name, "AI crawlers");
	const data = stats.data;

	return (
		<section>
			<div className="row spread">
				<h1>AI crawlers</h1>
				<div className="row">
					<SitePicker area="crawlers" current={site} />
					<PeriodPicker {...periodOptions} />
				</div>
			</div>
			<p className="row muted">
				<Link to={`/analytics/${site}?${periodQuery(search)}`}>Visitors of this site</Link>
				<span>Visits are reported by your server or edge to {location.origin}/api/bot-crawl-ingest.</span>
			</p>
			<details>
				<summary>Set up: report AI crawlers' visits from your site's edge</summary>
				<pre className="snippet">{forwarder}</pre>
				<CopyButton text={forwarder} label="Copy the Worker" />
			</details>
			<QueryState query={stats} loading="Loading crawler visits…" empty="" isEmpty={() => false} />
			{data && (
				<>
					<div className="figures">
						<Figure label="Crawler visits" value={count(data.visits)} testId="figure-crawler-visits" />
						<Figure
							label="Verified"
							value={count(data.verified_visits)}
							note={<span className="muted">from the operator's published addresses</span>}
							testId="figure-verified"
						/>
						{data.unverified_visits > 0 && (
							<Figure
								label="Not from their operator"
								value={count(data.unverified_visits)}
								note={<span className="muted">a crawler's name from another address</span>}
								testId="figure-unverified"
							/>
						)}
						{data.categories.map((c) => (
							<Figure key={c.category} label={PURPOSES[c.category]} value={count(c.visits)} />
						))}
					</div>
					{data.visits === 0 && <p className="muted empty">No AI crawler visit was reported in this period.</p>}
					<section className="card" aria-labelledby="crawls-over-time">
						<h2 id="crawls-over-time">Visits over time</h2>
						<VisitsOverTime data={data} />
					</section>
					<PagesReadAndViewed site={site} range={range} />
					<div className="breakdowns">
						<Breakdown
							heading="Crawlers"
							tabs={[
								{
									title: "Crawlers",
									column: "Visits",
									empty: "No crawler visits.",
									rows: data.crawlers.map((c) => ({
										key: c.name,
										label: `${c.name} · ${c.operator} · ${PURPOSES[c.category]}${c.verified > 0 ? ` · ${count(c.verified)} verified` : ""}${c.unverified > 0 ? ` · ${count(c.unverified)} not from ${c.operator}` : ""}`,
										value: c.visits,
									})),
								},
							]}
						/>
						<Breakdown
							heading="Paths"
							tabs={[
								{ title: "Top paths", column: "Visits", empty: "No crawler visits.", rows: data.top_paths.map((p) => ({ key: p.path, label: p.path, value: p.visits })) },
								{
									title: "Status codes",
									column: "Visits",
									empty: "No crawler visits.",
									rows: data.statuses.map((s) => ({ key: String(s.status), label: String(s.status), value: s.visits })),
								},
							]}
						/>
					</div>
					<section className="card" aria-labelledby="recent-visits">
						<h2 id="recent-visits">Recent visits</h2>
						{data.recent.length === 0 ? (
							<p className="muted">No recent visits.</p>
						) : (
							<TableWrap label="Recent visits table">
								<table>
									<thead>
										<tr>
											<th>When</th>
											<th>Crawler</th>
											<th>Page</th>
											<th className="num">Status</th>
											<th>Country</th>
											<th>Operator's address</th>
										</tr>
									</thead>
									<tbody>
										{data.recent.map((v, i) => (
											// biome-ignore lint/suspicious/noArrayIndexKey: visits have no id in the answer, and one answer's rows never reorder
											<tr key={i}>
												<td title={utcDateTime(v.ts)}>{ago(v.ts)}</td>
												<td>{v.crawler}</td>
												<td>
													{v.url_host}
													{v.url_path}
												</td>
												<td className="num">{v.status}</td>
												<td>{v.country}</td>
												<td>
													<Verified verified={v.verified} />
												</td>
											</tr>
										))}
									</tbody>
								</table>
							</TableWrap>
						)}
					</section>
				</>
			)}
		</section>
	);
}
