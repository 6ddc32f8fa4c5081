-- The first schema, as for SQLite (see migrations/sqlite): times are Unix milliseconds, UTC, and
-- a URL is identified within its site by a 64-bit hash of its text.

CREATE TABLE urls (
    site_id    TEXT   NOT NULL,
    url_hash   BIGINT NOT NULL,
    url        TEXT   NOT NULL,
    lastmod    BIGINT,
    first_seen BIGINT NOT NULL,
    last_seen  BIGINT NOT NULL,
    PRIMARY KEY (site_id, url_hash)
);

CREATE TABLE deliveries (
    site_id      TEXT    NOT NULL,
    url_hash     BIGINT  NOT NULL,
    channel      TEXT    NOT NULL,
    lastmod      BIGINT,
    delivered_at BIGINT,
    outcome      TEXT    NOT NULL,
    attempts     INTEGER NOT NULL,
    last_error   TEXT,
    last_attempt BIGINT  NOT NULL,
    PRIMARY KEY (site_id, url_hash, channel)
);

CREATE TABLE runs (
    id          BIGSERIAL PRIMARY KEY,
    site_id     TEXT   NOT NULL,
    trigger     TEXT   NOT NULL,
    started_at  BIGINT NOT NULL,
    finished_at BIGINT,
    status      TEXT   NOT NULL,
    record      TEXT
);
CREATE INDEX runs_by_site ON runs (site_id, started_at);

CREATE TABLE daily_stats (
    day        TEXT   NOT NULL,
    site_id    TEXT   NOT NULL,
    channel    TEXT   NOT NULL,
    endpoint   TEXT   NOT NULL,
    requests   BIGINT NOT NULL,
    total      BIGINT NOT NULL,
    successful BIGINT NOT NULL,
    failed     BIGINT NOT NULL,
    PRIMARY KEY (day, site_id, channel, endpoint)
);

CREATE TABLE leases (
    site_id    TEXT   PRIMARY KEY,
    holder     TEXT   NOT NULL,
    expires_at BIGINT NOT NULL
);

CREATE TABLE sites (
    id         TEXT   PRIMARY KEY,
    config     TEXT   NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
