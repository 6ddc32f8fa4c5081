-- The first schema. Times are Unix milliseconds, UTC. A URL is identified within its site by a
-- 64-bit hash of its text; keys lead with the site so that one site's rows sit together.

-- The catalogue: every URL seen in a site's sitemaps.
CREATE TABLE urls (
    site_id    TEXT    NOT NULL,
    url_hash   INTEGER NOT NULL,
    url        TEXT    NOT NULL,
    lastmod    INTEGER,          -- the sitemap's lastmod when last seen; NULL when it gives none
    first_seen INTEGER NOT NULL,
    last_seen  INTEGER NOT NULL, -- refreshed at most daily
    PRIMARY KEY (site_id, url_hash)
) WITHOUT ROWID;

-- What each channel did with each URL.
CREATE TABLE deliveries (
    site_id      TEXT    NOT NULL,
    url_hash     INTEGER NOT NULL,
    channel      TEXT    NOT NULL,
    lastmod      INTEGER,          -- the lastmod last delivered
    delivered_at INTEGER,          -- when the channel last accepted the URL
    outcome      TEXT    NOT NULL, -- 'ok' or 'failed': the last attempt's
    attempts     INTEGER NOT NULL, -- attempts since the last success, that one included
    last_error   TEXT,
    last_attempt INTEGER NOT NULL,
    PRIMARY KEY (site_id, url_hash, channel)
) WITHOUT ROWID;

-- Execution records, kept 90 days.
CREATE TABLE runs (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    site_id     TEXT    NOT NULL,
    trigger     TEXT    NOT NULL,
    started_at  INTEGER NOT NULL,
    finished_at INTEGER,
    status      TEXT    NOT NULL,
    record      TEXT              -- the execution record as JSON, once finished
);
CREATE INDEX runs_by_site ON runs (site_id, started_at);

-- Per UTC day, site, channel and endpoint ('' for the channel's URL-level outcomes).
CREATE TABLE daily_stats (
    day        TEXT    NOT NULL,
    site_id    TEXT    NOT NULL,
    channel    TEXT    NOT NULL,
    endpoint   TEXT    NOT NULL,
    requests   INTEGER NOT NULL,
    total      INTEGER NOT NULL,
    successful INTEGER NOT NULL,
    failed     INTEGER NOT NULL,
    PRIMARY KEY (day, site_id, channel, endpoint)
) WITHOUT ROWID;

-- One run per site at a time, across processes; a lease a dead holder cannot renew expires.
CREATE TABLE leases (
    site_id    TEXT    PRIMARY KEY,
    holder     TEXT    NOT NULL,
    expires_at INTEGER NOT NULL
) WITHOUT ROWID;

-- Sites created through the admin API, as JSON with the configuration file's keys.
CREATE TABLE sites (
    id         TEXT    PRIMARY KEY,
    config     TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
) WITHOUT ROWID;
