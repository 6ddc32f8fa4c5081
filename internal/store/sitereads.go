package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/sitepush/sitepush/internal/model"
)

// SiteReads reads what every site's status needs at now, for all sites at once: five queries
// whatever the number of sites (model.SiteReads).
func (s *Store) SiteReads(ctx context.Context, now time.Time) (_ *model.SiteReads, err error) {
	defer s.failed(&err, "reading the sites' statuses", "")
	out := &model.SiteReads{Leased: map[string]bool{}, LastRun: map[string]*model.Record{}, Today: map[string]map[string]model.ChannelDay{},
		LastSuccess: map[string]map[string]time.Time{}, Bing: map[string]model.BingDay{}}
	for _, read := range []func(context.Context, time.Time, *model.SiteReads) error{s.readLeases, s.readLastRuns, s.readChannelDays, s.readQuotas} {
		if err := read(ctx, now, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// each runs query and calls fn with each row's scanner.
func (s *Store) each(ctx context.Context, fn func(scan func(...any) error) error, query string, args ...any) error {
	rows, err := s.rdb.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows.Scan); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (s *Store) readLeases(ctx context.Context, now time.Time, out *model.SiteReads) error {
	return s.each(ctx, func(scan func(...any) error) error {
		var site string
		if err := scan(&site); err != nil {
			return err
		}
		out.Leased[site] = true
		return nil
	}, `SELECT site_id FROM leases WHERE expires_at > $1`, now.UnixMilli())
}

// readLastRuns reads each site's latest run: a seek per site in runs_by_site.
func (s *Store) readLastRuns(ctx context.Context, _ time.Time, out *model.SiteReads) error {
	rows, err := s.rdb.QueryContext(ctx, `SELECT r.id, r.site_id, r.trigger, r.started_at, r.status, r.record FROM runs r
		JOIN (SELECT site_id, max(started_at) AS started FROM runs GROUP BY site_id) l ON r.site_id = l.site_id AND r.started_at = l.started
		ORDER BY r.site_id, r.id`)
	if err != nil {
		return err
	}
	runs, err := scanRuns(rows)
	for i := range runs {
		out.LastRun[runs[i].Site] = &runs[i] // of two runs started in the same millisecond, the later id
	}
	return err
}

// readChannelDays reads today's statistics and the last success of every site's channels: rows
// of the last success (day ”) and rows of today.
func (s *Store) readChannelDays(ctx context.Context, now time.Time, out *model.SiteReads) error {
	today := day(now)
	return s.each(ctx, func(scan func(...any) error) error {
		var site, channel, d string
		var total, ok, failed int
		var last sql.NullInt64
		if err := scan(&site, &channel, &d, &total, &ok, &failed, &last); err != nil {
			return err
		}
		if d == today {
			if out.Today[site] == nil {
				out.Today[site] = map[string]model.ChannelDay{}
			}
			out.Today[site][channel] = model.ChannelDay{Day: d, Channel: channel, Total: total, Successful: ok, Failed: failed}
		}
		if at := fromMS(last); !at.IsZero() {
			if out.LastSuccess[site] == nil {
				out.LastSuccess[site] = map[string]time.Time{}
			}
			if at.After(out.LastSuccess[site][channel]) {
				out.LastSuccess[site][channel] = at
			}
		}
		return nil
	}, `SELECT site_id, channel, '', CAST(0 AS BIGINT), CAST(0 AS BIGINT), CAST(0 AS BIGINT), max(last_success) FROM daily_stats
		WHERE endpoint = '' GROUP BY site_id, channel
		UNION ALL
		SELECT site_id, channel, day, total, successful, failed, last_success FROM daily_stats WHERE endpoint = '' AND day = $1`, today)
}

func (s *Store) readQuotas(ctx context.Context, now time.Time, out *model.SiteReads) error {
	return s.each(ctx, func(scan func(...any) error) error {
		var site string
		var d model.BingDay
		if err := scan(append([]any{&site}, bingDayFields(&d)...)...); err != nil {
			return err
		}
		out.Bing[site] = d
		return nil
	}, `SELECT site_id, `+quotaColumns+` FROM bing_quota WHERE day = $1`, day(now))
}

// FailedCountsAll counts each site's URLs whose last attempt failed, per channel: FailedCounts of
// every site in one query, from the partial index of failures alone.
func (s *Store) FailedCountsAll(ctx context.Context) (_ map[string]map[string]int, err error) {
	defer s.failed(&err, "counting failed URLs", "")
	out := map[string]map[string]int{}
	err = s.each(ctx, func(scan func(...any) error) error {
		var site, channel string
		var n int
		if err := scan(&site, &channel, &n); err != nil {
			return err
		}
		if out[site] == nil {
			out[site] = map[string]int{}
		}
		out[site][channel] = n
		return nil
	}, `SELECT site_id, channel, count(*) FROM deliveries WHERE `+failedSQL+` AND outcome = 'failed' GROUP BY site_id, channel`)
	return out, err
}

// SiteDay is what one channel of a site accepted and failed on one day.
type SiteDay struct {
	Day, Site, Channel string
	Successful, Failed int
}

// SiteDays sums each site's URL-level statistics of the days from since (inclusive) per day and
// channel, over the channel's endpoints: each channel counts its own, as a URL accepted by two
// channels is one page, not two.
func (s *Store) SiteDays(ctx context.Context, since time.Time) (_ []SiteDay, err error) {
	defer s.failed(&err, "reading daily statistics", "")
	var out []SiteDay
	err = s.each(ctx, func(scan func(...any) error) error {
		var d SiteDay
		if err := scan(&d.Day, &d.Site, &d.Channel, &d.Successful, &d.Failed); err != nil {
			return err
		}
		out = append(out, d)
		return nil
	}, `SELECT day, site_id, channel, CAST(sum(successful) AS BIGINT), CAST(sum(failed) AS BIGINT) FROM daily_stats
		WHERE endpoint = '' AND day >= $1 GROUP BY day, site_id, channel`, day(since))
	return out, err
}
