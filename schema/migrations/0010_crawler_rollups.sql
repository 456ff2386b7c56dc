-- WITHOUT ROWID added by hand (drizzle-kit cannot express it), as for analytics_rollups: a
-- breakdown's rows of a range are read in key order, in one walk.
CREATE TABLE `crawler_rollups` (
	`tracking_id` text NOT NULL,
	`dim` text NOT NULL,
	`span` integer NOT NULL,
	`start` integer NOT NULL,
	`value` text NOT NULL,
	`visits` integer DEFAULT 0 NOT NULL,
	`verified` integer DEFAULT 0 NOT NULL,
	`unverified` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`tracking_id`, `dim`, `span`, `start`, `value`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `crawler_rollups_start_idx` ON `crawler_rollups` (`start`);--> statement-breakpoint
-- Written by hand: the rollups of the visits stored before them (CRAWLER_ROLLUP_BACKFILL in
-- domain/crawl/visitStore.ts; a test checks this is that exact statement).
WITH v AS (SELECT tracking_id, ts, crawler, url_path, status, verified FROM crawler_visits)
	INSERT INTO crawler_rollups (tracking_id, dim, span, start, value, visits, verified, unverified)
	SELECT v.tracking_id, d.value, s.value, (v.ts / s.value) * s.value,
		CASE d.value WHEN '' THEN '' WHEN 'crawlers' THEN crawler WHEN 'paths' THEN url_path WHEN 'statuses' THEN CAST(status AS TEXT) WHEN 'page_crawlers' THEN json_array(url_path, crawler) END,
		count(*), coalesce(sum(v.verified = 1), 0), coalesce(sum(v.verified = 0), 0)
	FROM v, json_each('["","crawlers","paths","statuses","page_crawlers"]') AS d, json_each('[3600000,86400000]') AS s
	WHERE true GROUP BY 1, 2, 3, 4, 5
	ON CONFLICT (tracking_id, dim, span, start, value) DO UPDATE SET
		visits = visits + excluded.visits, verified = verified + excluded.verified, unverified = unverified + excluded.unverified;
