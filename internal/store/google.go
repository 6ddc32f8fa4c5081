package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/sitepush/sitepush/internal/model"
)

// URLsToInspect returns up to limit of site's URLs a channel sent before before (earlier runs)
// and Google's URL Inspection was not asked about since, those sent longest ago first: Google
// has had the longest to crawl them.
func (s *Store) URLsToInspect(ctx context.Context, site string, before time.Time, limit int) (_ []model.ToInspect, err error) {
	defer s.failed(&err, "finding the URLs to inspect", site)
	rows, err := s.rdb.QueryContext(ctx, `SELECT u.url_hash, u.url FROM urls u
		JOIN deliveries d ON d.site_id = u.site_id AND d.url_hash = u.url_hash
		LEFT JOIN google_inspections g ON g.site_id = u.site_id AND g.url_hash = u.url_hash
		WHERE u.site_id = $1 AND d.outcome IN ('ok', 'failed') AND d.delivered_at IS NOT NULL AND d.delivered_at < $2
		GROUP BY u.url_hash, u.url, g.checked_at
		HAVING g.checked_at IS NULL OR g.checked_at < MAX(d.delivered_at)
		ORDER BY MAX(d.delivered_at), u.url_hash LIMIT $3`, site, before.UnixMilli(), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []model.ToInspect
	for rows.Next() {
		var t model.ToInspect
		if err := rows.Scan(&t.Hash, &t.URL); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// RecordInspection keeps what URL Inspection said of one of site's URLs, replacing what it
// said before.
func (s *Store) RecordInspection(ctx context.Context, site string, hash int64, in model.Inspection) (err error) {
	defer s.failed(&err, "keeping what Google's URL Inspection said", site)
	var crawl any
	if !in.LastCrawl.IsZero() {
		crawl = in.LastCrawl.UnixMilli()
	}
	_, err = s.db.ExecContext(ctx, `INSERT INTO google_inspections (site_id, url_hash, coverage_state, indexing_state, last_crawl, checked_at)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (site_id, url_hash) DO UPDATE SET coverage_state = excluded.coverage_state,
		indexing_state = excluded.indexing_state, last_crawl = excluded.last_crawl, checked_at = excluded.checked_at`,
		site, hash, in.CoverageState, in.IndexingState, crawl, in.CheckedAt.UnixMilli())
	return err
}

// Inspection returns what URL Inspection last said of one of site's URLs; nil when it was never
// asked.
func (s *Store) Inspection(ctx context.Context, site string, hash int64) (_ *model.Inspection, err error) {
	defer s.failed(&err, "reading what Google's URL Inspection said", site)
	var in model.Inspection
	var crawl sql.NullInt64
	var checked int64
	err = s.rdb.QueryRowContext(ctx, `SELECT coverage_state, indexing_state, last_crawl, checked_at FROM google_inspections
		WHERE site_id = $1 AND url_hash = $2`, site, hash).Scan(&in.CoverageState, &in.IndexingState, &crawl, &checked)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if crawl.Valid {
		in.LastCrawl = time.UnixMilli(crawl.Int64).UTC()
	}
	in.CheckedAt = time.UnixMilli(checked).UTC()
	return &in, nil
}

// ReserveInspections takes up to n of property's URL inspections of day, never letting the day's
// total pass limit, and returns how many it took. It is atomic across processes, like
// ReserveQuota: sites sharing a property share its inspections.
func (s *Store) ReserveInspections(ctx context.Context, property, day string, n, limit int) (_ int, err error) {
	defer s.failed(&err, fmt.Sprintf("reserving Google URL inspections of property %q", property), "")
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO google_inspect_quota (property, day, used) VALUES ($1, $2, 0)
		ON CONFLICT (property, day) DO NOTHING`, property, day); err != nil {
		return 0, err
	}
	var used int
	if err := tx.QueryRowContext(ctx, `SELECT used FROM google_inspect_quota WHERE property = $1 AND day = $2`+s.forUpdate(),
		property, day).Scan(&used); err != nil {
		return 0, err
	}
	granted := max(0, min(n, limit-used))
	if granted == 0 {
		return 0, nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE google_inspect_quota SET used = used + $3 WHERE property = $1 AND day = $2`,
		property, day, granted); err != nil {
		return 0, err
	}
	return granted, tx.Commit()
}

// ReleaseInspections gives back n inspections reserved and not made.
func (s *Store) ReleaseInspections(ctx context.Context, property, day string, n int) (err error) {
	defer s.failed(&err, fmt.Sprintf("giving Google URL inspections of property %q back", property), "")
	_, err = s.db.ExecContext(ctx, `UPDATE google_inspect_quota SET used = CASE WHEN used > $3 THEN used - $3 ELSE 0 END
		WHERE property = $1 AND day = $2`, property, day, n)
	return err
}
