package store

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
)

// lastSeenEvery is how stale a URL's last_seen may grow before a run that sees it again writes
// it: refreshing it on every run would rewrite the whole catalogue each time.
const lastSeenEvery = 24 * time.Hour

// known is what the catalogue holds of one URL.
type known struct {
	url      string
	lastmod  sql.NullInt64
	lastSeen int64
	checkKey sql.NullInt64 // its place in the rotation of content checks (rotation.go)
}

// SyncCatalog records pages present in site's sitemaps — new URLs, changed lastmods, the rotation
// of content checks (rotation.go) — and returns each page's delivery state on each channel (that
// of pages[i] on channels[c] is at i*len(channels)+c), with the page's content and what the
// channel was sent. A page without its URL (one a run takes from a memo, not from a sitemap)
// is only looked up. With dryRun it only reads. The whole batch costs one query and, when
// something changed, one transaction.
func (s *Store) SyncCatalog(ctx context.Context, site string, now time.Time, pages []channel.Page, channels []string, dryRun bool) (_ []model.DeliveryState, err error) {
	defer s.failed(&err, "syncing the catalogue", site)
	states := make([]model.DeliveryState, len(pages)*len(channels))
	if len(pages) == 0 {
		return states, nil
	}
	index := make(map[int64]int, len(pages))
	hashes := make([]int64, 0, len(pages))
	for i, p := range pages {
		if _, dup := index[p.Hash]; !dup {
			index[p.Hash] = i
			hashes = append(hashes, p.Hash)
		}
	}
	checks := slices.ContainsFunc(pages, func(p channel.Page) bool { return p.Check })
	if !checks {
		if checks, err = exists(ctx, s.rdb, checksContentSQL, site); err != nil {
			return nil, err
		}
	}
	accepted := map[string]int64{}
	have, err := s.readCatalog(ctx, site, hashes, index, channels, states, accepted, checks)
	if err != nil {
		return nil, err
	}
	for i, p := range pages {
		// Two URLs of a batch with one hash (odds of 1e-16 a pair) share the first one's row.
		if first := index[p.Hash]; first != i {
			copy(states[i*len(channels):(i+1)*len(channels)], states[first*len(channels):])
		}
	}
	if dryRun {
		return states, nil
	}
	if err := s.writeCatalog(ctx, site, now, pages, index, have); err != nil {
		return nil, err
	}
	if err := s.lowerFloors(ctx, site, accepted); err != nil {
		return nil, err
	}
	return states, nil
}

// lowerFloors moves the floor of each channel (resubmit_floors) back to the earliest acceptance
// of the pages looked up, where that is earlier. A floor passes the URLs accepted early enough
// that a settled run found absent (SettleResubmits); one of them that comes back is looked up
// here, and when it is not due then (resubmitAfter was off, or longer), the next runs take it
// from a memo: PendingDeliveries must find it once resubmitAfter makes it due. accepted holds,
// by channel, the earliest time a page looked up was last accepted.
func (s *Store) lowerFloors(ctx context.Context, site string, accepted map[string]int64) error {
	if len(accepted) == 0 {
		return nil
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT channel, floor FROM resubmit_floors WHERE site_id = $1`, site)
	if err != nil {
		return err
	}
	lower := map[string]int64{}
	for rows.Next() {
		var ch string
		var floor int64
		if err := rows.Scan(&ch, &floor); err != nil {
			rows.Close()
			return err
		}
		if at, ok := accepted[ch]; ok && at < floor {
			lower[ch] = at
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for ch, at := range lower {
		if err := s.setFloor(ctx, site, ch, at); err != nil {
			return err
		}
	}
	return nil
}

// CatalogEmpty reports whether the store holds no URL of site.
func (s *Store) CatalogEmpty(ctx context.Context, site string) (_ bool, err error) {
	defer s.failed(&err, "reading the catalogue", site)
	var one int
	err = s.rdb.QueryRowContext(ctx, `SELECT 1 FROM urls WHERE site_id = $1 LIMIT 1`, site).Scan(&one)
	if err == sql.ErrNoRows {
		return true, nil
	}
	return false, err
}

// AddPages records pages new to the site's catalogue, in one transaction, without looking them
// up: a page the catalogue holds already is left as it is (the next SyncCatalog applies the
// rules of the rotation to it). A page with Check joins the rotation of content checks, a
// suspect. It sorts pages by hash. With dryRun it does nothing.
func (s *Store) AddPages(ctx context.Context, site string, now time.Time, pages []channel.Page, dryRun bool) (err error) {
	defer s.failed(&err, "adding to the catalogue", site)
	if dryRun || len(pages) == 0 {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	plain, checked := splitChecked(pages)
	if err := s.writePages(ctx, tx, site, now, plain, insertPagesSQL); err != nil {
		return err
	}
	if err := s.writePages(ctx, tx, site, now, checked, insertSuspectsSQL); err != nil {
		return err
	}
	return tx.Commit()
}

// readCatalog fills states from the deliveries of the given hashes, and accepted with the
// earliest time one of them was last accepted on each channel (lowerFloors), and returns the
// catalogue rows. What content checks found is read when checks is set: a site that never
// checked content reads not a column more (3 columns a row cost a twentieth of a sync, measured).
func (s *Store) readCatalog(ctx context.Context, site string, hashes []int64, index map[int64]int, channels []string, states []model.DeliveryState, accepted map[string]int64, checks bool) (map[int64]known, error) {
	columns := ""
	if checks {
		columns = ", u.check_key, u.content, d.sent"
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT u.url_hash, u.url, u.lastmod, u.last_seen,
			d.channel, d.lastmod, d.delivered_at, d.outcome, d.attempts, d.last_attempt`+columns+`
		FROM urls u LEFT JOIN deliveries d ON d.site_id = u.site_id AND d.url_hash = u.url_hash
		WHERE u.site_id = $1 AND `+s.inHashes("u.url_hash", 2), site, s.hashParam(hashes))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	have := make(map[int64]known, len(hashes))
	var h int64
	var k known
	var channel, outcome sql.NullString
	var dLastmod, dAt, attempts, lastAttempt, content, sent sql.NullInt64
	row := []any{&h, &k.url, &k.lastmod, &k.lastSeen, &channel, &dLastmod, &dAt, &outcome, &attempts, &lastAttempt}
	if checks {
		row = append(row, &k.checkKey, &content, &sent)
	}
	for rows.Next() {
		if err := rows.Scan(row...); err != nil {
			return nil, err
		}
		have[h] = k
		if (outcome.String == "ok" || outcome.String == "rejected") && dAt.Valid {
			if at, seen := accepted[channel.String]; !seen || dAt.Int64 < at {
				accepted[channel.String] = dAt.Int64
			}
		}
		first := index[h] * len(channels)
		for c, name := range channels {
			st := &states[first+c]
			if channel.Valid && channel.String == name {
				*st = deliveryState(dLastmod, dAt, outcome.String, int(attempts.Int64), lastAttempt.Int64)
				st.Sent = uint64(sent.Int64)
			}
			st.Content = uint64(content.Int64)
			st.Listed = fromMS(k.lastmod)
		}
	}
	return have, rows.Err()
}

