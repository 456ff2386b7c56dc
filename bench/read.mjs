// The owner's read side of `npm run bench` (bench/run.mjs): one site with BENCH_EVENTS analytics
// events and BENCH_CRAWLER_VISITS crawler visits, and one project with BENCH_ISSUES issues,
// seeded straight into D1 (bench/seed.mjs), then each dashboard, report and issue page timed as
// its owner reads it, one request after another.
import { LOG_EVENT } from "./paths.mjs";
import { gcDuring } from "./runtime.mjs";
import { seedAnalytics, seedCrawlerVisits, seedIssues } from "./seed.mjs";
import { freshAddresses, HOST, perRequest, SECONDS } from "./session.mjs";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const CRAWLER_VISITS = Number(process.env.BENCH_CRAWLER_VISITS ?? EVENTS);
const ISSUES = Number(process.env.BENCH_ISSUES ?? 10_000);
/** Events of the issue whose detail page is measured, over its last 24 hours. */
const HOT_ISSUE_EVENTS = 2_000;

/**
 * At least this many requests per read measurement: the p99 of 70 requests is their slowest, and a
 * single pause of the runtime (a full garbage collection: gcDuring in bench/runtime.mjs) is then
 * the figure. READ_MAX_SECONDS bounds the slow ones.
 */
const READ_REQUESTS = 300;
const READ_MAX_SECONDS = 30;

/**
 * Sequential requests (one connection) for SECONDS and at least READ_REQUESTS of them, for at
 * most READ_MAX_SECONDS (and at least 3 requests), after one to warm up.
 */
async function measureRead(s, title, path) {
	const answer = await s.api("GET", path, { token: s.token });
	await s.resetCounters();
	const times = [];
	const started = performance.now();
	const enough = () => times.length >= 3 && (performance.now() - started >= READ_MAX_SECONDS * 1000 || (times.length >= READ_REQUESTS && performance.now() - started >= SECONDS * 1000));
	while (!enough()) {
		const start = performance.now();
		await s.api("GET", path, { token: s.token });
		times.push(performance.now() - start);
	}
	const measuredBetween = { from: started, to: performance.now() };
	const counted = perRequest(await s.counters());
	times.sort((a, b) => a - b);
	const round = (ms) => Math.round(ms * 10) / 10;
	const percentile = (p) => round(times[Math.min(times.length - 1, Math.ceil((p / 100) * times.length) - 1)]);
	const row = {
		title,
		path: path.replace(/\?.*/, ""),
		requests: times.length,
		p50: percentile(50),
		p99: percentile(99),
		max: round(times.at(-1)),
		over100ms: times.filter((ms) => ms >= 100).length,
		measuredBetween,
		d1Statements: counted.d1Statements,
		objectCalls: counted.objectCalls,
	};
	// A dashboard says what share of the visitors it counted; its headline figures let a sampled
	// answer be compared with the exact one.
	if (answer?.sample_percent !== undefined) {
		const { sample_percent, pageviews, visitors, sessions, bounce_rate } = answer;
		Object.assign(row, { samplePercent: sample_percent, figures: { pageviews, visitors, sessions, bounce_rate } });
	}
	console.error(`read  ${title}: p50 ${row.p50} ms, p99 ${row.p99} ms, slowest ${row.max} ms (${row.requests} requests${row.samplePercent < 100 ? `, ${row.samplePercent} % of visitors` : ""})`);
	return row;
}

/**
 * Seeds the read side into `s`'s runtime and times each owner read; answers the seed's figures and
 * one row per read.
 */
