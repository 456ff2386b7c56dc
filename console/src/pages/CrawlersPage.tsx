import { useEffect } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import { Breakdown } from "../components/Breakdown";
import { Figure } from "../components/Figure";
import { lastUsed } from "../components/lastUsed";
import { PeriodPicker, usePeriod } from "../components/PeriodPicker";
import { SitePicker } from "../components/Pickers";
import { QueryState } from "../components/QueryState";
import { TableWrap } from "../components/TableWrap";
import { TimeChart } from "../components/TimeChart";
import { ago, count } from "../format";
import { isoRange } from "../period";
import { useCrawlerStats } from "../queries";

const PURPOSES: Record<string, string> = {
	training: "trains AI models",
	search: "AI search",
	assistant: "fetches for an assistant's user",
	unknown: "purpose unknown",
};

export function CrawlersPage() {
	const { site = "" } = useParams();
	const [search] = useSearchParams();
	const { current } = usePeriod();
	const stats = useCrawlerStats(site, { ...isoRange(current), limit: "20" });
	useEffect(() => lastUsed.site.set(site), [site]);
	const data = stats.data;

	return (
		<section>
			<div className="row spread">
				<h1>AI crawlers</h1>
				<div className="row">
					<SitePicker area="crawlers" current={site} />
					<PeriodPicker />
				</div>
			</div>
			<p className="row muted">
				<Link to={`/analytics/${site}?${search}`}>Visitors of this site</Link>
				<span>Visits are reported by your server or edge to /api/bot-crawl-ingest.</span>
			</p>
			<QueryState query={stats} loading="Loading crawler visits…" empty="" isEmpty={() => false} />
			{data && (
				<>
					<div className="figures">
						<Figure label="Crawler visits" value={count(data.visits)} testId="figure-crawler-visits" />
						{data.categories.map((c) => (
							<Figure key={c.category} label={PURPOSES[c.category] ?? c.category} value={count(c.visits)} />
						))}
					</div>
					{data.visits === 0 && <p className="muted empty">No AI crawler visit was reported in this period.</p>}
					<section className="card" aria-labelledby="crawls-over-time">
						<h2 id="crawls-over-time">Visits over time</h2>
						<TimeChart
							kind="bars"
							height={180}
							times={data.series.map((b) => Date.parse(b.t))}
							series={[{ label: "Crawler visits", values: data.series.map((b) => b.visits), color: "--chart-2" }]}
							label={`AI crawler visits over the period: ${data.visits} in all`}
						/>
					</section>
					<section className="card" aria-labelledby="read-vs-viewed">
						<h2 id="read-vs-viewed">Read by AI, viewed by people</h2>
						<p className="muted">Pages AI crawlers read most and pages people view most, side by side.</p>
						{data.pages.length === 0 ? (
							<p className="muted">No page was read or viewed in this period.</p>
						) : (
							<TableWrap label="Pages read and viewed">
								<table>
									<thead>
										<tr>
											<th>Page</th>
											<th className="num">AI reads</th>
											<th className="num">Human views</th>
										</tr>
									</thead>
									<tbody>
										{data.pages.map((p) => (
											<tr key={p.path}>
												<td>
													{p.path}
													{p.pageviews === 0 && <span className="tag">AI only</span>}
													{p.crawler_visits === 0 && <span className="tag feature_request">people only</span>}
												</td>
												<td className="num">{count(p.crawler_visits)}</td>
												<td className="num">{count(p.pageviews)}</td>
											</tr>
										))}
									</tbody>
								</table>
							</TableWrap>
						)}
					</section>
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
										label: `${c.name} · ${c.operator} · ${PURPOSES[c.category] ?? c.category}`,
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
										</tr>
									</thead>
									<tbody>
										{data.recent.map((v, i) => (
											// biome-ignore lint/suspicious/noArrayIndexKey: visits have no id in the answer, and one answer's rows never reorder
											<tr key={i}>
												<td title={new Date(v.ts).toLocaleString()}>{ago(v.ts)}</td>
												<td>{v.crawler}</td>
												<td>
													{v.url_host}
													{v.url_path}
												</td>
												<td className="num">{v.status}</td>
												<td>{v.country}</td>
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
