package store

import (
	"context"
	"slices"
)

// URLs returns the URL of each hash of site, aligned with hashes; "" for unknown hashes. Hashes
// in ascending order, as a run's queues hold them, are read by one scan of their range when the
// catalogue holds few others there (a site's first run), instead of a lookup each.
func (s *Store) URLs(ctx context.Context, site string, hashes []int64) (_ []string, err error) {
	defer s.failed(&err, "reading URLs", site)
	out := make([]string, len(hashes))
	if len(hashes) >= minRangeRead && slices.IsSorted(hashes) {
		dense, err := s.urlRange(ctx, site, hashes, out)
		if err != nil || dense {
			return out, err
		}
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT url_hash, url FROM urls WHERE site_id = $1 AND `+s.inHashes("url_hash", 2),
		site, s.hashParam(hashes))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byHash := make(map[int64]string, len(hashes))
	for rows.Next() {
		var h int64
		var u string
		if err := rows.Scan(&h, &u); err != nil {
			return nil, err
		}
		byHash[h] = u
	}
	for i, h := range hashes {
		out[i] = byHash[h]
	}
	return out, rows.Err()
}

// minRangeRead is how many sorted hashes make URLs try a scan of their range.
const minRangeRead = 256

// urlRange fills out from a scan of the catalogue between the first and last of hashes, sorted,
// reading at most twice as many rows as there are hashes: it reports false when the range
// holds more, and a lookup of each is cheaper.
func (s *Store) urlRange(ctx context.Context, site string, hashes []int64, out []string) (bool, error) {
	limit := 2 * len(hashes)
	rows, err := s.rdb.QueryContext(ctx, `SELECT url_hash, url FROM urls WHERE site_id = $1 AND url_hash >= $2 AND url_hash <= $3
		ORDER BY url_hash LIMIT $4`, site, hashes[0], hashes[len(hashes)-1], limit)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	read, i := 0, 0
	for rows.Next() {
		var h int64
		var u string
		if err := rows.Scan(&h, &u); err != nil {
			return false, err
		}
		read++
		for i < len(hashes) && hashes[i] < h {
			i++
		}
		for j := i; j < len(hashes) && hashes[j] == h; j++ {
			out[j] = u
		}
	}
	return read < limit, rows.Err()
}
