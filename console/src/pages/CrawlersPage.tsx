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
import type { CrawlerPurpose } from "../api";
import { useCrawlerStats, useSitePages } from "../queries";

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

export function CrawlersPage() {
	const { site = "" } = useParams();
	const [search] = useSearchParams();
	const { current } = usePeriod();
	const stats = useCrawlerStats(site, { ...isoRange(current), limit: "20" });
	const pages = useSitePages(site, { ...isoRange(current), limit: "20" });
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
						<p className="muted">Each page AI crawlers read or people viewed, the busiest first: which pages AI systems read and people don't, and the reverse.</p>
						<QueryState query={pages} loading="Loading pages…" empty="No page was read or viewed in this period." isEmpty={(answer) => answer.pages.length === 0} />
						{pages.data && pages.data.pages.length > 0 && (
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
										{pages.data.pages.map((p) => (
											<tr key={p.path}>
												<td>
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
												<td title={new Date(v.ts).toLocaleString()}>{ago(v.ts)}</td>
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
