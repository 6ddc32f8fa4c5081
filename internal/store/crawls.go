package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/sitepush/sitepush/internal/model"
)

// BingToTrack returns at most n URLs of site to ask Bing about: their newest submission through
// IndexNow or Bing came at or after since and before before, and no crawl after it is known —
// the oldest submission first.
func (s *Store) BingToTrack(ctx context.Context, site string, since, before time.Time, n int) (_ []model.Submission, err error) {
	defer s.failed(&err, "choosing the URLs to ask Bing about", site)
	if n <= 0 {
		return nil, nil
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT s.url_hash, u.url, s.submitted FROM (
			SELECT url_hash, MAX(delivered_at) AS submitted FROM deliveries
			WHERE site_id = $1 AND outcome = 'ok' AND channel IN ('indexnow', 'bing') AND delivered_at >= $2
			GROUP BY url_hash) s
		JOIN urls u ON u.site_id = $1 AND u.url_hash = s.url_hash
		LEFT JOIN bing_crawls c ON c.site_id = $1 AND c.url_hash = s.url_hash
		WHERE s.submitted < $3 AND (c.last_crawled IS NULL OR c.last_crawled <= s.submitted)
		ORDER BY s.submitted, s.url_hash LIMIT $4`, site, since.UnixMilli(), before.UnixMilli(), n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []model.Submission
	for rows.Next() {
		var sub model.Submission
		var at int64
		if err := rows.Scan(&sub.Hash, &sub.URL, &at); err != nil {
			return nil, err
		}
		sub.Submitted = time.UnixMilli(at).UTC()
		out = append(out, sub)
	}
	return out, rows.Err()
}

// RecordBingCrawl keeps what Bing said of one URL of site, in place of what it said before.
func (s *Store) RecordBingCrawl(ctx context.Context, site string, c model.BingCrawl) (err error) {
	defer s.failed(&err, "keeping what Bing said of a URL's crawl", site)
	_, err = s.db.ExecContext(ctx, `INSERT INTO bing_crawls (site_id, url_hash, last_crawled, http_status, discovered, checked_at, submitted_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (site_id, url_hash) DO UPDATE SET last_crawled = excluded.last_crawled, http_status = excluded.http_status,
			discovered = excluded.discovered, checked_at = excluded.checked_at, submitted_at = excluded.submitted_at`,
		site, c.Hash, ms(c.LastCrawled), c.HTTPStatus, ms(c.Discovered), c.CheckedAt.UnixMilli(), c.Submitted.UnixMilli())
	return err
}

// BingCrawl returns what Bing last said of site's URL hash; ok is false when it was never asked.
func (s *Store) BingCrawl(ctx context.Context, site string, hash int64) (_ model.BingCrawl, ok bool, err error) {
	defer s.failed(&err, "reading what Bing said of a URL's crawl", site)
	c := model.BingCrawl{Hash: hash}
	var crawled, discovered sql.NullInt64
	var checked, submitted int64
	err = s.rdb.QueryRowContext(ctx, `SELECT last_crawled, http_status, discovered, checked_at, submitted_at
		FROM bing_crawls WHERE site_id = $1 AND url_hash = $2`, site, hash).Scan(&crawled, &c.HTTPStatus, &discovered, &checked, &submitted)
	if errors.Is(err, sql.ErrNoRows) {
		return model.BingCrawl{}, false, nil
	}
	if err != nil {
		return model.BingCrawl{}, false, err
	}
	c.LastCrawled, c.Discovered = fromMS(crawled), fromMS(discovered)
	c.CheckedAt, c.Submitted = time.UnixMilli(checked).UTC(), time.UnixMilli(submitted).UTC()
	return c, true, nil
}
