-- For the dashboard: a site's failed and rejected URLs, by the time of their last attempt (those
-- of a run, the failure causes of a period), found without reading the site's other deliveries.
-- Partial: it holds only the failures, not a row per URL.
CREATE INDEX deliveries_failed ON deliveries (site_id, last_attempt) WHERE outcome IN ('failed', 'rejected');
