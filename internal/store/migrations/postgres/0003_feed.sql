-- Each site's feed of new pages: its items and whether and when it was built and last changed.
CREATE TABLE feed_items (
    site_id     TEXT     NOT NULL,
    url_hash    BIGINT   NOT NULL,
    url         TEXT     NOT NULL,
    title       TEXT     NOT NULL,
    description TEXT     NOT NULL,
    published   BIGINT   NOT NULL,
    first_seen  BIGINT   NOT NULL,
    titled      SMALLINT NOT NULL,
    PRIMARY KEY (site_id, url_hash)
);
CREATE INDEX feed_items_by_date ON feed_items (site_id, published);

CREATE TABLE feed_state (
    site_id    TEXT   PRIMARY KEY,
    built_at   BIGINT,
    changed_at BIGINT NOT NULL
);
