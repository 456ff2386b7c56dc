-- The page URL's `ref`, a breakdown of its own (docs/data-model.md#analytics_events). Events stored
-- before it keep "": their ref named their source as before, and is not read back from url_query.
ALTER TABLE `analytics_events` ADD `ref` text DEFAULT '' NOT NULL;