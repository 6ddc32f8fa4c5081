-- The URLs that left every sitemap of a site, as a whole read found, and what became of each: the
-- status it answered when a run probed it, and when a removal notice for it (a 404 or a 410) was
-- accepted through IndexNow. A URL that leaves again starts afresh.
CREATE TABLE removals (
    site_id      TEXT    NOT NULL,
    url_hash     INTEGER  NOT NULL,
    left_at      INTEGER  NOT NULL, -- Unix ms: the run that found it gone from the sitemaps
    status       INTEGER,          -- what the probe got: NULL until probed, 0 when no answer came
    probed_at    INTEGER,           -- Unix ms
    announced_at INTEGER,           -- Unix ms: IndexNow accepted the notice
    PRIMARY KEY (site_id, url_hash)
) WITHOUT ROWID;
