package store

import (
	"context"
	"database/sql"
	"time"
	"unicode/utf8"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
)

// A URL's story, as the dashboard's URL page and `sitepush inspect` tell it: the catalogue's row
// of a URL — with where it stands in the content checks — and its delivery on each channel.

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
