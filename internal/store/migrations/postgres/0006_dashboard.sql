-- For the dashboard: a site's failed and rejected URLs, by the time of their last attempt (those
-- of a run, the failure causes of a period), found without reading the site's other deliveries.
-- Partial: it holds only the failures, not a row per URL; covering: the causes are counted from it.
CREATE INDEX deliveries_failed ON deliveries (site_id, last_attempt, channel, outcome, last_error) WHERE outcome IN ('failed', 'rejected');
-- A site's failed URLs counted per channel from the index alone.
CREATE INDEX deliveries_failed_by_channel ON deliveries (site_id, channel, outcome) WHERE outcome IN ('failed', 'rejected');

-- The failed attempts of each URL on each channel, the last few (a URL's story): a success is
-- the delivery's own row. Bounded per URL and channel when written, dropped after 90 days.
CREATE TABLE failed_attempts (
    site_id  TEXT    NOT NULL,
    url_hash BIGINT  NOT NULL,
    channel  TEXT    NOT NULL,
    at       BIGINT  NOT NULL,
    outcome  TEXT    NOT NULL, -- 'failed' or 'rejected'
    error    TEXT    NOT NULL,
    PRIMARY KEY (site_id, url_hash, channel, at)
);
CREATE INDEX failed_attempts_by_time ON failed_attempts (site_id, at);

-- A site's statistics of the channels (endpoint ''), and when each last accepted a URL, read by
-- index seeks: every page and /status reads them for every site.
DROP INDEX daily_stats_by_site;
CREATE INDEX daily_stats_by_site ON daily_stats (site_id, endpoint, channel, day);
CREATE INDEX daily_stats_last_success ON daily_stats (site_id, endpoint, channel, last_success);
