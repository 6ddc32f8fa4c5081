-- What Google's URL Inspection last said of a site's URLs: one row a URL, replaced at each
-- inspection. A URL sent after checked_at is inspected again. Times are Unix milliseconds.
CREATE TABLE google_inspections (
    site_id        TEXT   NOT NULL,
    url_hash       BIGINT NOT NULL,
    coverage_state TEXT   NOT NULL,
    indexing_state TEXT   NOT NULL,
    last_crawl     BIGINT,
    checked_at     BIGINT NOT NULL,
    PRIMARY KEY (site_id, url_hash)
);

-- URL Inspection calls per Search Console property and UTC day: Google counts them per property,
-- which sites may share.
CREATE TABLE google_inspect_quota (
    property TEXT   NOT NULL,
    day      TEXT   NOT NULL,
    used     INTEGER NOT NULL,
    PRIMARY KEY (property, day)
);
