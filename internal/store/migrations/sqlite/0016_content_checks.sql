-- Content checks (docs/runs.md, "What changed"). A page's content is the fingerprint of its last
-- check (a uint64 kept as the int64 of its bits; NULL: never checked), with that answer's ETag and
-- Last-Modified for the next, conditional, fetch. check_key places it in the rotation of checks:
-- NULL, not in it (its sitemap's lastmods are trusted); 0, a suspect (new, or its lastmod moved,
-- and not checked since); else the Unix ms of the check that keeps its place in line.
ALTER TABLE urls ADD COLUMN content INTEGER;
ALTER TABLE urls ADD COLUMN check_key INTEGER;
ALTER TABLE urls ADD COLUMN etag TEXT;
ALTER TABLE urls ADD COLUMN last_modified TEXT;
-- The content a channel last delivered: the page's at the delivery (NULL: none recorded).
ALTER TABLE deliveries ADD COLUMN sent INTEGER;
-- The rotation, in line: a range read of its head, and nothing to read for a site without one.
CREATE INDEX urls_rotation ON urls (site_id, check_key, url_hash) WHERE check_key IS NOT NULL;
-- The pages that were checked, by site: a site with none (it never checked content) records no
-- content sent, and knows so from one probe of an empty index.
CREATE INDEX urls_checked ON urls (site_id, content) WHERE content IS NOT NULL;
