ALTER TABLE `project_keys` ADD `filter_browser_extensions` integer DEFAULT true NOT NULL;--> statement-breakpoint
-- On for keys created from now on, as Sentry turns the filter on for a new project; the keys that
-- already exist go on storing what they stored until their owner turns it on. Written by hand.
UPDATE `project_keys` SET `filter_browser_extensions` = false;
