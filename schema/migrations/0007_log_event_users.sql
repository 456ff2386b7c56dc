-- The issues one person ran into: log events by their user's id, and by their email in any letter
-- case (ISSUES_OF_USER in domain/logs/logStore.ts repeats these exact expressions). Written by
-- hand: drizzle-kit cannot express an index on an expression.
CREATE INDEX `log_events_key_user_id_idx` ON `log_events` (`key_id`, json_extract(`event`, '$.user.id'));--> statement-breakpoint
CREATE INDEX `log_events_key_user_email_idx` ON `log_events` (`key_id`, lower(json_extract(`event`, '$.user.email')));
