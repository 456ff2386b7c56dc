// Seeds the read side for `npm run bench`: analytics events for one site and log issues (with
// their events) for one project key, written straight into D1 the way the app's own stores write
// (domain/analytics/eventStore.ts, domain/logs/logStore.ts): each statement binds one JSON array
// of about a megabyte and unpacks it with json_each, and a batch of statements is one transaction.
// The analytics rollups are then filled by the same INSERT … SELECT the migration that created
// them ran, a day (and a part of its visitors) at a time.
// The data is drawn from a seeded generator, so every run reads the same shape of data.

import { readdir, readFile } from "node:fs/promises";
import { uniformFloat64 } from "pure-rand/distribution/uniformFloat64";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";

const DAY_MS = 86_400_000;
const ARRAY_BYTES = 1_000_000;
const STATEMENTS_PER_BATCH = 8;

/** A seeded generator (xoroshiro128+): Math.random cannot be replayed. */
function generator(seed) {
	const rng = xoroshiro128plus(seed);
	const next = () => uniformFloat64(rng);
	const int = (below) => Math.floor(next() * below);
	/** Skewed towards the first entries, as real traffic is (a few pages get most views). */
	const skewed = (list) => list[Math.floor(list.length * next() ** 3)];
	const hex32 = () => Array.from({ length: 4 }, () => int(2 ** 32).toString(16).padStart(8, "0")).join("");
	return { next, int, skewed, hex32 };
}

/** Rows in JSON arrays of about ARRAY_BYTES, in batches of STATEMENTS_PER_BATCH statements. */
async function writeInBatches(db, rows, statementFor) {
	let arrays = [];
	let current = [];
	let bytes = 2;
	const closeArray = () => {
		if (current.length > 0) arrays.push(`[${current.join(",")}]`);
		current = [];
		bytes = 2;
	};
	const write = async () => {
		if (arrays.length > 0) await db.batch(arrays.map((array) => statementFor(array)));
		arrays = [];
	};
	for (const row of rows) {
		const json = JSON.stringify(row);
		if (bytes + json.length + 1 > ARRAY_BYTES) {
			closeArray();
			if (arrays.length === STATEMENTS_PER_BATCH) await write();
		}
		current.push(json);
		bytes += json.length + 1;
	}
	closeArray();
	await write();
}

// ---------------------------------------------------------------------------------------------
// Analytics

const PATHS = ["/", "/pricing", "/docs", "/blog", "/about", "/signup", "/login", "/contact"].concat(
	Array.from({ length: 190 }, (_, i) => `/blog/post-${i + 1}`),
);
/** [referrer host, its source as domain/analytics/sources.ts groups it]; "" is a direct visit. */
const REFERRERS = [
	["", ""],
	["", ""],
	["", ""],
	["www.google.com", "Google"],
	["news.ycombinator.com", "Hacker News"],
	["t.co", "Twitter"],
	["www.reddit.com", "Reddit"],
	["duckduckgo.com", "DuckDuckGo"],
	["www.bing.com", "Bing"],
	["github.com", "GitHub"],
].concat(Array.from({ length: 30 }, (_, i) => [`partner-${i + 1}.example`, `partner-${i + 1}.example`]));
/** Campaign links, [utm_source, utm_medium, utm_campaign, utm_content]: one visit in ten arrives by one. */
const CAMPAIGNS = [
	["newsletter", "email", "autumn-sale", "header"],
	["newsletter", "email", "autumn-sale", "footer"],
	["twitter", "social", "launch-week", ""],
	["google", "cpc", "brand", "ad-1"],
	["partner-1.example", "referral", "partners", ""],
];
const CUSTOM_EVENTS = ["signup", "download", "play_video", "add_to_cart", "share"];
/** The one property every custom event carries. */
const PLANS = ["free", "pro", "team"];
const BROWSERS = [
	["Chrome", "Windows", "desktop"],
	["Chrome", "macOS", "desktop"],
	["Safari", "iOS", "mobile"],
	["Chrome", "Android", "mobile"],
	["Firefox", "Windows", "desktop"],
	["Safari", "macOS", "desktop"],
	["Edge", "Windows", "desktop"],
	["Chrome", "Linux", "desktop"],
	["Safari", "iOS", "tablet"],
	["Samsung Internet", "Android", "mobile"],
];
const COUNTRIES = ["US", "DE", "GB", "FR", "IN", "BR", "CA", "JP", "NL", "ES", "IT", "PL", "SE", "AU", "MX"];

