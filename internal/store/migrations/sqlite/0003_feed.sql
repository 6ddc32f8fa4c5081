-- Each site's feed of new pages: its items, newest first by published (the page's lastmod, else
-- when it was first seen), and whether and when the feed was built and last changed.
CREATE TABLE feed_items (
    site_id     TEXT    NOT NULL,
    url_hash    INTEGER NOT NULL,
    url         TEXT    NOT NULL,
    title       TEXT    NOT NULL,
    description TEXT    NOT NULL,
    published   INTEGER NOT NULL,
    first_seen  INTEGER NOT NULL,
    titled      INTEGER NOT NULL, -- 1 when title and description were read from the page
    PRIMARY KEY (site_id, url_hash)
) WITHOUT ROWID;
CREATE INDEX feed_items_by_date ON feed_items (site_id, published);

CREATE TABLE feed_state (
    site_id    TEXT    PRIMARY KEY,
    built_at   INTEGER,          -- the first run done; NULL before
    changed_at INTEGER NOT NULL
) WITHOUT ROWID;
