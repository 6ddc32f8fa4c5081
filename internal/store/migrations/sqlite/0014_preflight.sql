-- What the last preflight of a URL on a channel found (docs/runs.md, "Preflight"): 'ok', or the
-- reason the URL was held back (status, redirect, noindex, canonical, robots), what was found
-- ("HTTP 404", the canonical URL) and when. A URL held back has the outcome 'ineligible', its
-- lastmod the one checked and last_attempt the check's time; one that failed for now (a 5xx) is
-- 'failed', and tried again at the next run.
ALTER TABLE deliveries ADD COLUMN preflight TEXT;
ALTER TABLE deliveries ADD COLUMN preflight_detail TEXT;
ALTER TABLE deliveries ADD COLUMN preflight_at INTEGER;
-- The URLs held back, to check again once preflightAfter has passed.
CREATE INDEX deliveries_ineligible ON deliveries (site_id, channel, last_attempt) WHERE outcome = 'ineligible';