/**
 * The visitor id the collector derives for a person on a UTC day: 32 hex digits of a hash of
 * their address and browser under that day's salt, so a new one every day (the tracker sends
 * none of its own). Here a hash of the person's number and the day.
 */
function visitorId(person, day) {
	const random = generator(Math.imul(person, 2_654_435_761) ^ Math.imul(Math.floor(day / DAY_MS), 40_503));
	return random.hex32();
}

/**
 * `count` events of one site spread over the 30 days before `now`, as visits: a person (one
 * of about count/8, under the visitor id of that day) from a referrer or a campaign link, one to
 * six page views 20 s to 3 min apart, sometimes a custom event, and after every page view its
 * engagement report (`_leave` with the time visible and the scroll depth), two for a fifth of them.
 */
function* analyticsRows(count, now, seed = 1) {
	const random = generator(seed);
	const people = Math.max(1, Math.floor(count / 8));
	let made = 0;
	while (made < count) {
		const person = random.int(people);
		const [browser, os, device] = random.skewed(BROWSERS);
		const country = random.skewed(COUNTRIES);
		const [referrerHost, referrerSource] = random.skewed(REFERRERS);
		const campaign = random.next() < 0.1 ? random.skewed(CAMPAIGNS) : null;
		// A campaign's utm_source names the visit's source, as sourceOf decides (its list's spelling for known ones).
		const source = campaign ? (REFERRERS.find(([, name]) => name.toLowerCase() === campaign[0])?.[1] ?? campaign[0]) : referrerSource;
		// Visits start in time order, as rows reach D1 in production: the table's rowids follow time.
		let ts = now - 30 * DAY_MS + Math.floor((made / count) * (30 * DAY_MS - 3_600_000)) + random.int(60_000);
		const visitor = visitorId(person, ts);
		const pages = 1 + Math.floor(-Math.log(1 - random.next()) * 1.5);
		const events = [];
		const noCampaign = ["", "", "", ""];
		for (let page = 0; page < Math.min(pages, 6); page++) {
			const path = random.skewed(PATHS);
			const landing = page === 0;
			events.push({ name: "", path, referrer: landing ? referrerHost : "", source: landing ? source : "", campaign: (landing && campaign) || noCampaign });
			if (random.next() < 0.05) {
				const data = JSON.stringify({ plan: random.skewed(PLANS) });
				events.push({ name: random.skewed(CUSTOM_EVENTS), path, referrer: "", source: "", campaign: noCampaign, data });
			}
			// The tracker's engagement reports (time visible since the last report, deepest scroll):
			// one when the view ends, and before it one more for a fifth of the views, whose tab was
			// hidden a while first.
			for (let report = random.next() < 0.2 ? 2 : 1; report > 0; report--) {
				events.push({ name: "_leave", path, referrer: "", source: "", campaign: noCampaign, engagedMs: 2_000 + random.int(150_000), scroll: random.int(101) });
			}
		}
		for (const { name, path, referrer, source, campaign, engagedMs = null, scroll = null, data = null } of events) {
			if (made === count) return;
			made++;
			ts += 20_000 + random.int(160_000);
			const query = campaign[0] ? `utm_source=${campaign[0]}&utm_medium=${campaign[1]}&utm_campaign=${campaign[2]}&utm_content=${campaign[3]}` : "";
			// [event_id, ts, name, url_path, referrer, referrer_host, title, visitor_id, engaged_ms, browser, os, device, country,
			//  url_query, source, utm_source, utm_medium, utm_campaign, utm_content, scroll_depth, data]
			yield [
				random.hex32(),
				ts,
				name,
				path,
				referrer ? `https://${referrer}/` : "",
				referrer,
				`Shop ${path}`,
				visitor,
				engagedMs,
				browser,
				os,
				device,
				country,
				query,
				source,
				...campaign,
				scroll,
				data,
			];
		}
	}
}

