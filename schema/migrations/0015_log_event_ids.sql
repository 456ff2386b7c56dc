-- An event by the id its SDK gave it: the issue list's search (issueListQuery in
-- domain/logs/logStore.ts repeats this exact expression). Written by hand: drizzle-kit cannot
-- express an index on an expression.
CREATE INDEX `log_events_key_event_id_idx` ON `log_events` (`key_id`, json_extract(`event`, '$.event_id'));
