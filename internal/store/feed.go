package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/sitepush/sitepush/internal/model"
)

// FeedState tells whether site's feed was built and when it last changed. A row that does not
// hold what this version writes is unusable (model.ErrUnusableFeed): the feed is built again.
func (s *Store) FeedState(ctx context.Context, site string) (_ bool, _ time.Time, err error) {
	defer s.failed(&err, "reading the feed state", site)
	var built, changed any
	err = s.rdb.QueryRowContext(ctx, `SELECT built_at, changed_at FROM feed_state WHERE site_id = $1`, site).Scan(&built, &changed)
	if errors.Is(err, sql.ErrNoRows) {
		return false, time.Time{}, nil
	}
	if err != nil {
		return false, time.Time{}, err
	}
	changedMS, ok := changed.(int64)
	if _, isInt := built.(int64); !ok || !isInt && built != nil {
		return false, time.Time{}, fmt.Errorf("%w: the feed_state row of site %q holds %v and %v, not times", model.ErrUnusableFeed, site, built, changed)
	}
	return built != nil, time.UnixMilli(changedMS).UTC(), nil
}

// SaveFeedItems adds items to site's feed, or improves the title of items it has, in one
// transaction, and marks the feed changed when it did change. An item to retitle is never added.
func (s *Store) SaveFeedItems(ctx context.Context, site string, items []model.FeedItem, now time.Time) (err error) {
	defer s.failed(&err, "saving feed items", site)
	if len(items) == 0 {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	upsert, err := tx.PrepareContext(ctx, `INSERT INTO feed_items (site_id, url_hash, url, title, description, published, first_seen, titled)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (site_id, url_hash) DO UPDATE SET url = excluded.url, title = excluded.title,
			description = excluded.description, titled = excluded.titled
		WHERE excluded.titled >= feed_items.titled AND (feed_items.title <> excluded.title
			OR feed_items.description <> excluded.description OR feed_items.titled <> excluded.titled)`)
	if err != nil {
		return err
	}
	retitle, err := tx.PrepareContext(ctx, `UPDATE feed_items SET title = $3, description = $4, titled = $5
		WHERE site_id = $1 AND url_hash = $2 AND $5 >= titled AND (title <> $3 OR description <> $4 OR titled <> $5)`)
	if err != nil {
		return err
	}
	changed := int64(0)
	for _, it := range items {
		titled := 0
		if it.Titled {
			titled = 1
		}
		var res sql.Result
		if it.Retitle {
			res, err = retitle.ExecContext(ctx, site, it.Hash, it.Title, it.Description, titled)
		} else {
			res, err = upsert.ExecContext(ctx, site, it.Hash, it.URL, it.Title, it.Description,
				it.Published.UnixMilli(), it.FirstSeen.UnixMilli(), titled)
		}
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		changed += n
	}
	if changed > 0 {
		if err := touchFeed(ctx, tx, site, now); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// touchFeed marks site's feed changed at now.
func touchFeed(ctx context.Context, tx *sql.Tx, site string, now time.Time) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO feed_state (site_id, changed_at) VALUES ($1, $2)
		ON CONFLICT (site_id) DO UPDATE SET changed_at = excluded.changed_at`, site, now.UnixMilli())
	return err
}

// MarkFeedBuilt records that site's feed has had its first run.
func (s *Store) MarkFeedBuilt(ctx context.Context, site string, now time.Time) (err error) {
	defer s.failed(&err, "marking the feed built", site)
	_, err = s.db.ExecContext(ctx, `INSERT INTO feed_state (site_id, built_at, changed_at) VALUES ($1, $2, $2)
		ON CONFLICT (site_id) DO UPDATE SET built_at = excluded.built_at`, site, now.UnixMilli())
	return err
}

// FeedItems returns site's newest limit items, newest first.
func (s *Store) FeedItems(ctx context.Context, site string, limit int) (_ []model.FeedItem, err error) {
	defer s.failed(&err, "reading feed items", site)
	rows, err := s.rdb.QueryContext(ctx, `SELECT url_hash, url, title, description, published, first_seen, titled
		FROM feed_items WHERE site_id = $1 ORDER BY published DESC, first_seen DESC, url LIMIT $2`, site, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []model.FeedItem
	for rows.Next() {
		var it model.FeedItem
		var published, firstSeen int64
		var titled int
		if err := rows.Scan(&it.Hash, &it.URL, &it.Title, &it.Description, &published, &firstSeen, &titled); err != nil {
			return nil, err
		}
		it.Published, it.FirstSeen, it.Titled = time.UnixMilli(published).UTC(), time.UnixMilli(firstSeen).UTC(), titled != 0
		out = append(out, it)
	}
	return out, rows.Err()
}

// PruneFeed drops site's items that are both beyond the newest keep and first seen before before.
func (s *Store) PruneFeed(ctx context.Context, site string, keep int, before, now time.Time) (_ int, err error) {
	defer s.failed(&err, "pruning the feed", site)
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `DELETE FROM feed_items WHERE site_id = $1 AND first_seen < $2 AND url_hash NOT IN (
		SELECT url_hash FROM feed_items WHERE site_id = $1 ORDER BY published DESC, first_seen DESC, url LIMIT $3)`,
		site, before.UnixMilli(), keep)
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	if n > 0 {
		if err := touchFeed(ctx, tx, site, now); err != nil {
			return 0, err
		}
	}
	return int(n), tx.Commit()
}

// ResetFeedState forgets that site's feed was built, so that it is built again as on a first
// run. Its items stay, and so do the pages it knew: they never come back as new.
func (s *Store) ResetFeedState(ctx context.Context, site string) (err error) {
	defer s.failed(&err, "resetting the feed state", site)
	if _, err := s.db.ExecContext(ctx, `DELETE FROM feed_state WHERE site_id = $1`, site); err != nil {
		return err
	}
	return nil
}