const INSERT_EVENTS = `INSERT INTO analytics_events (tracking_id, event_id, ts, name, url_host, url_path, referrer, referrer_host,
		title, language, screen, visitor_id, engaged_ms, v, browser, os, device, country,
		url_query, source, utm_source, utm_medium, utm_campaign, utm_content, scroll_depth, data)
	SELECT ?1, value ->> 0, value ->> 1, value ->> 2, ?2, value ->> 3, value ->> 4, value ->> 5,
		value ->> 6, 'en-US', '1920x1080', value ->> 7, value ->> 8, '2', value ->> 9, value ->> 10, value ->> 11, value ->> 12,
		value ->> 13, value ->> 14, value ->> 15, value ->> 16, value ->> 17, value ->> 18, value ->> 19, value ->> 20
	FROM json_each(?3)`;

/** Writes `count` analytics events for the site into D1, then their rollups. */
export async function seedAnalytics(db, { trackingId, host, count, now }) {
	await writeInBatches(db, analyticsRows(count, now), (array) => db.prepare(INSERT_EVENTS).bind(trackingId, host, array));
	const backfill = await rollupBackfill();
	for (let day = Math.floor((now - 31 * DAY_MS) / DAY_MS) * DAY_MS; day <= now; day += DAY_MS) {
		for (let part = 0; part < BACKFILL_PARTS; part++) await db.prepare(backfill).bind(trackingId, day, day + DAY_MS, BACKFILL_PARTS, part).run();
	}
}

const ALL_VISITOR_DAYS = "FROM analytics_events),";
/** Each day's visitors in this many parts (by their id's last character), so no statement holds a whole day. */
const BACKFILL_PARTS = 8;

/**
 * The migration's backfill of the rollups (the statement domain/analytics/rollups.ts calls
 * ROLLUP_BACKFILL), narrowed to the visitor days of one site and one day (?1-?3) and one part of
 * its visitors (?4, ?5), so that no single statement sorts more than a few thousand events.
 */
async function rollupBackfill() {
	const migrations = new URL("../schema/migrations/", import.meta.url);
	const file = (await readdir(migrations)).find((name) => name.endsWith("_analytics_rollups.sql"));
	const statement = (await readFile(new URL(file, migrations), "utf8")).split("--> statement-breakpoint").at(-1);
	if (!statement.includes(ALL_VISITOR_DAYS)) throw new Error(`the rollup backfill in ${file} no longer selects every visitor day`);
	return statement.replace(
		ALL_VISITOR_DAYS,
		"FROM analytics_events WHERE tracking_id = ?1 AND ts >= ?2 AND ts < ?3 AND unicode(substr(visitor_id, -1)) % ?4 = ?5),",
	);
}

// ---------------------------------------------------------------------------------------------
// Crawler visits

const CRAWLERS = ["GPTBot", "ClaudeBot", "PerplexityBot", "OAI-SearchBot", "ChatGPT-User", "Bytespider", "Amazonbot", "CCBot", "meta-externalagent", "Google-Extended"];
const STATUSES = [200, 200, 200, 200, 200, 200, 304, 301, 404, 500];

const INSERT_VISITS = `INSERT INTO crawler_visits (id, tracking_id, ts, crawler, url_host, url_path, country, status, ua, verified)
	SELECT value ->> 0, ?1, value ->> 1, value ->> 2, ?2, value ->> 3, 'US', value ->> 4, value ->> 2, value ->> 5
	FROM json_each(?3)`;

