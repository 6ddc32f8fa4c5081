package store

import (
	"context"
	"database/sql"
	"slices"
	"time"

	"github.com/sitepush/sitepush/internal/model"
)

// SitemapMemos returns what runs remember of a site's sitemaps, by sitemap, without their pages.
func (s *Store) SitemapMemos(ctx context.Context, site string) (_ map[string]model.SitemapMemo, err error) {
	defer s.failed(&err, "reading what is known of the sitemaps", site)
	rows, err := s.rdb.QueryContext(ctx, `SELECT sitemap, etag, last_modified, size, mod_time, content_hash, scope, urls, filtered, unfinished, is_index,
		unsettled FROM sitemap_memos WHERE site_id = $1`, site)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]model.SitemapMemo{}
	for rows.Next() {
		var m model.SitemapMemo
		var hash int64
		var unfinished, index, unsettled int
		if err := rows.Scan(&m.Sitemap, &m.ETag, &m.LastModified, &m.Size, &m.ModTime, &hash, &m.Scope, &m.URLs, &m.Filtered, &unfinished, &index, &unsettled); err != nil {
			return nil, err
		}
		m.Hash, m.Unfinished, m.Index, m.Unsettled = uint64(hash), unfinished != 0, index != 0, unsettled != 0
		out[m.Sitemap] = m
	}
	return out, rows.Err()
}

// SitemapPages returns the pages remembered of one sitemap (model.SitemapMemo.Pages); nil when
// none are.
func (s *Store) SitemapPages(ctx context.Context, site, sitemap string) (_ []byte, err error) {
	defer s.failed(&err, "reading what is known of sitemap "+sitemap, site)
	var pages []byte
	err = s.rdb.QueryRowContext(ctx, `SELECT pages FROM sitemap_memos WHERE site_id = $1 AND sitemap = $2`, site, sitemap).Scan(&pages)
	if err == sql.ErrNoRows {
		return nil, nil
	}
	return pages, err
}

