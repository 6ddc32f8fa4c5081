-- The URLs a run names (docs/runs.md, "The URLs of a run"): as for SQLite (see migrations/sqlite).
CREATE TABLE run_urls (
    run_id  BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq     INTEGER NOT NULL,
    channel TEXT   NOT NULL,
    url     TEXT   NOT NULL,
    outcome TEXT   NOT NULL,
    detail  TEXT   NOT NULL DEFAULT '',
    PRIMARY KEY (run_id, seq)
);
