ALTER TABLE `log_issues` ADD `ignored_until` integer;--> statement-breakpoint
ALTER TABLE `log_issues` ADD `ignored_until_count` integer;