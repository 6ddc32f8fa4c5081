-- The URLs a run names (docs/runs.md, "The URLs of a run"): what became of each on a channel —
-- submitted, failed (detail: the engine's answer), ineligible (detail: the preflight's reason),
-- removed — in the record's order (seq), at most 1,000 per channel and outcome. They are kept
-- apart from the record, which the lists of runs read whole, and go with it: the run's deletion
-- (90 days) drops them.
CREATE TABLE run_urls (
    run_id  INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq     INTEGER NOT NULL,
    channel TEXT    NOT NULL,
    url     TEXT    NOT NULL,
    outcome TEXT    NOT NULL,
    detail  TEXT    NOT NULL DEFAULT '',
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