// SaveSitemapMemos replaces what is remembered of a site's sitemaps with memos, in one
// transaction: a memo without Pages keeps the pages remembered before (none, when there were
// none); the memos of other sitemaps are forgotten.
func (s *Store) SaveSitemapMemos(ctx context.Context, site string, memos []model.SitemapMemo) (err error) {
	defer s.failed(&err, "remembering the sitemaps", site)
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	names, err := tx.QueryContext(ctx, `SELECT sitemap FROM sitemap_memos WHERE site_id = $1`, site)
	if err != nil {
		return err
	}
	var gone []string
	for names.Next() {
		var name string
		if err := names.Scan(&name); err != nil {
			names.Close()
			return err
		}
		if !slices.ContainsFunc(memos, func(m model.SitemapMemo) bool { return m.Sitemap == name }) {
			gone = append(gone, name)
		}
	}
	names.Close()
	if err := names.Err(); err != nil {
		return err
	}
	for _, name := range gone {
		if _, err := tx.ExecContext(ctx, `DELETE FROM sitemap_memos WHERE site_id = $1 AND sitemap = $2`, site, name); err != nil {
			return err
		}
	}
	for _, m := range memos {
		args := []any{site, m.Sitemap, m.ETag, m.LastModified, m.Size, m.ModTime, int64(m.Hash), m.Scope, m.URLs, m.Filtered,
			flag(m.Unfinished), flag(m.Index), flag(m.Unsettled)}
		query := `UPDATE sitemap_memos SET etag = $3, last_modified = $4, size = $5, mod_time = $6, content_hash = $7,
			scope = $8, urls = $9, filtered = $10, unfinished = $11, is_index = $12, unsettled = $13 WHERE site_id = $1 AND sitemap = $2`
		if m.Pages != nil {
			args = append(args, m.Pages)
			query = `INSERT INTO sitemap_memos (site_id, sitemap, etag, last_modified, size, mod_time, content_hash, scope, urls, filtered, unfinished, is_index, unsettled, pages)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
				ON CONFLICT (site_id, sitemap) DO UPDATE SET etag = $3, last_modified = $4, size = $5, mod_time = $6,
				content_hash = $7, scope = $8, urls = $9, filtered = $10, unfinished = $11, is_index = $12, unsettled = $13, pages = $14`
		}
		if _, err := tx.ExecContext(ctx, query, args...); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// flag is a boolean as the memos' columns keep it.
func flag(b bool) int {
	if b {
		return 1
	}
	return 0
}

// PendingDeliveries returns the site's URLs whose last attempt on one of q.Failed failed and
// those a channel of q.Resubmit accepted at or before q.Before(): what is due on a URL present in a
// sitemap that did not change. The failures are found through their partial index; those to
// resubmit by a scan of the site's deliveries, only when the channel's floor (resubmit_floors)
// says that some may be due. Unless q.DryRun, a floor found passed is moved to the earliest time.
func (s *Store) PendingDeliveries(ctx context.Context, site string, q model.PendingQuery) (_ []model.Pending, err error) {
	defer s.failed(&err, "reading the failed deliveries", site)
	// SQLite, without statistics, would rather scan the site's deliveries by their primary key
	// than read a few rows through the partial index: it is told to use it. The IN term, the
	// index's own, makes it usable: SQLite does not infer it.
	failed := "deliveries"
	if s.dialect == sqlite {
		failed = "deliveries INDEXED BY deliveries_failed_by_channel"
	}
	var out []model.Pending
	for _, ch := range q.Failed {
		query := `SELECT url_hash, lastmod, delivered_at, outcome, attempts, last_attempt FROM ` + failed + `
			WHERE site_id = $1 AND channel = $2 AND outcome IN ('failed', 'rejected') AND outcome = 'failed'`
		if out, err = s.pending(ctx, out, ch, query, site, ch); err != nil {
			return nil, err
		}
	}
	for ch, checked := range q.Recheck {
		query := `SELECT url_hash, lastmod, delivered_at, outcome, attempts, last_attempt FROM deliveries
			WHERE site_id = $1 AND channel = $2 AND outcome = 'ineligible' AND last_attempt <= $3`
		if out, err = s.pending(ctx, out, ch, query, site, ch, checked.UnixMilli()); err != nil {
			return nil, err
		}
	}
	before := q.Before()
	if before.IsZero() {
		return out, nil
	}
	for _, ch := range q.Resubmit {
		floor, known, err := s.floor(ctx, site, ch)
		switch {
		case err != nil:
			return nil, err
		case known && floor > before.UnixMilli() && floor <= q.Now.UnixMilli():
			continue // nothing accepted early enough; a floor ahead of the clock is not believed
		}
		if floor, err = s.earliest(ctx, site, ch, 0, q.Now); err != nil {
			return nil, err
		}
		if !q.DryRun {
			if err := s.setFloor(ctx, site, ch, floor); err != nil {
				return nil, err
			}
		}
		if floor > before.UnixMilli() {
			continue
		}
		query := `SELECT url_hash, lastmod, delivered_at, outcome, attempts, last_attempt FROM deliveries
			WHERE site_id = $1 AND channel = $2 AND outcome IN ('ok', 'rejected') AND delivered_at <= $3`
		if out, err = s.pending(ctx, out, ch, query, site, ch, before.UnixMilli()); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// SettleResubmits is told that a complete run answered every URL present that q made due: the
// URLs a channel accepted at or before q.Before() and did not accept again are no longer in the
// sitemaps, and its floor moves past them to the earliest acceptance after — or the floor of a
// URL removed from the sitemaps would hold it, and every run would scan again. A URL that comes
// back comes through a sitemap that changed, and is looked up: SyncCatalog moves the floor back
// to it (lowerFloors).
func (s *Store) SettleResubmits(ctx context.Context, site string, q model.PendingQuery) (err error) {
	defer s.failed(&err, "settling the resubmitted deliveries", site)
	before := q.Before()
	if before.IsZero() || q.DryRun {
		return nil
	}
	for _, ch := range q.Resubmit {
		floor, known, err := s.floor(ctx, site, ch)
		if err != nil {
			return err
		}
		if known && floor > before.UnixMilli() {
			continue
		}
		if floor, err = s.earliest(ctx, site, ch, before.UnixMilli(), q.Now); err != nil {
			return err
		}
		if err := s.setFloor(ctx, site, ch, floor); err != nil {
			return err
		}
	}
	return nil
}

// floor reads a channel's floor; known is false when it has none.
func (s *Store) floor(ctx context.Context, site, ch string) (floor int64, known bool, err error) {
	err = s.rdb.QueryRowContext(ctx, `SELECT floor FROM resubmit_floors WHERE site_id = $1 AND channel = $2`, site, ch).Scan(&floor)
	if err == sql.ErrNoRows {
		return 0, false, nil
	}
	return floor, err == nil, err
}

// earliest finds the earliest time after `after` at which channel ch accepted a URL of site it has
// not accepted again since; now when there is none (a URL accepted from now on is accepted at a
// later time).
func (s *Store) earliest(ctx context.Context, site, ch string, after int64, now time.Time) (int64, error) {
	var earliest sql.NullInt64
	err := s.rdb.QueryRowContext(ctx, `SELECT MIN(delivered_at) FROM deliveries
		WHERE site_id = $1 AND channel = $2 AND outcome IN ('ok', 'rejected') AND delivered_at > $3`, site, ch, after).Scan(&earliest)
	if err != nil || !earliest.Valid {
		return now.UnixMilli(), err
	}
	return min(earliest.Int64, now.UnixMilli()), nil
}

// setFloor keeps a channel's floor.
func (s *Store) setFloor(ctx context.Context, site, ch string, floor int64) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO resubmit_floors (site_id, channel, floor) VALUES ($1, $2, $3)
		ON CONFLICT (site_id, channel) DO UPDATE SET floor = $3`, site, ch, floor)
	return err
}

// pending appends to out the pending deliveries on channel ch a query finds.
func (s *Store) pending(ctx context.Context, out []model.Pending, ch, query string, args ...any) ([]model.Pending, error) {
	rows, err := s.rdb.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		p := model.Pending{Channel: ch}
		var lastmod, at sql.NullInt64
		var outcome string
		var attempts int
		var last int64
		if err := rows.Scan(&p.Hash, &lastmod, &at, &outcome, &attempts, &last); err != nil {
			return nil, err
		}
		p.State = deliveryState(lastmod, at, outcome, attempts, last)
		out = append(out, p)
	}
	return out, rows.Err()
}
