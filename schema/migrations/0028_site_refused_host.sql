ALTER TABLE `sites` ADD `refused_host` text;--> statement-breakpoint
ALTER TABLE `sites` ADD `refused_at` integer;