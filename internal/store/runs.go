package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sitepush/sitepush/internal/model"
)

// keepHistory is how long execution records and daily statistics are kept.
const keepHistory = 90 * 24 * time.Hour

// SaveRun stores an execution record. A record without an ID is a run starting: its site, trigger
// and start are stored, status running, and rec.ID is set to its new id. A record with an ID is a
// run finished: it is stored whole.
func (s *Store) SaveRun(ctx context.Context, rec *model.Record) error {
	if rec.ID != 0 {
		return s.finishRun(ctx, rec)
	}
	id, err := s.startRun(ctx, rec.Site, rec.Trigger, rec.StartedAt)
	if err == nil {
		rec.ID = id
	}
	return err
}

// startRun creates the execution record of a run, status running, and returns its id. The caller
// holds the site's lease, so any other run of the site still marked running died before it
// finished (a kill, a crash): those are closed as failed.
func (s *Store) startRun(ctx context.Context, site, trigger string, now time.Time) (_ int64, err error) {
	defer s.failed(&err, "recording the start of a run", site)
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `UPDATE runs SET status = $2, finished_at = $3 WHERE site_id = $1 AND status = $4`,
		site, model.StatusFailed, now.UnixMilli(), model.StatusRunning); err != nil {
		return 0, err
	}
	var id int64
	err = tx.QueryRowContext(ctx, `INSERT INTO runs (site_id, trigger, started_at, status) VALUES ($1, $2, $3, $4) RETURNING id`,
		site, trigger, now.UnixMilli(), model.StatusRunning).Scan(&id)
	if err != nil {
		return 0, err
	}
	return id, tx.Commit()
}

// interrupted is the error of a run whose process died before it finished.
const interrupted = "interrupted: the process running it stopped before it finished; what it delivered was recorded"

// finishRun stores a finished execution record, the URLs it names apart (run_urls), and drops
// records with their URLs, statistics, Bing quota counts and failed attempts of the site older
// than 90 days.
func (s *Store) finishRun(ctx context.Context, rec *model.Record) (err error) {
	defer s.failed(&err, fmt.Sprintf("recording the end of run %d", rec.ID), rec.Site)
	whole := *rec
	whole.URLs = nil
	body, err := json.Marshal(&whole)
	if err != nil {
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `UPDATE runs SET finished_at = $2, status = $3, record = $4 WHERE id = $1`,
		rec.ID, rec.FinishedAt.UnixMilli(), rec.Status, string(body)); err != nil {
		return err
	}
	if err := s.writeRunURLs(ctx, tx, rec.ID, rec.URLs); err != nil {
		return err
	}
	cutoff := rec.FinishedAt.Add(-keepHistory)
	if _, err := tx.ExecContext(ctx, `DELETE FROM runs WHERE site_id = $1 AND started_at < $2`, rec.Site, cutoff.UnixMilli()); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM failed_attempts WHERE site_id = $1 AND at < $2`, rec.Site, cutoff.UnixMilli()); err != nil {
		return err
	}
	for _, table := range []string{"daily_stats", "bing_quota"} {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE site_id = $1 AND day < $2`, rec.Site, day(cutoff)); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Runs returns the execution records of site, newest first, at most limit. A run still going
// (or killed before it finished) has only its start.
func (s *Store) Runs(ctx context.Context, site string, limit int) (_ []model.Record, err error) {
	defer s.failed(&err, "reading runs", site)
	rows, err := s.rdb.QueryContext(ctx, `SELECT id, site_id, trigger, started_at, status, record FROM runs
		WHERE site_id = $1 ORDER BY started_at DESC, id DESC LIMIT $2`, site, limit)
	if err != nil {
		return nil, err
	}
	return scanRuns(rows)
}

// LastStarted returns when site's latest run started; zero when it never ran.
func (s *Store) LastStarted(ctx context.Context, site string) (_ time.Time, err error) {
	defer s.failed(&err, "reading the last run", site)
	var started sql.NullInt64
	if err := s.rdb.QueryRowContext(ctx, `SELECT max(started_at) FROM runs WHERE site_id = $1`, site).Scan(&started); err != nil {
		return time.Time{}, err
	}
	return fromMS(started), nil
}

// LastStartedAll returns when the latest run of each site that ran started, in one read of the
// index runs_by_site, where LastStarted is a seek a site: for the scheduler's first read of
// thousands of sites.
func (s *Store) LastStartedAll(ctx context.Context) (_ map[string]time.Time, err error) {
	defer s.failed(&err, "reading the sites' last runs", "")
	out := map[string]time.Time{}
	return out, s.each(ctx, func(scan func(...any) error) error {
		var site string
		var started int64
		if err := scan(&site, &started); err != nil {
			return err
		}
		out[site] = time.UnixMilli(started).UTC()
		return nil
	}, `SELECT site_id, max(started_at) FROM runs GROUP BY site_id`)
}

// lastFinishSQL reads when a site's last run of a status finished: one seek into the index
// runs_by_outcome.
const lastFinishSQL = `SELECT max(finished_at) FROM runs WHERE site_id = $1 AND status = $2`

// LastGoodRun returns when site's last run without failures (model.GoodStatuses) finished,
// within the history kept; zero when none did. It costs an index seek per good status, however
// long the history.
func (s *Store) LastGoodRun(ctx context.Context, site string) (_ time.Time, err error) {
	defer s.failed(&err, "reading the last good run", site)
	var last sql.NullInt64
	for _, status := range model.GoodStatuses() {
		var at sql.NullInt64
		if err := s.rdb.QueryRowContext(ctx, lastFinishSQL, site, status).Scan(&at); err != nil {
			return time.Time{}, err
		}
		if at.Valid && (!last.Valid || at.Int64 > last.Int64) {
			last = at
		}
	}
	return fromMS(last), nil
}