export async function readSide(s) {
	const now = Date.now();
	const [trackingId] = await s.newSites(1, "dashboard");
	let started = performance.now();
	await seedAnalytics(s.db, { trackingId, host: HOST, count: EVENTS, now });
	const eventSeconds = (performance.now() - started) / 1000;
	console.error(`seeded ${EVENTS} analytics events in ${eventSeconds.toFixed(1)} s`);
	started = performance.now();
	await seedCrawlerVisits(s.db, { trackingId, host: HOST, count: CRAWLER_VISITS, now });
	const visitSeconds = (performance.now() - started) / 1000;
	console.error(`seeded ${CRAWLER_VISITS} crawler visits in ${visitSeconds.toFixed(1)} s`);

	// One event through the app gives the stored document every seeded event repeats.
	const key = await s.newKey("issues");
	await s.api("POST", "/api/app-logs-ingest", { json: LOG_EVENT, token: key.rawKey, ip: freshAddresses(1)[0] });
	await s.owner("GET", "/api/issues?project_name=issues");
	const { event } = await s.db.prepare("SELECT event FROM log_events WHERE key_id = ?").bind(key.id).first();
	started = performance.now();
	const { hotIssue } = await seedIssues(s.db, { keyId: key.id, userId: s.user.id, count: ISSUES, hotEvents: HOT_ISSUE_EVENTS, eventJson: event, now });
	const issueSeconds = (performance.now() - started) / 1000;
	const { n: logEvents } = await s.db.prepare("SELECT count(*) AS n FROM log_events WHERE key_id = ?").bind(key.id).first();
	console.error(`seeded ${ISSUES} issues with ${logEvents} events in ${issueSeconds.toFixed(1)} s`);

	const { next_cursor: secondPage } = await s.owner("GET", "/api/issues?project_name=issues&sort=count&limit=50");
	const to = new Date(now).toISOString();
	/** The last `days` days up to now, as a query string. */
	const lastDays = (days) => `from=${new Date(now - days * 86_400_000).toISOString()}&to=${to}`;
	const site = `/api/sites/${trackingId}`;
	const stats = (days) => `${site}/stats?${lastDays(days)}`;
	const endpoints = [];
	for (const [title, path] of [
		["dashboard, last 24 hours", stats(1)],
		["dashboard, last 7 days", stats(7)],
		["dashboard, last 30 days", stats(30)],
		// A breakdown clicked: a filtered dashboard reads the range's events (or a sample of its
		// visitors'), not the rollups. US is the seed's most common country, 40 % of the visits.
		["dashboard, last 24 hours, one page", `${stats(1)}&page=/pricing`],
		["dashboard, last 7 days, one page", `${stats(7)}&page=/pricing`],
		["dashboard, last 30 days, one page", `${stats(30)}&page=/pricing`],
		["dashboard, last 30 days, one country", `${stats(30)}&country=US`],
		// A row of Entry pages clicked: its visits are cut into sessions from its visitors' events.
		["dashboard, last 30 days, one entry page (the busiest)", `${stats(30)}&entry_page=/`],
		["dashboard, last 7 days, one exit page", `${stats(7)}&exit_page=/pricing`],
		["dashboard, last 30 days, one page and one referrer, compared", `${stats(30)}&page=/pricing&referrer=www.google.com&compare=previous`],
		["dashboard, last 30 days, one source (Hacker News)", `${stats(30)}&source=Hacker+News`],
		["dashboard, last 30 days, one campaign", `${stats(30)}&utm_campaign=autumn-sale`],
		["dashboard, last 30 days, one custom event", `${stats(30)}&event=signup`],
		["dashboard, last 30 days, mobile Safari on iOS", `${stats(30)}&device=mobile&browser=Safari&os=iOS`],
		["dashboard, last 30 days, one custom event property (plan: pro)", `${stats(30)}&property=plan:pro`],
		["sources as CSV, last 30 days", `${site}/stats/sources.csv?${lastDays(30)}`],
		["pages as CSV, last 30 days, one source", `${site}/stats/pages.csv?${lastDays(30)}&source=Google`],
		["dashboard, last 30 days, one page, exact", `${stats(30)}&page=/pricing&exact=true`],
		["pages read by people and crawlers, last 30 days", `${site}/pages?${lastDays(30)}`],
		["pages read by AI only, last 30 days", `${site}/pages?${lastDays(30)}&only=ai`],
		["pages by human page views, last 30 days", `${site}/pages?${lastDays(30)}&sort=people`],
		["crawler statistics, last 24 hours", `${site}/crawlers?${lastDays(1)}`],
		["crawler statistics, last 30 days", `${site}/crawlers?${lastDays(30)}`],
		["issue list (1,000 most recent)", "/api/issues?project_name=issues"],
		["issue list, a page of 50 after the first, by count", `/api/issues?project_name=issues&sort=count&limit=50&cursor=${encodeURIComponent(secondPage)}`],
		["issue list, open issues of one environment and release", "/api/issues?project_name=issues&status=open&environment=staging&release=1.4.9"],
		// Each issue's figures in production, and the list in the order of its events there.
		["issue list, one environment, by count", "/api/issues?project_name=issues&environment=production&sort=count"],
		["issue filters' environments and releases", "/api/issues/filter-values?project_name=issues"],
		["issue detail (2,000 events in 24 h; hourly and daily counts)", `/api/issues/${hotIssue}?project_name=issues`],
		["issue tags (all 2,000 of its events)", `/api/issues/${hotIssue}/tags?project_name=issues`],
		// A search of its events reads each of them (at most 10,000): one every event matches, one none does, text.
		["issue's events searched, a tag every event has (2,000 read)", `/api/issues/${hotIssue}?project_name=issues&q=${encodeURIComponent("tags[user]:u_123")}`],
		["issue's events searched, a tag no event has (2,000 read)", `/api/issues/${hotIssue}?project_name=issues&q=${encodeURIComponent("browser.name:Chrome !has:url")}`],
		["issue's events searched, text (2,000 read)", `/api/issues/${hotIssue}?project_name=issues&q=nowhere`],
		// The search box's suggestions: a skip-scan of the tag index, and a tag's values (one per issue here).
		["search suggestions: the project's tag keys", "/api/issues/tag-keys?project_name=issues"],
		["search suggestions: a tag's values over 10,000 issues", "/api/issues/tag-values?project_name=issues&key=user"],
		// Every seeded event is the same document: a tag every issue has, and one none has.
		["issue list, a tag every issue has", `/api/issues?project_name=issues&q=${encodeURIComponent("tags[user]:u_123")}`],
		["issue list, a tag no issue has", `/api/issues?project_name=issues&q=${encodeURIComponent("tags[user]:nobody")}`],
		["issue list, a tag's values by a pattern", `/api/issues?project_name=issues&q=${encodeURIComponent("tags[user]:*123")}`],
		// Excluded: every issue's own rows read, and none kept.
		["issue list, a tag every issue has, excluded", `/api/issues?project_name=issues&q=${encodeURIComponent("!tags[user]:u_123")}`],
	]) {
		endpoints.push(await measureRead(s, title, path));
	}
	// workerd writes its output in blocks: a short wait lets the last measurement's lines arrive.
	await new Promise((resolve) => setTimeout(resolve, 2_000));
	for (const row of endpoints) {
		Object.assign(row, gcDuring(s.runtime.gcPauses(), row.measuredBetween));
		delete row.measuredBetween;
	}
	return { seed: { events: EVENTS, eventSeconds, crawlerVisits: CRAWLER_VISITS, visitSeconds, issues: ISSUES, logEvents, issueSeconds }, endpoints };
}
