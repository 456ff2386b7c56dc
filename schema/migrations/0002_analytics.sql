CREATE TABLE `analytics_events` (
	`tracking_id` text NOT NULL,
	`event_id` text NOT NULL,
	`ts` integer NOT NULL,
	`name` text DEFAULT '' NOT NULL,
	`data` text,
	`url_host` text,
	`url_path` text DEFAULT '/' NOT NULL,
	`url_query` text DEFAULT '' NOT NULL,
	`referrer` text DEFAULT '' NOT NULL,
	`referrer_host` text DEFAULT '' NOT NULL,
	`title` text DEFAULT '' NOT NULL,
	`language` text DEFAULT '' NOT NULL,
	`screen` text DEFAULT '' NOT NULL,
	`visitor_id` text NOT NULL,
	`distinct_id` text,
	`session_id` text,
	`duration` integer,
	`seq` integer DEFAULT 0 NOT NULL,
	`v` text DEFAULT '' NOT NULL,
	`browser` text DEFAULT '' NOT NULL,
	`os` text DEFAULT '' NOT NULL,
	`device` text DEFAULT '' NOT NULL,
	`country` text DEFAULT '' NOT NULL,
	PRIMARY KEY(`tracking_id`, `event_id`)
);
--> statement-breakpoint
CREATE INDEX `analytics_events_site_ts_idx` ON `analytics_events` (`tracking_id`,`ts`);--> statement-breakpoint
CREATE TABLE `analytics_identities` (
	`tracking_id` text NOT NULL,
	`visitor_id` text NOT NULL,
	`distinct_id` text NOT NULL,
	`first_seen` integer NOT NULL,
	`last_seen` integer NOT NULL,
	PRIMARY KEY(`tracking_id`, `visitor_id`, `distinct_id`)
);
--> statement-breakpoint
CREATE INDEX `analytics_identities_distinct_idx` ON `analytics_identities` (`tracking_id`,`distinct_id`);--> statement-breakpoint
CREATE TABLE `crawler_visits` (
	`id` text PRIMARY KEY NOT NULL,
	`tracking_id` text NOT NULL,
	`ts` integer NOT NULL,
	`crawler` text NOT NULL,
	`url_host` text,
	`url_path` text NOT NULL,
	`country` text DEFAULT '' NOT NULL,
	`status` integer NOT NULL,
	`ua` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `crawler_visits_site_ts_idx` ON `crawler_visits` (`tracking_id`,`ts`);--> statement-breakpoint
CREATE TABLE `sites` (
	`tracking_id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`domain` text,
	`active` integer DEFAULT true NOT NULL,
	`attack_mode` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sites_user_idx` ON `sites` (`user_id`,`created_at`);