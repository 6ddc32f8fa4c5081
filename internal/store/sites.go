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
	return scanSites(rows)
}

// SiteVersion is what tells one version of a stored site from another without its
// configuration: its updated time only grows while the site lives, and its created time tells a
// site deleted and created again.
type SiteVersion struct {
	CreatedAt, UpdatedAt time.Time
}

// SiteVersions returns the version of every site created through the API, by id: a reader that
// holds the sites compares them with what it holds and reads again (SitesByID) only those that
// differ. It reads no configuration, so that a fleet's unchanged sites cost a few bytes each.
func (s *Store) SiteVersions(ctx context.Context) (_ map[string]SiteVersion, err error) {
	defer s.failed(&err, "reading the versions of the sites created through the API", "")
	out := map[string]SiteVersion{}
	err = s.each(ctx, func(scan func(...any) error) error {
		var id string
		var created, updated int64
		if err := scan(&id, &created, &updated); err != nil {
			return err
		}
		out[id] = SiteVersion{CreatedAt: time.UnixMilli(created).UTC(), UpdatedAt: time.UnixMilli(updated).UTC()}
		return nil
	}, `SELECT id, created_at, updated_at FROM sites`)
	return out, err
}

// SitesByID returns the sites created through the API among ids (exact ids), by id; an id the
// store does not hold is left out. The ids are one parameter (idsTable), however many.
func (s *Store) SitesByID(ctx context.Context, ids []string) (_ []StoredSite, err error) {
	defer s.failed(&err, fmt.Sprintf("reading %d sites created through the API", len(ids)), "")
	rows, err := s.rdb.QueryContext(ctx, `SELECT id, config, created_at, updated_at FROM sites
		WHERE id IN (SELECT id FROM `+s.idsTable(1, "wanted")+`) ORDER BY id`, s.idsParam(ids))
	if err != nil {
		return nil, err
	}
	return scanSites(rows)
}

// scanSites returns the sites of rows and closes rows.
func scanSites(rows *sql.Rows) ([]StoredSite, error) {
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
// version, and returns its new version: ErrSiteChanged when another change came first, ErrNoSite
// when there is no such site. Versions only grow, even for two changes within a millisecond.
func (s *Store) ReplaceSite(ctx context.Context, id string, config []byte, now, version time.Time) (_ time.Time, err error) {
	defer s.failed(&err, fmt.Sprintf("replacing site %q", id), "")
	var updated int64
	err = s.db.QueryRowContext(ctx, `UPDATE sites SET config = $2,
		updated_at = CASE WHEN $3 > updated_at THEN $3 ELSE updated_at + 1 END WHERE id = $1 AND updated_at = $4
		RETURNING updated_at`, id, string(config), now.UnixMilli(), version.UnixMilli()).Scan(&updated)
	switch {
	case err == nil:
		return time.UnixMilli(updated).UTC(), nil
	case !errors.Is(err, sql.ErrNoRows):
		return time.Time{}, err
	}
	var exists int
	switch err := s.db.QueryRowContext(ctx, `SELECT 1 FROM sites WHERE id = $1`, id).Scan(&exists); {
	case errors.Is(err, sql.ErrNoRows):
		return time.Time{}, ErrNoSite
	case err != nil:
		return time.Time{}, err
	}
	return time.Time{}, ErrSiteChanged
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
