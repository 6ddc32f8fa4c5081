-- Content checks (docs/runs.md, "What changed"): as for SQLite (see migrations/sqlite). content
-- and sent are uint64 fingerprints kept as the int64 of their bits.
ALTER TABLE urls ADD COLUMN content BIGINT;
ALTER TABLE urls ADD COLUMN check_key BIGINT;
ALTER TABLE urls ADD COLUMN etag TEXT;
ALTER TABLE urls ADD COLUMN last_modified TEXT;
ALTER TABLE deliveries ADD COLUMN sent BIGINT;
CREATE INDEX urls_rotation ON urls (site_id, check_key, url_hash) WHERE check_key IS NOT NULL;
CREATE INDEX urls_checked ON urls (site_id, content) WHERE content IS NOT NULL;
