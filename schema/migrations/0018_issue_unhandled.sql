ALTER TABLE `log_issues` ADD `unhandled` integer DEFAULT false NOT NULL;--> statement-breakpoint
UPDATE log_issues SET unhandled = 1 FROM (
	SELECT DISTINCT key_id, group_hash FROM log_events
	WHERE event ->> '$.exception.mechanism.handled' = 0
		OR EXISTS (SELECT 1 FROM json_each(event, '$.chained_exceptions') WHERE value ->> '$.mechanism.handled' = 0)
) AS u WHERE log_issues.key_id = u.key_id AND log_issues.group_hash = u.group_hash;