/**
 * `count` crawler visits of one site spread evenly over the 30 days before `now`, in time order:
 * a few crawlers do most of the reading, of the same skewed pages people read, most verified.
 */
function* crawlerRows(count, now, seed = 3) {
	const random = generator(seed);
	for (let i = 0; i < count; i++) {
		const ts = now - 30 * DAY_MS + Math.floor((i / count) * (30 * DAY_MS - 60_000));
		const verified = random.next() < 0.8 ? 1 : random.next() < 0.5 ? 0 : null;
		yield [random.hex32(), ts, random.skewed(CRAWLERS), random.skewed(PATHS), STATUSES[random.int(STATUSES.length)], verified];
	}
}

/** Writes `count` crawler visits for the site into D1, then their rollups (the migration's backfill, a day at a time). */
export async function seedCrawlerVisits(db, { trackingId, host, count, now }) {
	await writeInBatches(db, crawlerRows(count, now), (array) => db.prepare(INSERT_VISITS).bind(trackingId, host, array));
	const backfill = await crawlerRollupBackfill();
	for (let day = Math.floor((now - 31 * DAY_MS) / DAY_MS) * DAY_MS; day <= now; day += DAY_MS) {
		await db.prepare(backfill).bind(trackingId, day, day + DAY_MS).run();
	}
	// As the migrations go on to do: the paths breakdown is no longer kept.
	await db.prepare("DELETE FROM crawler_rollups WHERE tracking_id = ?1 AND dim = 'paths'").bind(trackingId).run();
}

/**
 * The last statement of the migration whose file name ends with `suffix` (a backfill), with
 * `all` (what it reads) narrowed to `narrowed`.
 */
async function migrationBackfill(suffix, all, narrowed) {
	const migrations = new URL("../schema/migrations/", import.meta.url);
	const file = (await readdir(migrations)).find((name) => name.endsWith(suffix));
	const statement = (await readFile(new URL(file, migrations), "utf8")).split("--> statement-breakpoint").at(-1);
	if (!statement.includes(all)) throw new Error(`the backfill in ${file} no longer reads ${all}`);
	return statement.replace(all, narrowed);
}

/** The migration's backfill of the crawler rollups (CRAWLER_ROLLUP_BACKFILL), narrowed to one site and one day (?1-?3). */
const crawlerRollupBackfill = () =>
	migrationBackfill("_crawler_rollups.sql", "FROM crawler_visits)", "FROM crawler_visits WHERE tracking_id = ?1 AND ts >= ?2 AND ts < ?3)");

// ---------------------------------------------------------------------------------------------
// Log issues

const INSERT_ISSUES = `INSERT INTO log_issues (key_id, group_hash, user_id, title, culprit, level, status, count, users,
		first_seen, last_seen, environments, releases, resolved_in_release)
	SELECT ?1, value ->> 0, ?2, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6,
		value ->> 7, value ->> 8, value ->> 10, value ->> 11, value ->> 9
	FROM json_each(?3)`;

/** The names the issue list's filters offer (GET /api/issues/filter-values), as migration 0012 fills them from the issues. */
const FILL_ISSUE_NAMES = ["environment", "release"].map(
	(kind) => `INSERT INTO log_issue_names (key_id, kind, name, last_seen)
	SELECT i.key_id, '${kind}', j.value, max(i.last_seen) FROM log_issues i, json_each(i.${kind}s) j WHERE i.key_id = ?1 GROUP BY 1, 3
	ON CONFLICT DO UPDATE SET last_seen = max(last_seen, excluded.last_seen)`,
);

const ENVIRONMENTS = ["production", "staging", "preview"];
/** Releases 1.0.0 to 1.4.9: a project that ships often. */
const RELEASES = Array.from({ length: 50 }, (_, i) => `1.${Math.floor(i / 10)}.${i % 10}`);

