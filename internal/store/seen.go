package store

import (
	"context"
	"slices"
	"strings"
	"time"
)

// maxCrawlTimes bounds the crawls whose times a site's page reads for their median.
const maxCrawlTimes = 10_000

// SeenSince is what the engines did, as far as sitepush knows, with a site's URLs over some days:
// what a site's page shows under "From sent to seen".
type SeenSince struct {
	// Submitted counts the site's URLs an engine (IndexNow or Bing) accepted since.
	Submitted int
	// CrawledByBing counts those Bing was seen to crawl after their submission; MedianHours is
	// the median time from submission to that crawl, of the newest maxCrawlTimes.
	CrawledByBing int
	MedianHours   float64
	// Inspected counts the URLs Google's URL Inspection was asked about since, and Indexed those
	// it said were indexed.
	Inspected, Indexed int
	// Ineligible counts the URLs a preflight held back since, by reason.
	Ineligible map[string]int
	// Removed counts the removal notices IndexNow accepted since.
	Removed int
}

// SeenSince reads what the engines did with site's URLs since since.
func (s *Store) SeenSince(ctx context.Context, site string, since time.Time) (_ *SeenSince, err error) {
	defer s.failed(&err, "reading what the engines did with the URLs", site)
	at := since.UnixMilli()
	out := &SeenSince{Ineligible: map[string]int{}}
	if err := s.rdb.QueryRowContext(ctx, `SELECT COUNT(DISTINCT url_hash) FROM deliveries
		WHERE site_id = $1 AND outcome = 'ok' AND channel IN ('indexnow', 'bing') AND delivered_at >= $2`, site, at).Scan(&out.Submitted); err != nil {
		return nil, err
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT last_crawled - submitted_at FROM bing_crawls
		WHERE site_id = $1 AND submitted_at >= $2 AND last_crawled >= submitted_at ORDER BY submitted_at DESC LIMIT $3`, site, at, maxCrawlTimes)
	if err != nil {
		return nil, err
	}
	var took []int64
	for rows.Next() {
		var ms int64
		if err := rows.Scan(&ms); err != nil {
			rows.Close()
			return nil, err
		}
		took = append(took, ms)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if err := s.rdb.QueryRowContext(ctx, `SELECT COUNT(*) FROM bing_crawls
		WHERE site_id = $1 AND submitted_at >= $2 AND last_crawled >= submitted_at`, site, at).Scan(&out.CrawledByBing); err != nil {
		return nil, err
	}
	if len(took) > 0 {
		slices.Sort(took)
		mid := (took[(len(took)-1)/2] + took[len(took)/2]) / 2
		out.MedianHours = time.Duration(mid * int64(time.Millisecond)).Hours()
	}
	states, err := s.rdb.QueryContext(ctx, `SELECT coverage_state, COUNT(*) FROM google_inspections
		WHERE site_id = $1 AND checked_at >= $2 GROUP BY coverage_state`, site, at)
	if err != nil {
		return nil, err
	}
	for states.Next() {
		var state string
		var n int
		if err := states.Scan(&state, &n); err != nil {
			states.Close()
			return nil, err
		}
		out.Inspected += n
		if indexed(state) {
			out.Indexed += n
		}
	}
	states.Close()
	if err := states.Err(); err != nil {
		return nil, err
	}
	reasons, err := s.rdb.QueryContext(ctx, `SELECT COALESCE(preflight, ''), COUNT(DISTINCT url_hash) FROM deliveries
		WHERE site_id = $1 AND outcome = 'ineligible' AND last_attempt >= $2 GROUP BY preflight`, site, at)
	if err != nil {
		return nil, err
	}
	for reasons.Next() {
		var reason string
		var n int
		if err := reasons.Scan(&reason, &n); err != nil {
			reasons.Close()
			return nil, err
		}
		out.Ineligible[reason] += n
	}
	reasons.Close()
	if err := reasons.Err(); err != nil {
		return nil, err
	}
	err = s.rdb.QueryRowContext(ctx, `SELECT COUNT(*) FROM removals WHERE site_id = $1 AND announced_at >= $2`, site, at).Scan(&out.Removed)
	return out, err
}

// indexed reports whether URL Inspection's coverage state says Google indexed the page
// ("Submitted and indexed", "Indexed, not submitted in sitemap"), not that it did not
// ("Crawled - currently not indexed").
func indexed(coverage string) bool {
	c := strings.ToLower(coverage)
	return strings.Contains(c, "indexed") && !strings.Contains(c, "not indexed")
}
