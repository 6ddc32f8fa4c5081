-- For each site and channel, a time no later than the last acceptance of any of the site's URLs
-- by the channel: until resubmitAfter has passed since it, no URL is due again, and a run knows so
-- from one row rather than a scan of the site's deliveries. A delivery only moves a URL's time
-- forward, to when it happens, so the floor stays true as deliveries are written; a run that finds
-- it passed looks at the deliveries again and moves it up.
CREATE TABLE resubmit_floors (
    site_id TEXT    NOT NULL,
    channel TEXT    NOT NULL,
    floor   INTEGER NOT NULL, -- Unix ms
    PRIMARY KEY (site_id, channel)
) WITHOUT ROWID;
