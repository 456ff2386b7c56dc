-- The issue list (docs/data-model.md#log_issues): its three orders, each also by status, end in
-- their tie-break (group_hash), so a page after a cursor is one walk of an index; and the names its
-- environment and release filters offer, in log_issue_names, filled here from the issues there are.
CREATE TABLE `log_issue_names` (
	`key_id` text NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`last_seen` integer NOT NULL,
	PRIMARY KEY(`key_id`, `kind`, `name`),
	FOREIGN KEY (`key_id`) REFERENCES `project_keys`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `log_issue_names_key_kind_last_seen_idx` ON `log_issue_names` (`key_id`,`kind`,`last_seen`);--> statement-breakpoint
DROP INDEX `log_issues_key_last_seen_idx`;--> statement-breakpoint
DROP INDEX `log_issues_key_status_last_seen_idx`;--> statement-breakpoint
CREATE INDEX `log_issues_key_first_seen_idx` ON `log_issues` (`key_id`,`first_seen`,`group_hash`);--> statement-breakpoint
CREATE INDEX `log_issues_key_status_first_seen_idx` ON `log_issues` (`key_id`,`status`,`first_seen`,`group_hash`);--> statement-breakpoint
CREATE INDEX `log_issues_key_count_idx` ON `log_issues` (`key_id`,`count`,`last_seen`,`group_hash`);--> statement-breakpoint
CREATE INDEX `log_issues_key_status_count_idx` ON `log_issues` (`key_id`,`status`,`count`,`last_seen`,`group_hash`);--> statement-breakpoint
CREATE INDEX `log_issues_key_last_seen_idx` ON `log_issues` (`key_id`,`last_seen`,`group_hash`);--> statement-breakpoint
CREATE INDEX `log_issues_key_status_last_seen_idx` ON `log_issues` (`key_id`,`status`,`last_seen`,`group_hash`);--> statement-breakpoint
INSERT INTO `log_issue_names` (`key_id`, `kind`, `name`, `last_seen`)
	SELECT i.`key_id`, 'environment', j.value, max(i.`last_seen`) FROM `log_issues` i, json_each(i.`environments`) j GROUP BY 1, 3;--> statement-breakpoint
INSERT INTO `log_issue_names` (`key_id`, `kind`, `name`, `last_seen`)
	SELECT i.`key_id`, 'release', j.value, max(i.`last_seen`) FROM `log_issues` i, json_each(i.`releases`) j GROUP BY 1, 3;