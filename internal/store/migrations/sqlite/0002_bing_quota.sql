-- Bing's daily URL quota per site, counted per UTC day of a run's start. URLs are reserved before
-- they are sent and given back when a request fails, so that runs in several processes together
-- never send more than the quota. full marks a day Bing itself refused for quota.
CREATE TABLE bing_quota (
    site_id TEXT    NOT NULL,
    day     TEXT    NOT NULL,
    used    INTEGER NOT NULL,
    full    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (site_id, day)
) WITHOUT ROWID;
