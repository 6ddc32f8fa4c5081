package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/sitepush/sitepush/internal/channel"
)

// attemptsSQL counts attempts since the last success, that one included.
const attemptsSQL = `CASE WHEN deliveries.outcome IN ('ok', 'skipped') THEN 1 ELSE deliveries.attempts + 1 END`

// RecordOutcome stores what a channel did with some URLs, and counts it in the day's statistics,
// in one transaction: called as each answer arrives, so that a crash loses nothing that was
// answered. A failure keeps the lastmod and time of the last success.
func (s *Store) RecordOutcome(ctx context.Context, site string, now time.Time, o channel.Outcome) (err error) {
	defer s.failed(&err, "recording an outcome", site)
	if len(o.URLs) == 0 {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// A rejected URL is recorded like a delivered one, so that it is not due again until it
	// changes, but with its outcome and error.
	query := `INSERT INTO deliveries (site_id, url_hash, channel, lastmod, delivered_at, outcome, attempts, last_error, last_attempt)
		VALUES ($1, $2, $3, $4, $5, $6, 1, $7, $5)
		ON CONFLICT (site_id, url_hash, channel) DO UPDATE SET lastmod = excluded.lastmod,
			delivered_at = excluded.delivered_at, outcome = excluded.outcome, attempts = ` + attemptsSQL + `,
			last_error = excluded.last_error, last_attempt = excluded.last_attempt`
	if !o.Delivered && !o.Rejected && !o.Skipped {
		query = `INSERT INTO deliveries (site_id, url_hash, channel, lastmod, delivered_at, outcome, attempts, last_error, last_attempt)
		VALUES ($1, $2, $3, NULL, NULL, 'failed', 1, $4, $5)
		ON CONFLICT (site_id, url_hash, channel) DO UPDATE SET outcome = 'failed', attempts = ` + attemptsSQL + `,
			last_error = excluded.last_error, last_attempt = excluded.last_attempt`
	}
	stmt, err := tx.PrepareContext(ctx, query)
	if err != nil {
		return err
	}
	o.Err = clipError(o.Err)
	for _, d := range o.URLs {
		args := []any{site, d.Hash, o.Channel, o.Err, now.UnixMilli()}
		switch {
		case o.Rejected:
			args = []any{site, d.Hash, o.Channel, ms(d.Lastmod), now.UnixMilli(), "rejected", o.Err}
		case o.Skipped:
			args = []any{site, d.Hash, o.Channel, ms(d.Lastmod), now.UnixMilli(), "skipped", nil}
		case o.Delivered:
			args = []any{site, d.Hash, o.Channel, ms(d.Lastmod), now.UnixMilli(), "ok", nil}
		}
		if _, err := stmt.ExecContext(ctx, args...); err != nil {
			return err
		}
	}
	if o.Skipped {
		return tx.Commit()
	}
	if !o.Delivered || o.Rejected {
		if err := recordFailedAttempts(ctx, tx, site, now, o); err != nil {
			return err
		}
	}
	ok, failed := len(o.URLs), 0
	if !o.Delivered {
		ok, failed = 0, len(o.URLs)
	}
	if err := addStats(ctx, tx, statsRow{day(now), site, o.Channel, "", 0, len(o.URLs), ok, failed, now}); err != nil {
		return err
	}
	return tx.Commit()
}

// RecordRequests counts requests in the day's per-endpoint statistics.
func (s *Store) RecordRequests(ctx context.Context, site string, now time.Time, reqs []channel.Request) (err error) {
	defer s.failed(&err, "recording requests", site)
	if len(reqs) == 0 {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, r := range reqs {
		ok, failed := r.URLs, 0
		if !r.Accepted {
			ok, failed = 0, r.URLs
		}
		if err := addStats(ctx, tx, statsRow{day(now), site, r.Channel, r.Endpoint, 1, r.URLs, ok, failed, now}); err != nil {
			return err
		}
	}
	return tx.Commit()
}

type statsRow struct {
	day, site, channel, endpoint        string
	requests, total, successful, failed int
	at                                  time.Time
}

// addStats adds to a day's statistics, and notes the time of the last success.
func addStats(ctx context.Context, tx *sql.Tx, r statsRow) error {
	var success sql.NullInt64
	if r.successful > 0 {
		success = sql.NullInt64{Int64: r.at.UnixMilli(), Valid: true}
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO daily_stats (day, site_id, channel, endpoint, requests, total, successful, failed, last_success)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT (day, site_id, channel, endpoint) DO UPDATE SET requests = daily_stats.requests + excluded.requests,
			total = daily_stats.total + excluded.total, successful = daily_stats.successful + excluded.successful,
			failed = daily_stats.failed + excluded.failed,
			last_success = COALESCE(excluded.last_success, daily_stats.last_success)`,
		r.day, r.site, r.channel, r.endpoint, r.requests, r.total, r.successful, r.failed, success)
	return err
}

// keepAttempts is how many failed attempts of a URL on a channel the state keeps, the newest.
const keepAttempts = 3

// recordFailedAttempts keeps a failed or rejected outcome in each URL's story, and only the
// newest keepAttempts of the URL on the channel.
func recordFailedAttempts(ctx context.Context, tx *sql.Tx, site string, now time.Time, o channel.Outcome) error {
	outcome := "failed"
	if o.Rejected {
		outcome = "rejected"
	}
	insert, err := tx.PrepareContext(ctx, `INSERT INTO failed_attempts (site_id, url_hash, channel, at, outcome, error)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (site_id, url_hash, channel, at) DO UPDATE SET outcome = excluded.outcome, error = excluded.error`)
	if err != nil {
		return err
	}
	defer insert.Close()
	prune, err := tx.PrepareContext(ctx, `DELETE FROM failed_attempts WHERE site_id = $1 AND url_hash = $2 AND channel = $3 AND at < (
		SELECT min(at) FROM (SELECT at FROM failed_attempts WHERE site_id = $1 AND url_hash = $2 AND channel = $3 ORDER BY at DESC LIMIT `+
		fmt.Sprint(keepAttempts)+`) AS newest)`)
	if err != nil {
		return err
	}
	defer prune.Close()
	for _, d := range o.URLs {
		if _, err := insert.ExecContext(ctx, site, d.Hash, o.Channel, now.UnixMilli(), outcome, o.Err); err != nil {
			return err
		}
		if _, err := prune.ExecContext(ctx, site, d.Hash, o.Channel); err != nil {
			return err
		}
	}
	return nil
}

// maxErrorBytes bounds an error as the state keeps it: it is a key of the index of failures,
// whose entries PostgreSQL bounds (about 2,700 bytes).
const maxErrorBytes = 1000

// clipError cuts an error to maxErrorBytes, at a character's start, marking the cut.
func clipError(msg string) string {
	if len(msg) <= maxErrorBytes {
		return msg
	}
	cut := maxErrorBytes - len("…")
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + "…"
}
