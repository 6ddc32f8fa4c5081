package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
)

// MarkLeft records that the URLs of hashes left every sitemap of site at at, as a whole read
// found: each is probed by a run after (LeftToProbe). A URL that left before starts afresh. Each
// leaves the rotation of content checks: one that comes back on a sitemap checked by content
// joins it again, a suspect.
func (s *Store) MarkLeft(ctx context.Context, site string, hashes []int64, at time.Time) (err error) {
	defer s.failed(&err, "recording the URLs that left the sitemaps", site)
	if len(hashes) == 0 {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO removals (site_id, url_hash, left_at) VALUES ($1, $2, $3)
		ON CONFLICT (site_id, url_hash) DO UPDATE SET left_at = excluded.left_at, status = NULL, probed_at = NULL, announced_at = NULL`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, h := range hashes {
		if _, err := stmt.ExecContext(ctx, site, h, at.UnixMilli()); err != nil {
			return err
		}
	}
	if err := s.leaveRotation(ctx, tx, site, hashes); err != nil {
		return err
	}
	return tx.Commit()
}

// LeftToProbe returns at most limit of the URLs that left site's sitemaps and were not probed
// yet, those that left first first, with their URLs.
func (s *Store) LeftToProbe(ctx context.Context, site string, limit int) (_ []channel.Page, err error) {
	defer s.failed(&err, "reading the URLs that left the sitemaps", site)
	rows, err := s.rdb.QueryContext(ctx, `SELECT r.url_hash, u.url FROM removals r
		JOIN urls u ON u.site_id = r.site_id AND u.url_hash = r.url_hash
		WHERE r.site_id = $1 AND r.probed_at IS NULL ORDER BY r.left_at, r.url_hash LIMIT $2`, site, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []channel.Page
	for rows.Next() {
		var p channel.Page
		if err := rows.Scan(&p.Hash, &p.URL); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// RecordProbe records what a URL that left site's sitemaps answered at at: its HTTP status, 0
// when no answer came.
func (s *Store) RecordProbe(ctx context.Context, site string, hash int64, status int, at time.Time) (err error) {
	defer s.failed(&err, "recording a probe of a URL that left the sitemaps", site)
	_, err = s.db.ExecContext(ctx, `UPDATE removals SET status = $3, probed_at = $4 WHERE site_id = $1 AND url_hash = $2`,
		site, hash, status, at.UnixMilli())
	return err
}

// RecordAnnounced records that IndexNow accepted the removal notices of hashes at at.
func (s *Store) RecordAnnounced(ctx context.Context, site string, hashes []int64, at time.Time) (err error) {
	defer s.failed(&err, "recording removal notices", site)
	if len(hashes) == 0 {
		return nil
	}
	_, err = s.db.ExecContext(ctx, `UPDATE removals SET announced_at = $3 WHERE site_id = $1 AND `+s.inHashes("url_hash", 2),
		site, s.hashParam(hashes), at.UnixMilli())
	return err
}

// Removal is what became of a URL that left every sitemap of its site.
type Removal struct {
	LeftAt time.Time
	// Status is what the URL answered when a run probed it; 0 until then, or when no answer came
	// (Probed tells the two apart).
	Status      int
	Probed      bool
	AnnouncedAt time.Time // zero unless IndexNow accepted a removal notice
}

// RemovalOf returns what became of site's URL of hash after it left the sitemaps; ok is false
// when it never left them.
func (s *Store) RemovalOf(ctx context.Context, site string, hash int64) (_ Removal, ok bool, err error) {
	defer s.failed(&err, "reading a removal", site)
	var r Removal
	var status, probed, announced sql.NullInt64
	var left int64
	err = s.rdb.QueryRowContext(ctx, `SELECT left_at, status, probed_at, announced_at FROM removals WHERE site_id = $1 AND url_hash = $2`,
		site, hash).Scan(&left, &status, &probed, &announced)
	if errors.Is(err, sql.ErrNoRows) {
		return Removal{}, false, nil
	}
	if err != nil {
		return Removal{}, false, err
	}
	r.LeftAt, r.Status, r.Probed, r.AnnouncedAt = time.UnixMilli(left).UTC(), int(status.Int64), probed.Valid, fromMS(announced)
	return r, true, nil
}
