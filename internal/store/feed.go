package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/sitepush/sitepush/internal/channel/feed"
)

// FeedState tells whether site's feed was built and when it last changed.
func (s *Store) FeedState(ctx context.Context, site string) (bool, time.Time, error) {
	var built, changed sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT built_at, changed_at FROM feed_state WHERE site_id = $1`, site).Scan(&built, &changed)
	if errors.Is(err, sql.ErrNoRows) {
		return false, time.Time{}, nil
	}
	if err != nil {
		return false, time.Time{}, fmt.Errorf("reading the feed state of site %q: %w", site, err)
	}
	return built.Valid, fromMS(changed), nil
}

// SaveFeedItems adds items to site's feed, or improves the title of items it has, in one
// transaction, and marks the feed changed.
func (s *Store) SaveFeedItems(ctx context.Context, site string, items []feed.Item, now time.Time) error {
	if len(items) == 0 {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO feed_items (site_id, url_hash, url, title, description, published, first_seen, titled)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (site_id, url_hash) DO UPDATE SET url = excluded.url, title = excluded.title,
			description = excluded.description, titled = excluded.titled
		WHERE excluded.titled >= feed_items.titled`)
	if err != nil {
		return err
	}
	for _, it := range items {
		titled := 0
		if it.Titled {
			titled = 1
		}
		if _, err := stmt.ExecContext(ctx, site, it.Hash, it.URL, it.Title, it.Description,
			it.Published.UnixMilli(), it.FirstSeen.UnixMilli(), titled); err != nil {
			return fmt.Errorf("saving feed items of site %q: %w", site, err)
		}
	}
	if err := touchFeed(ctx, tx, site, now); err != nil {
		return err
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
func (s *Store) MarkFeedBuilt(ctx context.Context, site string, now time.Time) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO feed_state (site_id, built_at, changed_at) VALUES ($1, $2, $2)
		ON CONFLICT (site_id) DO UPDATE SET built_at = excluded.built_at`, site, now.UnixMilli())
	return err
}

// FeedItems returns site's newest limit items, newest first.
func (s *Store) FeedItems(ctx context.Context, site string, limit int) ([]feed.Item, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT url_hash, url, title, description, published, first_seen, titled
		FROM feed_items WHERE site_id = $1 ORDER BY published DESC, first_seen DESC, url LIMIT $2`, site, limit)
	if err != nil {
		return nil, fmt.Errorf("reading the feed of site %q: %w", site, err)
	}
	defer rows.Close()
	var out []feed.Item
	for rows.Next() {
		var it feed.Item
		var published, firstSeen int64
		var titled int
		if err := rows.Scan(&it.Hash, &it.URL, &it.Title, &it.Description, &published, &firstSeen, &titled); err != nil {
			return nil, fmt.Errorf("reading the feed of site %q: %w", site, err)
		}
		it.Published, it.FirstSeen, it.Titled = time.UnixMilli(published).UTC(), time.UnixMilli(firstSeen).UTC(), titled != 0
		out = append(out, it)
	}
	return out, rows.Err()
}

// PruneFeed drops site's items that are both beyond the newest keep and first seen before before.
func (s *Store) PruneFeed(ctx context.Context, site string, keep int, before, now time.Time) (int, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `DELETE FROM feed_items WHERE site_id = $1 AND first_seen < $2 AND url_hash NOT IN (
		SELECT url_hash FROM feed_items WHERE site_id = $1 ORDER BY published DESC, first_seen DESC, url LIMIT $3)`,
		site, before.UnixMilli(), keep)
	if err != nil {
		return 0, fmt.Errorf("pruning the feed of site %q: %w", site, err)
	}
	n, _ := res.RowsAffected()
	if n > 0 {
		if err := touchFeed(ctx, tx, site, now); err != nil {
			return 0, err
		}
	}
	return int(n), tx.Commit()
}

// ResetFeed forgets site's feed items and state, so that it is built again, as on a first run; the
// pages the feed knew stay known, so they never come back as new.
func (s *Store) ResetFeed(ctx context.Context, site string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, q := range []string{`DELETE FROM feed_items WHERE site_id = $1`, `DELETE FROM feed_state WHERE site_id = $1`} {
		if _, err := tx.ExecContext(ctx, q, site); err != nil {
			return fmt.Errorf("resetting the feed of site %q: %w", site, err)
		}
	}
	return tx.Commit()
}
