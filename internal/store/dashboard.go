package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
)

// The dashboard's reads: a run by id, a site's runs a page at a time, its failed URLs and their
// causes, and a URL's delivery state on each channel. None of them reads a row per URL of a site
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

// URLState is what the state knows of one URL of a site: the catalogue's row and each channel's
// delivery.
type URLState struct {
	URL       string
	Lastmod   time.Time // the sitemap's, when last seen; zero when it gives none
	FirstSeen time.Time
	LastSeen  time.Time
	// Channels holds the delivery state per channel that ever had the URL.
	Channels map[string]Delivery
}

// Delivery is what a channel did with a URL: its last attempt, and its last success.
type Delivery struct {
	State       model.DeliveryState
	Outcome     string // ok, failed, rejected, skipped or ineligible: the last attempt's
	Attempts    int    // since the last success, that one included
	LastError   string
	LastAttempt time.Time
	// Preflight is what the last preflight of the URL on the channel found, at PreflightAt; nil
	// when none looked (docs/runs.md, "Preflight").
	Preflight   *channel.Preflight
	PreflightAt time.Time
	// Failures are the newest failed attempts kept (at most 3, of the last 90 days), newest first.
	Failures []Failure
}

// Failure is one failed attempt of a URL on a channel.
type Failure struct {
	At      time.Time
	Outcome string // failed or rejected
	Error   string
}

// URLStory returns the state of site's URL q — an index seek by its hash — or, when no URL is
// exactly q, of the URLs that start with q, at most limit, in order: that reads the site's
// catalogue until it has limit of them.
func (s *Store) URLStory(ctx context.Context, site, q string, hash func(string) int64, limit int) (_ []URLState, err error) {
	defer s.failed(&err, "reading a URL's story", site)
	cols := `SELECT url_hash, url, lastmod, first_seen, last_seen FROM urls WHERE site_id = $1 AND `
	found, err := s.catalogRows(ctx, cols+`url_hash = $2`, site, hash(q))
	if err == nil && (len(found) == 0 || found[0].URL != q) {
		found, err = s.catalogRows(ctx, cols+`substr(url, 1, $2) = $3 ORDER BY url LIMIT $4`, site, utf8.RuneCountInString(q), q, limit)
	}
	if err != nil || len(found) == 0 {
		return nil, err
	}
	hashes := make([]int64, len(found))
	for i, f := range found {
		hashes[i] = hash(f.URL)
	}
	if err := s.deliveriesOf(ctx, site, hashes, found); err != nil {
		return nil, err
	}
	if err := s.failuresOf(ctx, site, hashes, found); err != nil {
		return nil, err
	}
	return found, nil
}

// catalogRows reads rows of url_hash, url, lastmod, first_seen, last_seen.
func (s *Store) catalogRows(ctx context.Context, query string, args ...any) ([]URLState, error) {
	rows, err := s.rdb.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []URLState
	for rows.Next() {
		var u URLState
		var h, first, seen int64
		var lastmod sql.NullInt64
		if err := rows.Scan(&h, &u.URL, &lastmod, &first, &seen); err != nil {
			return nil, err
		}
		u.Lastmod, u.FirstSeen, u.LastSeen = fromMS(lastmod), time.UnixMilli(first).UTC(), time.UnixMilli(seen).UTC()
		u.Channels = map[string]Delivery{}
		out = append(out, u)
	}
	return out, rows.Err()
}

// deliveriesOf fills the channels of found (whose hashes are aligned with it) from deliveries.
func (s *Store) deliveriesOf(ctx context.Context, site string, hashes []int64, found []URLState) error {
	at := make(map[int64]int, len(hashes))
	for i, h := range hashes {
		at[h] = i
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT url_hash, channel, lastmod, delivered_at, outcome, attempts, COALESCE(last_error, ''), last_attempt,
			preflight, COALESCE(preflight_detail, ''), preflight_at
		FROM deliveries WHERE site_id = $1 AND `+s.inHashes("url_hash", 2), site, s.hashParam(hashes))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var h, last int64
		var ch string
		var lastmod, deliveredAt, checkedAt sql.NullInt64
		var verdict sql.NullString
		var detail string
		var d Delivery
		if err := rows.Scan(&h, &ch, &lastmod, &deliveredAt, &d.Outcome, &d.Attempts, &d.LastError, &last, &verdict, &detail, &checkedAt); err != nil {
			return err
		}
		d.LastAttempt = time.UnixMilli(last).UTC()
		if verdict.Valid {
			d.Preflight, d.PreflightAt = &channel.Preflight{Detail: detail}, fromMS(checkedAt)
			if verdict.String != "ok" {
				d.Preflight.Reason, d.Preflight.Again = verdict.String, d.Outcome == "failed"
			}
		}
		d.State = deliveryState(lastmod, deliveredAt, d.Outcome, d.Attempts, last)
		if i, ok := at[h]; ok {
			found[i].Channels[ch] = d
		}
	}
	return rows.Err()
}

// failuresOf adds to the channels of found (whose hashes are aligned with it) their failed
// attempts kept, newest first.
func (s *Store) failuresOf(ctx context.Context, site string, hashes []int64, found []URLState) error {
	at := make(map[int64]int, len(hashes))
	for i, h := range hashes {
		at[h] = i
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT url_hash, channel, at, outcome, error FROM failed_attempts
		WHERE site_id = $1 AND `+s.inHashes("url_hash", 2)+` ORDER BY url_hash, channel, at DESC`, site, s.hashParam(hashes))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var h, when int64
		var ch string
		var f Failure
		if err := rows.Scan(&h, &ch, &when, &f.Outcome, &f.Error); err != nil {
			return err
		}
		f.At = time.UnixMilli(when).UTC()
		if i, ok := at[h]; ok {
			d := found[i].Channels[ch]
			d.Failures = append(d.Failures, f)
			found[i].Channels[ch] = d
		}
	}
	return rows.Err()
}
