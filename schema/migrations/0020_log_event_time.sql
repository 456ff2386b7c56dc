UPDATE log_events SET timestamp = received_at
	WHERE timestamp < received_at - 2592000000 OR timestamp > received_at;--> statement-breakpoint
DROP INDEX `log_events_key_group_received_env_idx`;--> statement-breakpoint
DROP INDEX `log_events_received_idx`;--> statement-breakpoint
CREATE INDEX `log_events_key_group_timestamp_env_idx` ON `log_events` (`key_id`,`group_hash`,`timestamp`,`environment`);--> statement-breakpoint
CREATE INDEX `log_events_timestamp_idx` ON `log_events` (`timestamp`);