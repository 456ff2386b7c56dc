-- Each value each tag of an issue's events took, per environment, in log_issue_tags (WITHOUT ROWID
-- added by hand: drizzle-kit cannot express it; clustered on the issue, as its summary reads it).
-- The last statement counts the events stored then (TAG_BACKFILL in domain/logs/issueTags.ts).
CREATE TABLE `log_issue_tags` (
	`key_id` text NOT NULL,
	`group_hash` text NOT NULL,
	`environment` text NOT NULL,
	`tag_key` text NOT NULL,
	`value` text NOT NULL,
	`count` integer NOT NULL,
	`first_seen` integer NOT NULL,
	`last_seen` integer NOT NULL,
	PRIMARY KEY(`key_id`, `group_hash`, `environment`, `tag_key`, `value`),
	FOREIGN KEY (`key_id`) REFERENCES `project_keys`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `log_issue_tags_key_tag_value_idx` ON `log_issue_tags` (`key_id`,`tag_key`,`value`,`group_hash`);--> statement-breakpoint
CREATE INDEX `log_issue_tags_last_seen_idx` ON `log_issue_tags` (`last_seen`);--> statement-breakpoint
INSERT INTO log_issue_tags (key_id, group_hash, environment, tag_key, value, count, first_seen, last_seen)
	WITH stored AS (SELECT key_id, group_hash, coalesce(environment, '') AS environment, timestamp, jsonb(event) AS event FROM log_events)
	SELECT key_id, group_hash, environment, key, value, count(*), min(timestamp), max(timestamp)
	FROM (SELECT key_id, group_hash, environment, timestamp, key, CAST(value AS TEXT) AS value FROM (SELECT key_id, group_hash, environment, timestamp, t.key AS key, t.value AS value FROM stored, json_each(stored.event, '$.tags') AS t
		WHERE t.key NOT IN ('level', 'handled', 'mechanism', 'environment', 'release', 'browser', 'browser.name', 'os', 'os.name', 'device', 'runtime', 'runtime.name', 'url', 'user') UNION ALL SELECT key_id, group_hash, environment, timestamp, d.key, d.value FROM stored, json_each(json_object('level', event ->> '$.level', 'handled', CASE WHEN event ->> '$.exception.mechanism.handled' = 0
		OR EXISTS (SELECT 1 FROM json_each(event, '$.chained_exceptions') WHERE value ->> '$.mechanism.handled' = 0) THEN 'no' WHEN event ->> '$.exception.mechanism.handled' = 1
		OR EXISTS (SELECT 1 FROM json_each(event, '$.chained_exceptions') WHERE value ->> '$.mechanism.handled' = 1) THEN 'yes' END, 'mechanism', event ->> '$.exception.mechanism.type', 'environment', event ->> '$.environment', 'release', event ->> '$.release', 'browser', trim(concat_ws(' ', event ->> '$.contexts.browser.name', event ->> '$.contexts.browser.version')), 'browser.name', event ->> '$.contexts.browser.name', 'os', trim(concat_ws(' ', event ->> '$.contexts.os.name', event ->> '$.contexts.os.version')), 'os.name', event ->> '$.contexts.os.name', 'device', coalesce(event ->> '$.contexts.device.model', event ->> '$.contexts.device.family'), 'runtime', trim(concat_ws(' ', event ->> '$.contexts.runtime.name', event ->> '$.contexts.runtime.version')), 'runtime.name', event ->> '$.contexts.runtime.name', 'url', substr(event ->> '$.request.url', 1, instr((event ->> '$.request.url') || '?', '?') - 1), 'user', coalesce(event ->> '$.user.email', event ->> '$.user.id', event ->> '$.user.username', event ->> '$.user.ip_address'))) AS d) WHERE value IS NOT NULL AND value <> '') WHERE true GROUP BY 1, 2, 3, 4, 5
	ON CONFLICT (key_id, group_hash, environment, tag_key, value) DO UPDATE SET count = count + excluded.count,
		first_seen = min(first_seen, excluded.first_seen), last_seen = max(last_seen, excluded.last_seen);
