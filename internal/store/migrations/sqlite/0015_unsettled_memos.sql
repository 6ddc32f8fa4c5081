-- A memo may stand for a sitemap read whole by a read that reached its end while not every URL due
-- was answered (a quota held some back): its pages say which URLs the sitemaps list — for a URL's
-- story, and for the URLs that leave them — but not that they are no news, so the next run reads
-- the sitemap again. The memos kept before are settled, as they were.
ALTER TABLE sitemap_memos ADD COLUMN unsettled INTEGER NOT NULL DEFAULT 0;
