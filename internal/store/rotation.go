package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"slices"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
)

// The rotation of content checks (docs/runs.md, "What changed") is the column check_key of the
// pages of sitemaps checked by content: NULL for a page not in it, 0 for a suspect (new, or its
// lastmod moved, and not checked since), else the time (Unix ms) that keeps its place in line.
// A partial index holds the pages in it alone, in line: PagesToCheck is a range read of its head,
// and a site with no page in it reads nothing.

// rotation is what a sync changes in the rotation of known pages: those that become suspects,
// and those that leave it.
type rotation struct {
	suspects, leave []int64
}

// note notes what page p, known as k, changes in the rotation: with Check, a page not in it
// joins it, and one whose lastmod moved (a page with no lastmod never moves) becomes a suspect;
// without, a page in it leaves it — its sitemap's lastmods are trusted now — keeping its content.
func (r *rotation) note(k known, p channel.Page) {
	switch {
	case p.Check && (!k.checkKey.Valid || k.checkKey.Int64 != 0 && !p.Lastmod.IsZero() && k.lastmod != ms(p.Lastmod)):
		r.suspects = append(r.suspects, p.Hash)
	case !p.Check && k.checkKey.Valid:
		r.leave = append(r.leave, p.Hash)
	}
}

func (r *rotation) none() bool { return len(r.suspects) == 0 && len(r.leave) == 0 }

// writeRotation applies r in tx.
func (s *Store) writeRotation(ctx context.Context, tx *sql.Tx, site string, r rotation) error {
	if len(r.suspects) > 0 {
		if _, err := tx.ExecContext(ctx, `UPDATE urls SET check_key = 0 WHERE site_id = $1 AND `+s.inHashes("url_hash", 2),
			site, s.hashParam(r.suspects)); err != nil {
			return err
		}
	}
	if len(r.leave) > 0 {
		if _, err := tx.ExecContext(ctx, `UPDATE urls SET check_key = NULL WHERE site_id = $1 AND `+s.inHashes("url_hash", 2),
			site, s.hashParam(r.leave)); err != nil {
			return err
		}
	}
	return nil
}

// leaveRotation takes the URLs of hashes out of the rotation, in tx: they left the sitemaps.
func (s *Store) leaveRotation(ctx context.Context, tx *sql.Tx, site string, hashes []int64) error {
	_, err := tx.ExecContext(ctx, `UPDATE urls SET check_key = NULL WHERE site_id = $1 AND check_key IS NOT NULL AND `+s.inHashes("url_hash", 2),
		site, s.hashParam(hashes))
	return err
}

// checksContentSQL finds a page of site $1 in the rotation or with a content, in the indexes
// urls_rotation and urls_checked, in their order (see holdsContentSQL): a site with neither never
// checked content.
const checksContentSQL = `SELECT * FROM (SELECT check_key FROM urls WHERE site_id = $1 AND check_key IS NOT NULL ORDER BY check_key LIMIT 1) r
	UNION ALL SELECT * FROM (SELECT content FROM urls WHERE site_id = $1 AND content IS NOT NULL ORDER BY content LIMIT 1) c`