const INSERT_LOG_EVENTS = `INSERT INTO log_events (id, key_id, group_hash, received_at, timestamp, level, environment, release, event)
	SELECT value ->> 0, ?1, value ->> 1, value ->> 2, value ->> 2, value ->> 3, value ->> 4, '1.4.2', ?2
	FROM json_each(?3)`;

/**
 * Each issue's figures in its environment, from its events, as migration 0017 fills them (every
 * seeded event is the same document, so one user); the issue the app stored itself has its row.
 */
const FILL_ISSUE_ENVIRONMENTS = `INSERT INTO log_issue_environments (key_id, group_hash, environment, count, users, first_seen, last_seen)
	SELECT key_id, group_hash, environment, count(*), 1, min(received_at), max(received_at) FROM log_events
	WHERE key_id = ?1 AND environment IS NOT NULL GROUP BY 1, 2, 3
	ON CONFLICT DO NOTHING`;

const ERRORS = ["TypeError", "RangeError", "ReferenceError", "SyntaxError", "NetworkError", "TimeoutError"];

/**
 * `count` issues of one project key over the 30 days before `now`, each with one to five
 * events, and one issue (the most recently seen, answered as `hotIssue`) with `hotEvents`
 * events over the last 24 hours. Every event stores `eventJson`, an event as the app stored
 * it, so the detail page reads documents of the real shape and size.
 */
export async function seedIssues(db, { keyId, userId, count, hotEvents, eventJson, now }) {
	const random = generator(2);
	const issues = [];
	for (let i = 0; i < count; i++) {
		const events = 1 + random.int(5);
		const lastSeen = now - random.int(30 * DAY_MS);
		const status = random.next() < 0.8 ? "open" : random.next() < 0.75 ? "resolved" : "ignored";
		const type = random.skewed(ERRORS);
		issues.push({
			hash: random.hex32(),
			events,
			row: [
				null,
				`${type}: failure ${i} in module ${random.int(400)}`,
				`src/module-${random.int(400)}.ts in handler${random.int(50)}`,
				"error",
				status,
				events,
				1 + random.int(events),
				lastSeen - random.int(DAY_MS),
				lastSeen,
				status === "resolved" ? "1.4.2" : null,
				JSON.stringify([random.skewed(ENVIRONMENTS)]),
				JSON.stringify([RELEASES[RELEASES.length - 1 - random.int(RELEASES.length)]]),
			],
		});
	}
	const hot = issues[0];
	hot.events = hotEvents;
	hot.row[5] = hotEvents;
	hot.row[8] = now;
	for (const issue of issues) issue.row[0] = issue.hash;
	await writeInBatches(
		db,
		issues.map((issue) => issue.row),
		(array) => db.prepare(INSERT_ISSUES).bind(keyId, userId, array),
	);

	function* eventRows() {
		for (const issue of issues) {
			const lastSeen = issue.row[8];
			const span = issue === hot ? DAY_MS - 1 : lastSeen - issue.row[7];
			const [environment] = JSON.parse(issue.row[10]);
			for (let e = 0; e < issue.events; e++) yield [crypto.randomUUID(), issue.hash, lastSeen - random.int(span + 1), "error", environment];
		}
	}
	await writeInBatches(db, eventRows(), (array) => db.prepare(INSERT_LOG_EVENTS).bind(keyId, eventJson, array));
	// The issues' tags, as migration 0021 counts them from the stored events.
	const fillTags = await migrationBackfill("_issue_tags.sql", "FROM log_events)", "FROM log_events WHERE key_id = ?1)");
	await db.batch([...FILL_ISSUE_NAMES, FILL_ISSUE_ENVIRONMENTS, fillTags].map((sql) => db.prepare(sql).bind(keyId)));
	return { hotIssue: hot.hash };
}
