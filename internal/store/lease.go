package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/sitepush/sitepush/internal/model"
)

// AcquireLease takes site's lease for holder until now+ttl, unless a lease is still valid: then
// it returns a *model.LeaseHeld that says who holds it and until when. Taking an expired lease is
// how a killed run's lease frees itself. A holder is one run: even it cannot take a lease twice.
func (s *Store) AcquireLease(ctx context.Context, site, holder string, now time.Time, ttl time.Duration) (model.Lease, error) {
	if err := s.takeLease(ctx, site, holder, now, ttl); err != nil {
		return nil, err
	}
	return &lease{s: s, site: site, holder: holder}, nil
}

// takeLease takes site's lease for holder as AcquireLease does; its error is a *model.LeaseHeld
// when another holder has it.
func (s *Store) takeLease(ctx context.Context, site, holder string, now time.Time, ttl time.Duration) (err error) {
	defer s.failed(&err, "taking the lease", site)
	for {
		res, err := s.db.ExecContext(ctx, `INSERT INTO leases (site_id, holder, expires_at) VALUES ($1, $2, $3)
			ON CONFLICT (site_id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
			WHERE leases.expires_at <= $4`,
			site, holder, now.Add(ttl).UnixMilli(), now.UnixMilli())
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 1 {
			return nil
		}
		var other string
		var until sql.NullInt64
		err = s.db.QueryRowContext(ctx, `SELECT holder, expires_at FROM leases WHERE site_id = $1`, site).Scan(&other, &until)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			continue // released between the two statements: try again
		case err != nil:
			return err
		}
		return &model.LeaseHeld{Holder: other, Until: fromMS(until)}
	}
}

// lease is the store's model.Lease: its holder's hold on the site's row of the leases table,
// which lasts while the row names it.
type lease struct {
	s            *Store
	site, holder string
}

// Renew extends the lease to now+ttl; model.ErrLeaseLost when its holder no longer holds it.
func (l *lease) Renew(ctx context.Context, now time.Time, ttl time.Duration) (err error) {
	defer l.s.failed(&err, "renewing the lease", l.site)
	res, err := l.s.db.ExecContext(ctx, `UPDATE leases SET expires_at = $3 WHERE site_id = $1 AND holder = $2`,
		l.site, l.holder, now.Add(ttl).UnixMilli())
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return model.ErrLeaseLost
	}
	return nil
}

// Release gives the lease up, if its holder still holds it.
func (l *lease) Release(ctx context.Context) (err error) {
	defer l.s.failed(&err, "releasing the lease", l.site)
	_, err = l.s.db.ExecContext(ctx, `DELETE FROM leases WHERE site_id = $1 AND holder = $2`, l.site, l.holder)
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
