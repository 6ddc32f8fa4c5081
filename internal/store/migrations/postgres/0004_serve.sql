-- For sitepush serve: site ids unique regardless of case, the time of each channel's last
-- accepted submission, and statistics read per site.
CREATE UNIQUE INDEX sites_by_lower_id ON sites (lower(id));
ALTER TABLE daily_stats ADD COLUMN last_success BIGINT;
CREATE INDEX daily_stats_by_site ON daily_stats (site_id, channel, day);
