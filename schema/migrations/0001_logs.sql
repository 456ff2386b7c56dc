CREATE TABLE `log_events` (
	`id` text PRIMARY KEY NOT NULL,
	`key_id` text NOT NULL,
	`group_hash` text NOT NULL,
	`received_at` integer NOT NULL,
	`timestamp` integer NOT NULL,
	`level` text NOT NULL,
	`environment` text,
	`release` text,
	`event` text NOT NULL,
	FOREIGN KEY (`key_id`) REFERENCES `project_keys`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `log_events_key_group_received_idx` ON `log_events` (`key_id`,`group_hash`,`received_at`);--> statement-breakpoint
CREATE TABLE `log_issues` (
	`key_id` text NOT NULL,
	`group_hash` text NOT NULL,
	`user_id` text NOT NULL,
	`title` text NOT NULL,
	`culprit` text,
	`level` text NOT NULL,
	`status` text DEFAULT 'open' NOT NULL,
	`count` integer NOT NULL,
	`users` integer NOT NULL,
	`first_seen` integer NOT NULL,
	`last_seen` integer NOT NULL,
	`environments` text NOT NULL,
	`releases` text NOT NULL,
	`resolved_in_release` text,
	PRIMARY KEY(`key_id`, `group_hash`),
	FOREIGN KEY (`key_id`) REFERENCES `project_keys`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `log_issues_key_last_seen_idx` ON `log_issues` (`key_id`,`last_seen`);--> statement-breakpoint
CREATE INDEX `log_issues_key_status_last_seen_idx` ON `log_issues` (`key_id`,`status`,`last_seen`);