// writeCatalog inserts new URLs, updates changed ones, refreshes stale last_seen times and moves
// pages in and out of the rotation of content checks, in one transaction, by multi-row
// statements in hash order.
func (s *Store) writeCatalog(ctx context.Context, site string, now time.Time, pages []channel.Page, index map[int64]int, have map[int64]known) error {
	var added, suspects, changed []channel.Page
	var rot rotation
	for i, p := range pages {
		if index[p.Hash] != i || p.URL == "" {
			continue
		}
		k, ok := have[p.Hash]
		switch {
		case !ok && p.Check:
			suspects = append(suspects, p)
		case !ok:
			added = append(added, p)
		default:
			rot.note(k, p)
			if k.url != p.URL || k.lastmod != ms(p.Lastmod) || now.UnixMilli()-k.lastSeen >= lastSeenEvery.Milliseconds() {
				changed = append(changed, p)
			}
		}
	}
	if len(added) == 0 && len(suspects) == 0 && len(changed) == 0 && rot.none() {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := s.writePages(ctx, tx, site, now, added, insertPagesSQL); err != nil {
		return err
	}
	if err := s.writePages(ctx, tx, site, now, suspects, insertSuspectsSQL); err != nil {
		return err
	}
	if err := s.writePages(ctx, tx, site, now, changed, updatePagesSQL); err != nil {
		return err
	}
	if err := s.writeRotation(ctx, tx, site, rot); err != nil {
		return err
	}
	return tx.Commit()
}

// insertPagesSQL adds n new URLs, found by one run while another one may add them too.
func insertPagesSQL(n int) string {
	return `INSERT INTO urls (site_id, url_hash, url, lastmod, first_seen, last_seen) VALUES ` +
		valuesList(n, `$1, ?, ?, ?, $2, $2`) + ` ON CONFLICT (site_id, url_hash) DO NOTHING`
}

// updatePagesSQL updates n known URLs: a URL no longer in the catalogue stays out. PostgreSQL
// needs the types of the parameters of a VALUES list outside an INSERT; both name its columns
// column1 (url_hash), column2 (url) and column3 (lastmod).
func updatePagesSQL(n int) string {
	return `UPDATE urls SET url = v.column2, lastmod = v.column3, last_seen = $2 FROM (VALUES ` +
		valuesList(n, `CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS BIGINT)`) +
		`) AS v WHERE urls.site_id = $1 AND urls.url_hash = v.column1`
}

// writePages writes pages, sorted by hash, rowsPerStatement at a time, by statement: that of n
// rows of (url_hash, url, lastmod), $1 being the site and $2 the time.
func (s *Store) writePages(ctx context.Context, tx *sql.Tx, site string, now time.Time, pages []channel.Page, statement func(n int) string) error {
	slices.SortFunc(pages, func(a, b channel.Page) int { return cmp.Compare(a.Hash, b.Hash) })
	shared := []any{site, now.UnixMilli()}
	perRow := make([]any, 0, 3*min(len(pages), rowsPerStatement))
	prep := prepared{}
	return inChunks(len(pages), func(i int) int64 { return pages[i].Hash }, func(lo, hi int) error {
		perRow = perRow[:0]
		for _, p := range pages[lo:hi] {
			perRow = append(perRow, p.Hash, p.URL, ms(p.Lastmod))
		}
		query, args := s.bind(statement(hi-lo), shared, perRow)
		return prep.exec(ctx, tx, query, hi-lo, args)
	})
}
