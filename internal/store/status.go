package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/sitepush/sitepush/internal/model"
)

// LastStarted returns when site's latest run started; zero when it never ran.
func (s *Store) LastStarted(ctx context.Context, site string) (time.Time, error) {
	var started sql.NullInt64
	if err := s.db.QueryRowContext(ctx, `SELECT max(started_at) FROM runs WHERE site_id = $1`, site).Scan(&started); err != nil {
		return time.Time{}, fmt.Errorf("reading the last run of site %q: %w", site, err)
	}
	return fromMS(started), nil
}

// Leased reports whether a run of site holds its lease at now, in this process or another.
func (s *Store) Leased(ctx context.Context, site string, now time.Time) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM leases WHERE site_id = $1 AND expires_at > $2`, site, now.UnixMilli()).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("reading the lease of site %q: %w", site, err)
	}
	return n > 0, nil
}

// ChannelDay is what a channel did with URLs on one UTC day: the URLs whose delivery ended, how
// many were accepted, and how many failed.
type ChannelDay struct {
	Day        string // YYYY-MM-DD
	Channel    string
	Total      int
	Successful int
	Failed     int
}

// ChannelDays sums the URL-level statistics of the days from since (inclusive) per day and
// channel, oldest first: of one site, or of every site when site is "".
func (s *Store) ChannelDays(ctx context.Context, since time.Time, site string) ([]ChannelDay, error) {
	q := `SELECT day, channel, CAST(sum(total) AS BIGINT), CAST(sum(successful) AS BIGINT), CAST(sum(failed) AS BIGINT) FROM daily_stats
		WHERE endpoint = '' AND day >= $1 GROUP BY day, channel ORDER BY day, channel`
	args := []any{day(since)}
	if site != "" {
		q = `SELECT day, channel, total, successful, failed FROM daily_stats
		WHERE site_id = $2 AND endpoint = '' AND day >= $1 ORDER BY day, channel`
		args = append(args, site)
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("reading daily statistics: %w", err)
	}
	defer rows.Close()
	var out []ChannelDay
	for rows.Next() {
		var d ChannelDay
		if err := rows.Scan(&d.Day, &d.Channel, &d.Total, &d.Successful, &d.Failed); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// LastSuccess returns when channel last accepted a URL of site, within the statistics kept;
// zero when it never did.
func (s *Store) LastSuccess(ctx context.Context, site, channel string) (time.Time, error) {
	var at sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT max(last_success) FROM daily_stats WHERE site_id = $1 AND channel = $2 AND endpoint = ''`,
		site, channel).Scan(&at)
	if err != nil {
		return time.Time{}, fmt.Errorf("reading the statistics of site %q: %w", site, err)
	}
	return fromMS(at), nil
}

// QuotaDay is a site's use of its Bing quota on one day.
type QuotaDay struct {
	Used int
	// Full is set when Bing refused a submission for quota that day.
	Full bool
}

// Left is how many URLs a site with daily quota limit may still send that day.
func (q QuotaDay) Left(limit int) int {
	if q.Full {
		return 0
	}
	return max(0, limit-q.Used)
}

// lastGoodRunSQL reads the last finish of a site's runs of two statuses, each by a seek into the
// index runs_by_outcome.
const lastGoodRunSQL = `SELECT
	(SELECT max(finished_at) FROM runs WHERE site_id = $1 AND status = $2),
	(SELECT max(finished_at) FROM runs WHERE site_id = $1 AND status = $3)`

// LastGoodRun returns when site's last run without failures (ok, or stopped by its budget)
// finished, within the history kept; zero when none did. It costs two index seeks, however long
// the history.
func (s *Store) LastGoodRun(ctx context.Context, site string) (time.Time, error) {
	var ok, stopped sql.NullInt64
	err := s.db.QueryRowContext(ctx, lastGoodRunSQL, site, model.StatusOK, model.StatusBudgetExhausted).Scan(&ok, &stopped)
	if err != nil {
		return time.Time{}, fmt.Errorf("reading the last good run of site %q: %w", site, err)
	}
	return fromMS(sql.NullInt64{Int64: max(ok.Int64, stopped.Int64), Valid: ok.Valid || stopped.Valid}), nil
}

// Ping checks that the database answers a query.
func (s *Store) Ping(ctx context.Context) error {
	var v int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&v); err != nil {
		return s.explain(fmt.Errorf("state %s does not answer: %w", s.name, err))
	}
	return nil
}
