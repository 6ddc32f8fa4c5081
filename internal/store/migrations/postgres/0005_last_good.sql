-- A site's last good run is found by an index seek, whatever the history kept: metrics read it
-- for every site at each scrape.
CREATE INDEX runs_by_outcome ON runs (site_id, status, finished_at);
