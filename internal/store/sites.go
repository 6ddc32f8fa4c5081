package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// ErrSiteExists is returned when a site is created with an id already taken, whatever its case.
var ErrSiteExists = errors.New("a site with this id exists")

// ErrNoSite is returned for a site the store does not hold.
var ErrNoSite = errors.New("no such site")

// ErrSiteChanged is returned when a site is replaced from a version it no longer has.
var ErrSiteChanged = errors.New("the site was changed meanwhile")

// StoredSite is a site created through the API: its configuration as JSON, with the
// configuration file's keys and only the values its author gave (the rest is inherited from the
// file's defaults each time it is loaded).
type StoredSite struct {
	ID        string
	Config    []byte
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Sites returns the sites created through the API, by id.
func (s *Store) Sites(ctx context.Context) (_ []StoredSite, err error) {
	defer s.failed(&err, "reading the sites created through the API", "")
	rows, err := s.rdb.QueryContext(ctx, `SELECT id, config, created_at, updated_at FROM sites ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []StoredSite
	for rows.Next() {
		var st StoredSite
		var config string
		var created, updated int64
		if err := rows.Scan(&st.ID, &config, &created, &updated); err != nil {
			return nil, err
		}
		st.Config, st.CreatedAt, st.UpdatedAt = []byte(config), time.UnixMilli(created).UTC(), time.UnixMilli(updated).UTC()
		out = append(out, st)
	}
	return out, rows.Err()
}

// CreateSite stores a new site; ErrSiteExists when its id is taken, whatever the case.
func (s *Store) CreateSite(ctx context.Context, id string, config []byte, now time.Time) (err error) {
	defer s.failed(&err, fmt.Sprintf("creating site %q", id), "")
	res, err := s.db.ExecContext(ctx, `INSERT INTO sites (id, config, created_at, updated_at) VALUES ($1, $2, $3, $3)
		ON CONFLICT DO NOTHING`, id, string(config), now.UnixMilli())
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrSiteExists
	}
	return nil
}

// ReplaceSite replaces the configuration of a stored site whose version (its updatedAt) is still
// version: ErrSiteChanged when another change came first, ErrNoSite when there is no such site.
// Versions only grow, even for two changes within a millisecond.
func (s *Store) ReplaceSite(ctx context.Context, id string, config []byte, now, version time.Time) (err error) {
	defer s.failed(&err, fmt.Sprintf("replacing site %q", id), "")
	res, err := s.db.ExecContext(ctx, `UPDATE sites SET config = $2,
		updated_at = CASE WHEN $3 > updated_at THEN $3 ELSE updated_at + 1 END WHERE id = $1 AND updated_at = $4`,
		id, string(config), now.UnixMilli(), version.UnixMilli())
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n > 0 {
		return nil
	}
	var exists int
	switch err := s.db.QueryRowContext(ctx, `SELECT 1 FROM sites WHERE id = $1`, id).Scan(&exists); {
	case errors.Is(err, sql.ErrNoRows):
		return ErrNoSite
	case err != nil:
		return err
	}
	return ErrSiteChanged
}

// DeleteSite deletes a stored site's configuration; ErrNoSite when there is none. What the site's
// runs recorded is kept, so that a site created again with the same id does not submit every
// page again.
func (s *Store) DeleteSite(ctx context.Context, id string) (err error) {
	defer s.failed(&err, fmt.Sprintf("deleting site %q", id), "")
	res, err := s.db.ExecContext(ctx, `DELETE FROM sites WHERE id = $1`, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNoSite
	}
	return nil
}
