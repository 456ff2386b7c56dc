ALTER TABLE `project_keys` ADD `dsn_id` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `project_keys_dsn_id_unique` ON `project_keys` (`dsn_id`);--> statement-breakpoint
-- Keys created before DSNs: each gets a distinct number now (new keys take the next one on insert).
UPDATE `project_keys` SET `dsn_id` = `rowid` WHERE `dsn_id` IS NULL;
