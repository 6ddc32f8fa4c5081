-- What Bing's GetUrlInfo said of a URL submitted through IndexNow or Bing: as for SQLite (see
-- migrations/sqlite).
CREATE TABLE bing_crawls (
    site_id      TEXT    NOT NULL,
    url_hash     BIGINT  NOT NULL,
    last_crawled BIGINT,
    http_status  INTEGER NOT NULL,
    discovered   BIGINT,
    checked_at   BIGINT  NOT NULL,
    submitted_at BIGINT  NOT NULL,
    PRIMARY KEY (site_id, url_hash)
);

CREATE INDEX deliveries_submitted ON deliveries (site_id, delivered_at)
    WHERE outcome = 'ok' AND channel IN ('indexnow', 'bing');
