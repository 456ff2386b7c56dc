CREATE INDEX `sessions_expires_idx` ON `sessions` (`expires_at`);--> statement-breakpoint
CREATE INDEX `log_events_received_idx` ON `log_events` (`received_at`);--> statement-breakpoint
CREATE INDEX `log_issues_last_seen_idx` ON `log_issues` (`last_seen`);--> statement-breakpoint
CREATE INDEX `analytics_events_ts_idx` ON `analytics_events` (`ts`);--> statement-breakpoint
CREATE INDEX `analytics_identities_last_seen_idx` ON `analytics_identities` (`last_seen`);--> statement-breakpoint
CREATE INDEX `crawler_visits_ts_idx` ON `crawler_visits` (`ts`);