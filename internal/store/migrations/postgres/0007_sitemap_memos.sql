-- What a run remembers of each sitemap of pages it read whole, once what it found was settled:
-- how to tell that the file has not changed (validators, a hash of its bytes), and the pages it
-- held, sorted by hash (8 bytes of hash and 8 of lastmod each), against which a changed file is
-- merged instead of looking every page up in the catalogue. scope names the filter and the
-- channels the pages were settled for: a memo of another scope is not used.
CREATE TABLE sitemap_memos (
    site_id       TEXT    NOT NULL,
    sitemap       TEXT    NOT NULL,
    etag          TEXT    NOT NULL,
    last_modified TEXT    NOT NULL,
    size          BIGINT  NOT NULL,
    mod_time      BIGINT  NOT NULL,
    content_hash  BIGINT  NOT NULL,
    scope         TEXT    NOT NULL,
    urls          BIGINT  NOT NULL,
    filtered      BIGINT  NOT NULL,
    pages         BYTEA   NOT NULL,
    PRIMARY KEY (site_id, sitemap)
);
