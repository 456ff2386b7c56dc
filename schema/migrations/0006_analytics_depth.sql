ALTER TABLE `analytics_events` ADD `source` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `analytics_events` ADD `utm_source` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `analytics_events` ADD `utm_medium` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `analytics_events` ADD `utm_campaign` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `analytics_events` ADD `utm_content` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `analytics_events` ADD `utm_term` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `analytics_events` ADD `engaged_ms` integer;--> statement-breakpoint
ALTER TABLE `analytics_events` ADD `scroll_depth` integer;