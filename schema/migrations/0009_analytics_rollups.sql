-- WITHOUT ROWID added by hand (drizzle-kit cannot express it): the statistics read a site's rows
-- of one breakdown in key order, and a table clustered on its key reads them in one walk.
CREATE TABLE `analytics_rollups` (
	`tracking_id` text NOT NULL,
	`dim` text NOT NULL,
	`span` integer NOT NULL,
	`start` integer NOT NULL,
	`value` text NOT NULL,
	`visitors` integer DEFAULT 0 NOT NULL,
	`hour_visitors` integer DEFAULT 0 NOT NULL,
	`pageviews` integer DEFAULT 0 NOT NULL,
	`events` integer DEFAULT 0 NOT NULL,
	`visits` integer DEFAULT 0 NOT NULL,
	`bounces` integer DEFAULT 0 NOT NULL,
	`engaged_ms` integer DEFAULT 0 NOT NULL,
	`engaged_n` integer DEFAULT 0 NOT NULL,
	`depth_sum` integer DEFAULT 0 NOT NULL,
	`depth_n` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`tracking_id`, `dim`, `span`, `start`, `value`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `analytics_rollups_start_idx` ON `analytics_rollups` (`start`);--> statement-breakpoint
CREATE INDEX `analytics_events_visitor_idx` ON `analytics_events` (`tracking_id`,`visitor_id`,`ts`);--> statement-breakpoint
-- Written by hand: the rollups of the events stored before them, every visitor day of every site
-- (ROLLUP_BACKFILL in domain/analytics/rollups.ts; a test checks this is that exact statement).
WITH touched AS MATERIALIZED (SELECT DISTINCT tracking_id, visitor_id, (ts / 86400000) * 86400000 AS day FROM analytics_events),
	e AS MATERIALIZED (
		SELECT a.tracking_id, a.visitor_id, t.day, a.ts, a.event_id, a.name, a.url_path, a.referrer_host, a.source,
			a.utm_source, a.utm_medium, a.utm_campaign, a.utm_content, a.utm_term, a.country, a.browser, a.os, a.device,
			a.distinct_id, a.data, a.scroll_depth,
			CASE WHEN a.name = '_leave' THEN coalesce(a.engaged_ms, a.duration * 1000) END AS engaged,
			a.name NOT IN ('_leave', '_identify') AS visit
		FROM touched AS t CROSS JOIN analytics_events AS a
			ON a.tracking_id = t.tracking_id AND a.visitor_id = t.visitor_id AND a.ts >= t.day AND a.ts < t.day + 86400000
	), labelled AS (
		SELECT tracking_id, visitor_id, day, ts, event_id, d.value AS dim, CASE d.value WHEN '' THEN '' WHEN 'pages' THEN url_path WHEN 'referrers' THEN referrer_host WHEN 'countries' THEN coalesce(nullif(country, ''), 'Unknown') WHEN 'browsers' THEN coalesce(nullif(browser, ''), 'Unknown') WHEN 'os' THEN coalesce(nullif(os, ''), 'Unknown') WHEN 'devices' THEN coalesce(nullif(device, ''), 'Unknown') WHEN 'custom_events' THEN name WHEN 'identified' THEN distinct_id ELSE NULL END AS label,
			(d.value <> 'pages' OR name = '') AS counted, name = '' AS pageview,
			CASE WHEN d.value = 'identified' THEN 1 ELSE visit AND name <> '' END AS events
		FROM e JOIN json_each('["","pages","referrers","countries","browsers","os","devices","custom_events","identified"]') AS d
		WHERE CASE d.value WHEN '' THEN visit WHEN 'pages' THEN name IN ('', '_leave') WHEN 'referrers' THEN name = '' AND referrer_host <> '' WHEN 'countries' THEN name = '' WHEN 'browsers' THEN name = '' WHEN 'os' THEN name = '' WHEN 'devices' THEN name = '' WHEN 'custom_events' THEN visit AND name <> '' WHEN 'identified' THEN distinct_id IS NOT NULL ELSE NULL END
	), ranked AS (
		SELECT *, counted AND sum(counted) OVER w = 1 AS first_of_day, lag(ts / 3600000) OVER w IS NOT ts / 3600000 AS first_of_hour
		FROM labelled WINDOW w AS (PARTITION BY tracking_id, visitor_id, day, dim, label ORDER BY ts, event_id ROWS UNBOUNDED PRECEDING)
	), page_groups AS (
		SELECT tracking_id, min(ts) AS ts, url_path, sum(engaged) AS engaged, max(scroll_depth) AS depth
		FROM e WHERE name IN ('', '_leave') GROUP BY tracking_id, visitor_id, day, url_path
	), marked AS (
		SELECT tracking_id, visitor_id, day, ts, event_id, name, visit, engaged, url_path, source, utm_source, utm_medium, utm_campaign, utm_content, utm_term,
			CASE WHEN ts - coalesce(engaged, 0) - lag(ts) OVER (PARTITION BY tracking_id, visitor_id, day ORDER BY ts, event_id) <= 1800000
			THEN 0 ELSE 1 END AS starts
		FROM e WHERE name <> '_identify'
	), numbered AS (
		SELECT *, sum(starts) OVER (PARTITION BY tracking_id, visitor_id, day ORDER BY ts, event_id ROWS UNBOUNDED PRECEDING) AS session FROM marked
	), sessions AS (
		SELECT tracking_id, visitor_id, day, min(CASE WHEN visit THEN ts END) AS first_visit, sum(name = '') AS pageviews, sum(visit AND name <> '') AS custom,
			coalesce(sum(engaged), 0) AS engaged,
			substr(min(CASE WHEN name = '' THEN printf('%015d', ts) || json_array(url_path, source, utm_source, utm_medium, utm_campaign, utm_content, utm_term) END), 16) AS entry,
			substr(max(CASE WHEN name = '' THEN printf('%015d', ts) || url_path END), 16) AS exit_path
		FROM numbered GROUP BY tracking_id, visitor_id, day, session HAVING first_visit IS NOT NULL
	), session_labels AS (
		SELECT tracking_id, visitor_id, day, first_visit, pageviews = 1 AND custom = 0 AS bounce, engaged, k.value AS dim,
			CASE k.value WHEN 'entry_pages' THEN entry ->> '$[0]' WHEN 'exit_pages' THEN exit_path WHEN 'sources' THEN coalesce(nullif(entry ->> '$[1]', ''), 'Direct / None') WHEN 'utm_source' THEN entry ->> '$[2]' WHEN 'utm_medium' THEN entry ->> '$[3]' WHEN 'utm_campaign' THEN entry ->> '$[4]' WHEN 'utm_content' THEN entry ->> '$[5]' WHEN 'utm_term' THEN entry ->> '$[6]' ELSE '' END AS label
		FROM sessions AS s JOIN json_each('["","entry_pages","exit_pages","sources","utm_source","utm_medium","utm_campaign","utm_content","utm_term"]') AS k
		WHERE k.value = '' OR s.pageviews > 0
	), session_facts AS (
		SELECT *, row_number() OVER (PARTITION BY tracking_id, visitor_id, day, dim, label ORDER BY first_visit) AS nth FROM session_labels WHERE dim = '' OR label <> ''
	), facts AS (
		SELECT tracking_id, ts, dim, label, first_of_day AS visitors, dim = '' AND first_of_hour AS hour_visitors,
			pageview AS pageviews, events, 0 AS visits, 0 AS bounces, 0 AS engaged_ms, 0 AS engaged_n, 0 AS depth_sum, 0 AS depth_n
		FROM ranked
		UNION ALL
		SELECT tracking_id, ts, 'pages', url_path, 0, 0, 0, 0, 0, 0, coalesce(engaged, 0), engaged IS NOT NULL, coalesce(depth, 0), depth IS NOT NULL
		FROM page_groups
		UNION ALL
		SELECT tracking_id, first_visit, dim, label, dim <> '' AND nth = 1, 0, 0, 0, 1, dim = '' AND bounce, CASE WHEN dim = '' THEN engaged ELSE 0 END, 0, 0, 0
		FROM session_facts
		UNION ALL
		SELECT e.tracking_id, e.ts, 'event_properties', json_array(e.name, p.key, CAST(p.value AS TEXT)), 0, 0, 0, 1, 0, 0, 0, 0, 0, 0
		FROM e, json_each(coalesce(CASE WHEN json_valid(data) THEN CASE WHEN json_type(data) = 'object' THEN data END END, '{}')) AS p
		WHERE e.visit AND e.name <> '' AND p.type NOT IN ('object', 'array')
	)
	INSERT INTO analytics_rollups (tracking_id, dim, span, start, value, visitors, hour_visitors, pageviews, events, visits, bounces, engaged_ms, engaged_n, depth_sum, depth_n)
	SELECT tracking_id, dim, s.value, (ts / s.value) * s.value, label, 1 * sum(visitors), 1 * sum(hour_visitors), 1 * sum(pageviews), 1 * sum(events), 1 * sum(visits), 1 * sum(bounces), 1 * sum(engaged_ms), 1 * sum(engaged_n), 1 * sum(depth_sum), 1 * sum(depth_n)
	FROM facts JOIN json_each('[3600000,86400000]') AS s WHERE true GROUP BY 1, 2, 3, 4, 5
	ON CONFLICT (tracking_id, dim, span, start, value) DO UPDATE SET
		visitors = visitors + excluded.visitors, hour_visitors = hour_visitors + excluded.hour_visitors, pageviews = pageviews + excluded.pageviews, events = events + excluded.events, visits = visits + excluded.visits, bounces = bounces + excluded.bounces, engaged_ms = engaged_ms + excluded.engaged_ms, engaged_n = engaged_n + excluded.engaged_n, depth_sum = depth_sum + excluded.depth_sum, depth_n = depth_n + excluded.depth_n;
