-- What Bing answered of a site's quota on the day (GetUrlSubmissionQuota), at its latest answer,
-- and what was used then: the URLs used since come off it. NULL bing_left: Bing did not answer
-- that day. Every face tells the quota left from these (bing.Quota.Left).
ALTER TABLE bing_quota ADD COLUMN bing_left INTEGER;
ALTER TABLE bing_quota ADD COLUMN told_used INTEGER NOT NULL DEFAULT 0;