// exists reports whether query, of args, finds a row (of one integer column).
func exists(ctx context.Context, db interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}, query string, args ...any) (bool, error) {
	var v int64
	err := db.QueryRowContext(ctx, query, args...).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// splitChecked splits pages into those without Check and those with; pages itself, and no
// copy, when none has Check.
func splitChecked(pages []channel.Page) (plain, checked []channel.Page) {
	if !slices.ContainsFunc(pages, func(p channel.Page) bool { return p.Check }) {
		return pages, nil
	}
	for _, p := range pages {
		if p.Check {
			checked = append(checked, p)
		} else {
			plain = append(plain, p)
		}
	}
	return plain, checked
}

// insertSuspectsSQL adds n new URLs of sitemaps checked by content, as insertPagesSQL does:
// suspects, first in the rotation.
func insertSuspectsSQL(n int) string {
	return `INSERT INTO urls (site_id, url_hash, url, lastmod, first_seen, last_seen, check_key) VALUES ` +
		valuesList(n, `$1, ?, ?, ?, $2, $2, 0`) + ` ON CONFLICT (site_id, url_hash) DO NOTHING`
}

// PagesToCheck returns at most limit of site's pages in the rotation of content checks, the
// suspects first, then in the order of their check key (those checked longest ago first), with
// their URLs, content and validators. A URL that left the sitemaps left the rotation (MarkLeft).
func (s *Store) PagesToCheck(ctx context.Context, site string, limit int) (_ []model.ToCheck, err error) {
	defer s.failed(&err, "reading the pages to check", site)
	if limit <= 0 {
		return nil, nil
	}
	rows, err := s.rdb.QueryContext(ctx, pagesToCheckSQL, site, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []model.ToCheck
	for rows.Next() {
		var c model.ToCheck
		var key int64
		var content, lastmod sql.NullInt64
		var etag, lastModified sql.NullString
		if err := rows.Scan(&c.Hash, &c.URL, &key, &content, &etag, &lastModified, &lastmod); err != nil {
			return nil, err
		}
		c.Suspect, c.Content, c.Validators = key == 0, uint64(content.Int64), model.Validators{ETag: etag.String, LastModified: lastModified.String}
		c.Lastmod = fromMS(lastmod)
		out = append(out, c)
	}
	return out, rows.Err()
}

// pagesToCheckSQL reads the head of a site's rotation ($1), at most $2 pages: a range read of the
// index urls_rotation, in its order.
const pagesToCheckSQL = `SELECT url_hash, url, check_key, content, etag, last_modified, lastmod FROM urls
	WHERE site_id = $1 AND check_key IS NOT NULL ORDER BY check_key, url_hash LIMIT $2`

// RecordChecks records what content checks found, in one transaction. A check that read the
// page sets its content and validators and clears a suspect, the page going to the back of the
// line (its check key the check's time) — unless it changed: a page in line keeps its place, so
// that a page seen to change is looked at sooner; and every delivery of the page with nothing
// recorded as sent takes its content (its first check is not a change). A page not in the
// rotation stays out. A failed check (Content 0) changes nothing; an unknown page is ignored.
func (s *Store) RecordChecks(ctx context.Context, site string, checks []model.PageCheck) (err error) {
	defer s.failed(&err, "recording content checks", site)
	read := make([]model.PageCheck, 0, len(checks))
	hashes := make([]int64, 0, len(checks))
	for _, c := range checks {
		if c.Content != 0 {
			read = append(read, c)
			hashes = append(hashes, c.Hash)
		}
	}
	if len(read) == 0 {
		return nil
	}
	slices.SortStableFunc(read, func(a, b model.PageCheck) int { return cmp.Compare(a.Hash, b.Hash) })
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	shared := []any{site}
	perRow := make([]any, 0, 6*min(len(read), rowsPerStatement))
	prep := prepared{}
	err = inChunks(len(read), func(i int) int64 { return read[i].Hash }, func(lo, hi int) error {
		perRow = perRow[:0]
		for _, c := range read[lo:hi] {
			changed := 0
			if c.Changed {
				changed = 1
			}
			perRow = append(perRow, c.Hash, int64(c.Content), text(c.Validators.ETag), text(c.Validators.LastModified), changed, c.At.UnixMilli())
		}
		query, args := s.bind(recordChecksSQL(hi-lo), shared, perRow)
		return prep.exec(ctx, tx, query, hi-lo, args)
	})
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE deliveries SET sent = (SELECT u.content FROM urls u WHERE u.site_id = deliveries.site_id AND u.url_hash = deliveries.url_hash)
		WHERE site_id = $1 AND COALESCE(sent, 0) = 0 AND `+s.inHashes("url_hash", 2), site, s.hashParam(hashes)); err != nil {
		return err
	}
	return tx.Commit()
}

// recordChecksSQL records n checks that read their page: $1 the site, then each check's hash,
// content, ETag, Last-Modified, whether it changed (1) and time. PostgreSQL needs the types of
// the parameters of a VALUES list outside an INSERT.
func recordChecksSQL(n int) string {
	return `UPDATE urls SET content = v.column2, etag = v.column3, last_modified = v.column4,
		check_key = CASE WHEN urls.check_key IS NULL THEN NULL WHEN v.column5 = 1 AND urls.check_key <> 0 THEN urls.check_key ELSE v.column6 END
		FROM (VALUES ` + valuesList(n, `CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS INTEGER), CAST(? AS BIGINT)`) +
		`) AS v WHERE urls.site_id = $1 AND urls.url_hash = v.column1`
}

// text is a string to store, NULL when empty.
func text(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }
