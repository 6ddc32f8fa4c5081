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
	rows, err := s.rdb.QueryContext(ctx, `SELECT sitemap, etag, last_modified, size, mod_time, content_hash, scope, urls, filtered
		FROM sitemap_memos WHERE site_id = $1`, site)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]model.SitemapMemo{}
	for rows.Next() {
		var m model.SitemapMemo
		var hash int64
		if err := rows.Scan(&m.Sitemap, &m.ETag, &m.LastModified, &m.Size, &m.ModTime, &hash, &m.Scope, &m.URLs, &m.Filtered); err != nil {
			return nil, err
		}
		m.Hash = uint64(hash)
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
// transaction: a memo without Pages keeps the pages remembered before; the memos of other
// sitemaps are forgotten.
func (s *Store) SaveSitemapMemos(ctx context.Context, site string, memos []model.SitemapMemo) (err error) {
	defer s.failed(&err, "remembering the sitemaps", site)
	if len(memos) == 0 {
		return nil
	}
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
		args := []any{site, m.Sitemap, m.ETag, m.LastModified, m.Size, m.ModTime, int64(m.Hash), m.Scope, m.URLs, m.Filtered}
		query := `UPDATE sitemap_memos SET etag = $3, last_modified = $4, size = $5, mod_time = $6, content_hash = $7,
			scope = $8, urls = $9, filtered = $10 WHERE site_id = $1 AND sitemap = $2`
		if m.Pages != nil {
			args = append(args, m.Pages)
			query = `INSERT INTO sitemap_memos (site_id, sitemap, etag, last_modified, size, mod_time, content_hash, scope, urls, filtered, pages)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
				ON CONFLICT (site_id, sitemap) DO UPDATE SET etag = $3, last_modified = $4, size = $5, mod_time = $6,
				content_hash = $7, scope = $8, urls = $9, filtered = $10, pages = $11`
		}
		if _, err := tx.ExecContext(ctx, query, args...); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// PendingDeliveries returns the site's URLs whose last attempt on one of channels failed and,
// when resubmitAfter is set, those a channel last accepted that long before now: what is due on a
// URL present in a sitemap that did not change. The failures are found through their partial
// index; those to resubmit by a scan of the site's deliveries, only when the channel's floor
// (resubmit_floors) says that some may be due. Unless dryRun, a floor found passed is moved up.
func (s *Store) PendingDeliveries(ctx context.Context, site string, channels []string, now time.Time, resubmitAfter time.Duration, dryRun bool) (_ []model.Pending, err error) {
	defer s.failed(&err, "reading the failed deliveries", site)
	// SQLite, without statistics, would rather scan the site's deliveries by their primary key
	// than read a few rows through the partial index: it is told to use it. The IN term, the
	// index's own, makes it usable: SQLite does not infer it.
	failed := "deliveries"
	if s.dialect == sqlite {
		failed = "deliveries INDEXED BY deliveries_failed_by_channel"
	}
	var out []model.Pending
	for _, ch := range channels {
		query := `SELECT url_hash, lastmod, delivered_at, outcome, attempts FROM ` + failed + `
			WHERE site_id = $1 AND channel = $2 AND outcome IN ('failed', 'rejected') AND outcome = 'failed'`
		if out, err = s.pending(ctx, out, ch, query, site, ch); err != nil {
			return nil, err
		}
		if resubmitAfter <= 0 {
			continue
		}
		before := now.Add(-resubmitAfter).UnixMilli()
		if due, err := s.mayResubmit(ctx, site, ch, now, before, dryRun); err != nil || !due {
			if err != nil {
				return nil, err
			}
			continue
		}
		query = `SELECT url_hash, lastmod, delivered_at, outcome, attempts FROM deliveries
			WHERE site_id = $1 AND channel = $2 AND outcome IN ('ok', 'rejected') AND delivered_at <= $3`
		if out, err = s.pending(ctx, out, ch, query, site, ch, before); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// mayResubmit reports whether channel ch may have accepted a URL of site at or before the time
// before, by its floor; when the floor says so, it finds the earliest time from the deliveries
// and, unless dryRun, keeps it as the floor (now when there is none: a URL accepted from now on is
// accepted at a later time).
func (s *Store) mayResubmit(ctx context.Context, site, ch string, now time.Time, before int64, dryRun bool) (bool, error) {
	var floor int64
	switch err := s.rdb.QueryRowContext(ctx, `SELECT floor FROM resubmit_floors WHERE site_id = $1 AND channel = $2`, site, ch).Scan(&floor); {
	case err == nil && floor > before:
		return false, nil
	case err != nil && err != sql.ErrNoRows:
		return false, err
	}
	var earliest sql.NullInt64
	err := s.rdb.QueryRowContext(ctx, `SELECT MIN(delivered_at) FROM deliveries WHERE site_id = $1 AND channel = $2 AND outcome IN ('ok', 'rejected')`,
		site, ch).Scan(&earliest)
	if err != nil {
		return false, err
	}
	floor = now.UnixMilli()
	if earliest.Valid {
		floor = min(floor, earliest.Int64)
	}
	if !dryRun {
		if _, err := s.db.ExecContext(ctx, `INSERT INTO resubmit_floors (site_id, channel, floor) VALUES ($1, $2, $3)
			ON CONFLICT (site_id, channel) DO UPDATE SET floor = $3`, site, ch, floor); err != nil {
			return false, err
		}
	}
	return floor <= before, nil
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
		if err := rows.Scan(&p.Hash, &lastmod, &at, &outcome, &attempts); err != nil {
			return nil, err
		}
		p.State = deliveryState(lastmod, at, outcome, attempts)
		out = append(out, p)
	}
	return out, rows.Err()
}
