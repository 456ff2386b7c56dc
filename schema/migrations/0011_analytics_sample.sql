-- The visitor sample of the filtered statistics (domain/analytics/sampling.ts, whose
-- sampleCondition repeats this exact expression): a site's events by the first two hex digits of
-- their visitor id, then time, so a sample of k buckets is k searches of its range. Written by
-- hand: drizzle-kit cannot express an index on an expression.
CREATE INDEX `analytics_events_sample_idx` ON `analytics_events` (`tracking_id`, substr(`visitor_id`, 1, 2), `ts`);
