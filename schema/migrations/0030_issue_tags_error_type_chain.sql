-- The drawn tag error.type over each exception of an event's chain (0029 counted the reported one's
-- type only), counted again from the events stored then: ERROR_TYPE_BACKFILL in
-- domain/logs/issueTags.ts, which a test checks counts as the flush does. Rows of that name are
-- deleted first, as 0029 did.
DELETE FROM log_issue_tags WHERE tag_key = 'error.type';--> statement-breakpoint
INSERT INTO log_issue_tags (key_id, group_hash, environment, tag_key, value, count, first_seen, last_seen)
	WITH stored AS (
		SELECT id AS row_id, key_id, group_hash, coalesce(environment, '') AS environment, timestamp, jsonb(event) AS event
		FROM log_events
	), types AS (
		SELECT key_id, group_hash, environment, timestamp, event ->> '$.exception.type' AS value FROM stored
		UNION ALL SELECT key_id, group_hash, environment, timestamp, value FROM (SELECT DISTINCT key_id, group_hash, environment, timestamp, stored.row_id, 'error.type' AS key, c.value ->> '$.type' AS value
		FROM stored, json_each(stored.event, '$.chained_exceptions') AS c
		WHERE (c.value ->> '$.type') IS NOT (stored.event ->> '$.exception.type'))
	)
	SELECT key_id, group_hash, environment, 'error.type', CAST(value AS TEXT), count(*), min(timestamp), max(timestamp)
	FROM types WHERE value IS NOT NULL AND value <> '' GROUP BY 1, 2, 3, 5
	ON CONFLICT (key_id, group_hash, environment, tag_key, value) DO UPDATE SET count = count + excluded.count,
		first_seen = min(first_seen, excluded.first_seen), last_seen = max(last_seen, excluded.last_seen);
