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
	// Checks is where the page stands in the content checks (docs/runs.md, "What changed").
	Checks Checks
	// Channels holds the delivery state per channel that ever had the URL; each State has the
	// page's content (Checks.Content) and what the channel was sent, to compare.
	Channels map[string]Delivery
}

// Checks is where a page stands in the content checks, from its check_key and content
// (rotation.go): what a URL's story needs to say whether it is checked, waits for a check, or
// was found the same as a channel was sent.
type Checks struct {
	// InRotation is set while the page's sitemap is checked by content (its lastmods are not
	// trusted): it is checked in its turn.
	InRotation bool
	// Suspect is set for a page in the rotation that is new to it, or whose lastmod moved, and
	// was not checked since: checked first.
	Suspect bool
	// CheckedAt is the check that keeps the page's place in line: its last check, unless checks
	// since found it changed — a page seen to change keeps its place, to come round sooner; zero
	// for a suspect and a page out of the rotation.
	CheckedAt time.Time
	// Content is the page's fingerprint at its last check; zero when it was never checked.
	Content uint64
}

// Delivery is what a channel did with a URL: its last attempt, and its last success.
type Delivery struct {
	State       model.DeliveryState
	Outcome     string // ok, failed, rejected or ineligible: the last attempt's; backlog or baseline: never sent (model.UnsentBacklog)
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
	cols := `SELECT url_hash, url, lastmod, first_seen, last_seen, check_key, content FROM urls WHERE site_id = $1 AND `
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

// catalogRows reads rows of url_hash, url, lastmod, first_seen, last_seen, check_key, content.
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
		var lastmod, key, content sql.NullInt64
		if err := rows.Scan(&h, &u.URL, &lastmod, &first, &seen, &key, &content); err != nil {
			return nil, err
		}
		u.Lastmod, u.FirstSeen, u.LastSeen = fromMS(lastmod), time.UnixMilli(first).UTC(), time.UnixMilli(seen).UTC()
		u.Checks = checksOf(key, content)
		u.Channels = map[string]Delivery{}
		out = append(out, u)
	}
	return out, rows.Err()
}

// checksOf is where a page stands in the content checks, from its check_key and content.
func checksOf(key, content sql.NullInt64) Checks {
	c := Checks{InRotation: key.Valid, Suspect: key.Valid && key.Int64 == 0, Content: uint64(content.Int64)}
	if key.Valid && key.Int64 != 0 {
		c.CheckedAt = time.UnixMilli(key.Int64).UTC()
	}
	return c
}

// deliveriesOf fills the channels of found (whose hashes are aligned with it) from deliveries,
// each with the page's content and what the channel was sent.
func (s *Store) deliveriesOf(ctx context.Context, site string, hashes []int64, found []URLState) error {
	at := make(map[int64]int, len(hashes))
	for i, h := range hashes {
		at[h] = i
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT url_hash, channel, lastmod, delivered_at, outcome, attempts, COALESCE(last_error, ''), last_attempt,
			preflight, COALESCE(preflight_detail, ''), preflight_at, sent
		FROM deliveries WHERE site_id = $1 AND `+s.inHashes("url_hash", 2), site, s.hashParam(hashes))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var h, last int64
		var ch string
		var lastmod, deliveredAt, checkedAt, sent sql.NullInt64
		var verdict sql.NullString
		var detail string
		var d Delivery
		if err := rows.Scan(&h, &ch, &lastmod, &deliveredAt, &d.Outcome, &d.Attempts, &d.LastError, &last, &verdict, &detail, &checkedAt, &sent); err != nil {
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
			d.State.Content, d.State.Sent = found[i].Checks.Content, uint64(sent.Int64)
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
