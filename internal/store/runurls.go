package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/sitepush/sitepush/internal/model"
)

// The URLs a run names (model.Record.URLs) live in run_urls, a row each, apart from the record:
// the lists of runs read records whole, and stay as small as they were. A run's deletion drops
// them (ON DELETE CASCADE).

// writeRunURLs stores the URLs run id names, in their order, rowsPerStatement at a time, in place
// of any stored before.
func (s *Store) writeRunURLs(ctx context.Context, tx *sql.Tx, id int64, urls []model.RunURL) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM run_urls WHERE run_id = $1`, id); err != nil {
		return err
	}
	prep := prepared{}
	perRow := make([]any, 0, 5*min(len(urls), rowsPerStatement))
	for lo := 0; lo < len(urls); lo += rowsPerStatement {
		hi := min(len(urls), lo+rowsPerStatement)
		perRow = perRow[:0]
		for i, u := range urls[lo:hi] {
			perRow = append(perRow, lo+i, u.Channel, u.URL, u.Outcome, u.Detail)
		}
		query, args := s.bind(`INSERT INTO run_urls (run_id, seq, channel, url, outcome, detail) VALUES `+
			valuesList(hi-lo, `$1, ?, ?, ?, ?, ?`), []any{id}, perRow)
		if err := prep.exec(ctx, tx, query, hi-lo, args); err != nil {
			return err
		}
	}
	return nil
}

// RunURLs returns limit of the URLs run id names, from offset, in the record's order: by channel,
// then by outcome. It returns none for a run that names none, or is no longer kept.
func (s *Store) RunURLs(ctx context.Context, id int64, offset, limit int) (_ []model.RunURL, err error) {
	defer s.failed(&err, fmt.Sprintf("reading the URLs of run %d", id), "")
	rows, err := s.rdb.QueryContext(ctx, `SELECT channel, url, outcome, detail FROM run_urls
		WHERE run_id = $1 ORDER BY seq LIMIT $2 OFFSET $3`, id, limit, offset)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []model.RunURL
	for rows.Next() {
		var u model.RunURL
		if err := rows.Scan(&u.Channel, &u.URL, &u.Outcome, &u.Detail); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// RunURLCounts returns how many URLs run id names on each channel with each outcome (keyed by
// model.URLKey): what a page of them says of the whole, and, against the record's counters, how
// many the run does not name, beyond the bound the runner keeps.
func (s *Store) RunURLCounts(ctx context.Context, id int64) (_ map[model.URLKey]int, err error) {
	defer s.failed(&err, fmt.Sprintf("counting the URLs of run %d", id), "")
	out := map[model.URLKey]int{}
	return out, s.each(ctx, func(scan func(...any) error) error {
		var k model.URLKey
		var n int
		if err := scan(&k.Channel, &k.Outcome, &n); err != nil {
			return err
		}
		out[k] = n
		return nil
	}, `SELECT channel, outcome, count(*) FROM run_urls WHERE run_id = $1 GROUP BY channel, outcome`, id)
}
