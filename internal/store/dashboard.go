package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sitepush/sitepush/internal/model"
)

// The dashboard's reads: a run by id, a site's runs a page at a time, its failed URLs and their
// causes, and a URL's story (story.go). None of them reads a row per URL of a site
// but the prefix search of URLStory.

// Run returns the execution record of run id; ok is false when there is none (never, or older
// than the history kept).
func (s *Store) Run(ctx context.Context, id int64) (_ model.Record, ok bool, err error) {
	defer s.failed(&err, fmt.Sprintf("reading run %d", id), "")
	rows, err := s.rdb.QueryContext(ctx, `SELECT id, site_id, trigger, started_at, status, record FROM runs WHERE id = $1`, id)
	if err != nil {
		return model.Record{}, false, err
	}
	out, err := scanRuns(rows)
	if err != nil || len(out) == 0 {
		return model.Record{}, false, err
	}
	return out[0], true, nil
}

// RunsPage returns limit execution records of site from offset, newest first, and how many the
// site has in all.
func (s *Store) RunsPage(ctx context.Context, site string, offset, limit int) (_ []model.Record, total int, err error) {
	defer s.failed(&err, "reading runs", site)
	if err := s.rdb.QueryRowContext(ctx, `SELECT count(*) FROM runs WHERE site_id = $1`, site).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT id, site_id, trigger, started_at, status, record FROM runs
		WHERE site_id = $1 ORDER BY started_at DESC, id DESC LIMIT $2 OFFSET $3`, site, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	out, err := scanRuns(rows)
	return out, total, err
}

// RunsSince returns the execution records of site started at or after since, oldest first.
func (s *Store) RunsSince(ctx context.Context, site string, since time.Time) (_ []model.Record, err error) {
	defer s.failed(&err, "reading runs", site)
	rows, err := s.rdb.QueryContext(ctx, `SELECT id, site_id, trigger, started_at, status, record FROM runs
		WHERE site_id = $1 AND started_at >= $2 ORDER BY started_at, id`, site, since.UnixMilli())
	if err != nil {
		return nil, err
	}
	return scanRuns(rows)
}

// RecentStatuses returns the statuses of site's last n runs, newest first, without reading
// their records.
func (s *Store) RecentStatuses(ctx context.Context, site string, n int) (_ []string, err error) {
	defer s.failed(&err, "reading runs", site)
	rows, err := s.rdb.QueryContext(ctx, `SELECT status FROM runs WHERE site_id = $1 ORDER BY started_at DESC, id DESC LIMIT $2`, site, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var st string
		if err := rows.Scan(&st); err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, rows.Err()
}

// scanRuns reads rows of id, site_id, trigger, started_at, status, record into records, and
// closes them. A run still going (or killed before it finished) has only its start.
func scanRuns(rows *sql.Rows) ([]model.Record, error) {
	defer rows.Close()
	var out []model.Record
	for rows.Next() {
		var r model.Record
		var site string
		var started int64
		var body sql.NullString
		if err := rows.Scan(&r.ID, &site, &r.Trigger, &started, &r.Status, &body); err != nil {
			return nil, err
		}
		if body.Valid {
			if err := json.Unmarshal([]byte(body.String), &r); err != nil {
				return nil, fmt.Errorf("run %d of site %q: %w", r.ID, site, err)
			}
		} else {
			r.Site, r.StartedAt = site, time.UnixMilli(started).UTC()
			r.Channels, r.Errors = map[string]*model.ChannelStats{}, []string{}
			if r.Status != model.StatusRunning {
				r.Errors = []string{interrupted}
			}
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// failedSQL selects a site's failed and rejected deliveries; the partial index deliveries_failed
// holds exactly these.
const failedSQL = `outcome IN ('failed', 'rejected')`

// FailedURL is a URL whose last attempt on a channel failed, or that the engine rejected.
type FailedURL struct {
	URL      string
	Channel  string
	Outcome  string // failed or rejected
	Error    string
	Attempts int
	At       time.Time
}

// FailedURLs returns site's URLs whose last attempt, between from and to, failed or was
// rejected, at most limit, latest first: the failures of a run, as long as a later run did not
// try the URL again.
func (s *Store) FailedURLs(ctx context.Context, site string, from, to time.Time, limit int) (_ []FailedURL, err error) {
	defer s.failed(&err, "reading failed URLs", site)
	rows, err := s.rdb.QueryContext(ctx, `SELECT COALESCE(u.url, ''), d.channel, d.outcome, COALESCE(d.last_error, ''), d.attempts, d.last_attempt
		FROM deliveries d LEFT JOIN urls u ON u.site_id = d.site_id AND u.url_hash = d.url_hash
		WHERE d.site_id = $1 AND d.`+failedSQL+` AND d.last_attempt >= $2 AND d.last_attempt <= $3
		ORDER BY d.last_attempt DESC, u.url LIMIT $4`, site, from.UnixMilli(), to.UnixMilli(), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []FailedURL
	for rows.Next() {
		var f FailedURL
		var at int64
		if err := rows.Scan(&f.URL, &f.Channel, &f.Outcome, &f.Error, &f.Attempts, &at); err != nil {
			return nil, err
		}
		f.At = time.UnixMilli(at).UTC()
		out = append(out, f)
	}
	return out, rows.Err()
}

// Cause is an error that URLs of a channel failed with.
type Cause struct {
	Channel string
	Outcome string // failed or rejected
	Error   string
	URLs    int
	Last    time.Time
}

// FailureCauses returns the errors site's URLs failed or were rejected with, counted over the
// URLs whose last attempt was at or after since, most URLs first, at most limit.
func (s *Store) FailureCauses(ctx context.Context, site string, since time.Time, limit int) (_ []Cause, err error) {
	defer s.failed(&err, "reading failure causes", site)
	rows, err := s.rdb.QueryContext(ctx, `SELECT channel, outcome, COALESCE(last_error, ''), count(*), max(last_attempt) FROM deliveries
		WHERE site_id = $1 AND `+failedSQL+` AND last_attempt >= $2
		GROUP BY channel, outcome, last_error ORDER BY count(*) DESC, max(last_attempt) DESC LIMIT $3`, site, since.UnixMilli(), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Cause
	for rows.Next() {
		var c Cause
		var last int64
		if err := rows.Scan(&c.Channel, &c.Outcome, &c.Error, &c.URLs, &last); err != nil {
			return nil, err
		}
		c.Last = time.UnixMilli(last).UTC()
		out = append(out, c)
	}
	return out, rows.Err()
}

// FailedCounts returns how many of site's URLs are failed (due again) per channel.
func (s *Store) FailedCounts(ctx context.Context, site string) (_ map[string]int, err error) {
	defer s.failed(&err, "counting failed URLs", site)
	rows, err := s.rdb.QueryContext(ctx, `SELECT channel, count(*) FROM deliveries
		WHERE site_id = $1 AND `+failedSQL+` AND outcome = 'failed' GROUP BY channel`, site)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var ch string
		var n int
		if err := rows.Scan(&ch, &n); err != nil {
			return nil, err
		}
		out[ch] = n
	}
	return out, rows.Err()
}
