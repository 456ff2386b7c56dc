-- The issue list filtered by environment (docs/data-model.md#log_issue_environments): each issue's
-- figures in each environment it holds, in log_issue_environments (WITHOUT ROWID added by hand:
-- drizzle-kit cannot express it), with one index per order of the list; log_events' index of an
-- issue's events holds their environment too, so one environment's hourly counts read no event.
-- Written by hand at the end: the rows filled from the events stored now, and who they counted, for
-- each key's ProjectCollector to take over (ENVIRONMENT_BACKFILL and ENVIRONMENT_USERS_BACKFILL of
-- domain/logs/issueEnvironments.ts; a test checks they are the same).
CREATE TABLE `log_issue_environment_users_seed` (
	`key_id` text NOT NULL,
	`group_hash` text NOT NULL,
	`environment` text NOT NULL,
	`user` text NOT NULL,
	FOREIGN KEY (`key_id`) REFERENCES `project_keys`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `log_issue_environment_users_seed_key_idx` ON `log_issue_environment_users_seed` (`key_id`);--> statement-breakpoint
CREATE TABLE `log_issue_environments` (
	`key_id` text NOT NULL,
	`group_hash` text NOT NULL,
	`environment` text NOT NULL,
	`count` integer NOT NULL,
	`users` integer NOT NULL,
	`first_seen` integer NOT NULL,
	`last_seen` integer NOT NULL,
	PRIMARY KEY(`key_id`, `group_hash`, `environment`),
	FOREIGN KEY (`key_id`) REFERENCES `project_keys`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `log_issue_environments_key_env_last_seen_idx` ON `log_issue_environments` (`key_id`,`environment`,`last_seen`,`group_hash`);--> statement-breakpoint
CREATE INDEX `log_issue_environments_key_env_first_seen_idx` ON `log_issue_environments` (`key_id`,`environment`,`first_seen`,`group_hash`);--> statement-breakpoint
CREATE INDEX `log_issue_environments_key_env_count_idx` ON `log_issue_environments` (`key_id`,`environment`,`count`,`last_seen`,`group_hash`);--> statement-breakpoint
DROP INDEX `log_events_key_group_received_idx`;--> statement-breakpoint
CREATE INDEX `log_events_key_group_received_env_idx` ON `log_events` (`key_id`,`group_hash`,`received_at`,`environment`);--> statement-breakpoint
INSERT INTO log_issue_environments (key_id, group_hash, environment, count, users, first_seen, last_seen)
	SELECT e.key_id, e.group_hash, e.environment, count(*), count(DISTINCT CASE
		WHEN coalesce(e.event ->> '$.user.id', '') <> '' THEN 'id:' || (e.event ->> '$.user.id')
		WHEN coalesce(e.event ->> '$.user.email', '') <> '' THEN 'email:' || lower(e.event ->> '$.user.email')
		WHEN coalesce(e.event ->> '$.user.username', '') <> '' THEN 'username:' || (e.event ->> '$.user.username')
		WHEN coalesce(e.event ->> '$.user.ip_address', '') <> '' THEN 'ip:' || (e.event ->> '$.user.ip_address')
	END), min(e.received_at), max(e.received_at)
	FROM log_issues AS i JOIN log_events AS e ON e.key_id = i.key_id AND e.group_hash = i.group_hash
	WHERE e.environment IN (SELECT value FROM json_each(i.environments))
	GROUP BY 1, 2, 3;--> statement-breakpoint
INSERT INTO log_issue_environment_users_seed (key_id, group_hash, environment, user)
	SELECT DISTINCT key_id, group_hash, environment, user FROM (
		SELECT e.key_id, e.group_hash, e.environment, CASE
		WHEN coalesce(e.event ->> '$.user.id', '') <> '' THEN 'id:' || (e.event ->> '$.user.id')
		WHEN coalesce(e.event ->> '$.user.email', '') <> '' THEN 'email:' || (e.event ->> '$.user.email')
		WHEN coalesce(e.event ->> '$.user.username', '') <> '' THEN 'username:' || (e.event ->> '$.user.username')
		WHEN coalesce(e.event ->> '$.user.ip_address', '') <> '' THEN 'ip:' || (e.event ->> '$.user.ip_address')
	END AS user
		FROM log_issues AS i JOIN log_events AS e ON e.key_id = i.key_id AND e.group_hash = i.group_hash
	WHERE e.environment IN (SELECT value FROM json_each(i.environments))
	) WHERE user IS NOT NULL;
