-- The drawn tag error.type (the type of the exception an event's title names), counted from the
-- events stored then: ERROR_TYPE_BACKFILL in domain/logs/issueTags.ts, which a test checks counts as
-- the flush does. Rows of that name are deleted first: an app's own tag of it gives way to the drawn one.
DELETE FROM log_issue_tags WHERE tag_key = 'error.type';--> statement-breakpoint
INSERT INTO log_issue_tags (key_id, group_hash, environment, tag_key, value, count, first_seen, last_seen)
	WITH stored AS (
		SELECT key_id, group_hash, coalesce(environment, '') AS environment, timestamp, CAST(event ->> '$.exception.type' AS TEXT) AS value
		FROM log_events
	)
	SELECT key_id, group_hash, environment, 'error.type', value, count(*), min(timestamp), max(timestamp)
	FROM stored WHERE value IS NOT NULL AND value <> '' GROUP BY 1, 2, 3, 5
	ON CONFLICT (key_id, group_hash, environment, tag_key, value) DO UPDATE SET count = count + excluded.count,
		first_seen = min(first_seen, excluded.first_seen), last_seen = max(last_seen, excluded.last_seen);
