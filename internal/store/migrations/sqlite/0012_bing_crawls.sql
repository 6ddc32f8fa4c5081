-- What Bing's GetUrlInfo said of a URL submitted through IndexNow or Bing, at its latest answer:
-- when Bing last crawled it (NULL: never), the HTTP status it got, when it discovered it, when it
-- was asked, and the submission that answer is measured from. A URL is asked about again only
-- while no crawl after its newest submission is seen.
CREATE TABLE bing_crawls (
    site_id      TEXT    NOT NULL,
    url_hash     INTEGER NOT NULL,
    last_crawled INTEGER,          -- NULL: Bing never crawled it (DateTime.MinValue)
    http_status  INTEGER NOT NULL,
    discovered   INTEGER,          -- NULL: Bing did not say
    checked_at   INTEGER NOT NULL,
    submitted_at INTEGER NOT NULL, -- the newest submission (IndexNow or Bing) when it was asked
    PRIMARY KEY (site_id, url_hash)
) WITHOUT ROWID;

-- The submissions of the last days, newest per URL, are found by time rather than by reading
-- every delivery of the site.
CREATE INDEX deliveries_submitted ON deliveries (site_id, delivered_at)
    WHERE outcome = 'ok' AND channel IN ('indexnow', 'bing');
