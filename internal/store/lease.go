package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/sitepush/sitepush/internal/model"
)

// AcquireLease takes site's lease for holder until now+ttl, unless a lease is still valid; then it
// reports who holds it and until when. Taking an expired lease is how a killed run's lease frees
// itself. A holder is one run: even it cannot take a lease twice.
func (s *Store) AcquireLease(ctx context.Context, site, holder string, now time.Time, ttl time.Duration) (_ bool, _ string, _ time.Time, err error) {
	defer s.failed(&err, "taking the lease", site)
	res, err := s.db.ExecContext(ctx, `INSERT INTO leases (site_id, holder, expires_at) VALUES ($1, $2, $3)
		ON CONFLICT (site_id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
		WHERE leases.expires_at <= $4`,
		site, holder, now.Add(ttl).UnixMilli(), now.UnixMilli())
	if err != nil {
		return false, "", time.Time{}, err
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return true, "", time.Time{}, nil
	}
	var other string
	var until sql.NullInt64
	err = s.db.QueryRowContext(ctx, `SELECT holder, expires_at FROM leases WHERE site_id = $1`, site).Scan(&other, &until)
	if errors.Is(err, sql.ErrNoRows) {
		// Released between the two statements: try again.
		return s.AcquireLease(ctx, site, holder, now, ttl)
	}
	if err != nil {
		return false, "", time.Time{}, err
	}
	return false, other, fromMS(until), nil
}

// RenewLease extends holder's lease of site to now+ttl; model.ErrLeaseLost when it no longer
// holds it.
func (s *Store) RenewLease(ctx context.Context, site, holder string, now time.Time, ttl time.Duration) (err error) {
	defer s.failed(&err, "renewing the lease", site)
	res, err := s.db.ExecContext(ctx, `UPDATE leases SET expires_at = $3 WHERE site_id = $1 AND holder = $2`,
		site, holder, now.Add(ttl).UnixMilli())
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return model.ErrLeaseLost
	}
	return nil
}

// ReleaseLease gives up holder's lease of site, if it still holds it.
func (s *Store) ReleaseLease(ctx context.Context, site, holder string) (err error) {
	defer s.failed(&err, "releasing the lease", site)
	_, err = s.db.ExecContext(ctx, `DELETE FROM leases WHERE site_id = $1 AND holder = $2`, site, holder)
	return err
}

// Leased reports whether a run of site holds its lease at now, in this process or another.
func (s *Store) Leased(ctx context.Context, site string, now time.Time) (_ bool, err error) {
	defer s.failed(&err, "reading the lease", site)
	var n int
	err = s.rdb.QueryRowContext(ctx, `SELECT count(*) FROM leases WHERE site_id = $1 AND expires_at > $2`, site, now.UnixMilli()).Scan(&n)
	if err != nil {
		return false, err
	}
	return n > 0, nil
}
