-- Written by hand: crawler statistics' top paths are summed from the page_crawlers rows (path
-- and crawler), which hold the same visits; the rows of the paths breakdown are no longer written.
DELETE FROM crawler_rollups WHERE dim = 'paths';
