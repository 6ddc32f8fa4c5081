package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/sitepush/sitepush/internal/model"
)

// ReserveQuota takes up to n URLs of site's quota for day, never letting the day's total pass
// limit, and returns how many it took: 0 once the quota is spent or the day was marked full. It
// is atomic across processes: the row is locked for the transaction.
func (s *Store) ReserveQuota(ctx context.Context, site, day string, n, limit int) (_ int, err error) {
	defer s.failed(&err, "reserving Bing quota", site)
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO bing_quota (site_id, day, used, "full") VALUES ($1, $2, 0, 0)
		ON CONFLICT (site_id, day) DO NOTHING`, site, day); err != nil {
		return 0, err
	}
	var used, full int
	if err := tx.QueryRowContext(ctx, `SELECT used, "full" FROM bing_quota WHERE site_id = $1 AND day = $2`+s.forUpdate(),
		site, day).Scan(&used, &full); err != nil {
		return 0, err
	}
	granted := max(0, min(n, limit-used))
	if full != 0 || granted == 0 {
		return 0, nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE bing_quota SET used = used + $3 WHERE site_id = $1 AND day = $2`, site, day, granted); err != nil {
		return 0, err
	}
	return granted, tx.Commit()
}

// ReleaseQuota gives back n URLs reserved and not sent.
func (s *Store) ReleaseQuota(ctx context.Context, site, day string, n int) (err error) {
	defer s.failed(&err, "giving Bing quota back", site)
	_, err = s.db.ExecContext(ctx, `UPDATE bing_quota SET used = CASE WHEN used > $3 THEN used - $3 ELSE 0 END
		WHERE site_id = $1 AND day = $2`, site, day, n)
	return err
}

// MarkQuotaFull records that Bing refused site's submissions for quota on day: nothing more is
// reserved that day.
func (s *Store) MarkQuotaFull(ctx context.Context, site, day string) (err error) {
	defer s.failed(&err, "marking the Bing quota spent", site)
	_, err = s.db.ExecContext(ctx, `INSERT INTO bing_quota (site_id, day, used, "full") VALUES ($1, $2, 0, 1)
		ON CONFLICT (site_id, day) DO UPDATE SET "full" = 1`, site, day)
	return err
}

// RecordBingLeft keeps Bing's answer of site's quota left on day, with what the day has used at
// that moment, in one statement: the URLs used since come off it.
func (s *Store) RecordBingLeft(ctx context.Context, site, day string, left int) (err error) {
	defer s.failed(&err, "keeping what Bing said of its quota", site)
	_, err = s.db.ExecContext(ctx, `INSERT INTO bing_quota (site_id, day, used, "full", bing_left, told_used) VALUES ($1, $2, 0, 0, $3, 0)
		ON CONFLICT (site_id, day) DO UPDATE SET bing_left = $3, told_used = bing_quota.used`, site, day, left)
	return err
}

// QuotaDay returns what is kept of site's quota of day: zero for a day without any.
func (s *Store) QuotaDay(ctx context.Context, site, day string) (_ model.BingDay, err error) {
	defer s.failed(&err, "reading the Bing quota", site)
	var d model.BingDay
	err = s.rdb.QueryRowContext(ctx, `SELECT `+quotaColumns+` FROM bing_quota WHERE site_id = $1 AND day = $2`, site, day).Scan(bingDayFields(&d)...)
	if errors.Is(err, sql.ErrNoRows) {
		return model.BingDay{}, nil
	}
	return d, err
}

// quotaColumns are the columns of bing_quota that bingDayFields scans.
const quotaColumns = `used, "full" <> 0, bing_left IS NOT NULL, COALESCE(bing_left, 0), told_used`

// bingDayFields are the destinations of quotaColumns.
func bingDayFields(d *model.BingDay) []any {
	return []any{&d.Used, &d.Full, &d.Told, &d.BingLeft, &d.UsedWhenTold}
}

// forUpdate locks the rows a query reads until the transaction ends, where the engine needs to be
// told: SQLite's write transactions hold the whole database already.
func (s *Store) forUpdate() string {
	if s.dialect == postgres {
		return " FOR UPDATE"
	}
	return ""
}
