-- Bing's daily URL quota per site and UTC day; "full" marks a day Bing itself refused for quota.
CREATE TABLE bing_quota (
    site_id TEXT    NOT NULL,
    day     TEXT    NOT NULL,
    used    INTEGER NOT NULL,
    "full"  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (site_id, day)
);
