-- A memo may stand for a sitemap read whole by a read of the site's sitemaps that has not reached
-- its end yet (a run's budget cut it short): the runs after take its pages from the memo, looking
-- each up, and read on from the sitemaps not yet read (docs/runs.md, "A read over several runs").
-- An index read whole with every sitemap below it is remembered too (is_index, no pages), so that
-- the runs after do not read it again either.
ALTER TABLE sitemap_memos ADD COLUMN unfinished SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE sitemap_memos ADD COLUMN is_index SMALLINT NOT NULL DEFAULT 0;
