package store

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
	"strings"
	"time"

	"github.com/sitepush/sitepush/internal/model"
)

// ChannelDays sums the URL-level statistics of the days from since (inclusive) per day and
// channel, oldest first: of one site, or of every site when site is "".
func (s *Store) ChannelDays(ctx context.Context, since time.Time, site string) (_ []model.ChannelDay, err error) {
	defer s.failed(&err, "reading daily statistics", site)
	q := `SELECT day, channel, CAST(sum(total) AS BIGINT), CAST(sum(successful) AS BIGINT), CAST(sum(failed) AS BIGINT) FROM daily_stats
		WHERE endpoint = '' AND day >= $1 GROUP BY day, channel ORDER BY day, channel`
	args := []any{day(since)}
	if site != "" {
		// In the order of the index daily_stats_by_site, sorted by day below: ordered by day,
		// SQLite would read the days of every site.
		q = `SELECT day, channel, total, successful, failed FROM daily_stats
		WHERE site_id = $2 AND endpoint = '' AND day >= $1 ORDER BY channel, day`
		args = append(args, site)
	}
	rows, err := s.rdb.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []model.ChannelDay
	for rows.Next() {
		var d model.ChannelDay
		if err := rows.Scan(&d.Day, &d.Channel, &d.Total, &d.Successful, &d.Failed); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	slices.SortStableFunc(out, func(a, b model.ChannelDay) int {
		return cmp.Or(strings.Compare(a.Day, b.Day), strings.Compare(a.Channel, b.Channel))
	})
	return out, rows.Err()
}

// LastSuccess returns when channel last accepted a URL of site, within the statistics kept;
// zero when it never did.
func (s *Store) LastSuccess(ctx context.Context, site, channel string) (_ time.Time, err error) {
	defer s.failed(&err, "reading the last accepted submission", site)
	var at sql.NullInt64
	err = s.rdb.QueryRowContext(ctx, `SELECT max(last_success) FROM daily_stats WHERE site_id = $1 AND channel = $2 AND endpoint = ''`,
		site, channel).Scan(&at)
	if err != nil {
		return time.Time{}, err
	}
	return fromMS(at), nil
}

// DayStats is one row of daily statistics.
type DayStats struct {
	Day        string // YYYY-MM-DD, UTC
	Site       string
	Channel    string
	Endpoint   string // "" for the channel's URL-level outcomes
	Requests   int
	Total      int
	Successful int
	Failed     int
}

// DailyStats returns the statistics of the days from since (inclusive), oldest first, of one
// site or, when site is "", of every site.
func (s *Store) DailyStats(ctx context.Context, since time.Time, site string) (_ []DayStats, err error) {
	defer s.failed(&err, "reading daily statistics", site)
	rows, err := s.rdb.QueryContext(ctx, `SELECT day, site_id, channel, endpoint, requests, total, successful, failed
		FROM daily_stats WHERE day >= $1 AND ($2 = '' OR site_id = $2) ORDER BY day, site_id, channel, endpoint`, day(since), site)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []DayStats
	for rows.Next() {
		var d DayStats
		if err := rows.Scan(&d.Day, &d.Site, &d.Channel, &d.Endpoint, &d.Requests, &d.Total, &d.Successful, &d.Failed); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}
