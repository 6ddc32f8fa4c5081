package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/human"
	"github.com/sitepush/sitepush/internal/model"
)

// attemptsSQL counts attempts since the last success, that one included.
const attemptsSQL = `CASE WHEN deliveries.outcome = 'ok' THEN 1 ELSE deliveries.attempts + 1 END`

// RecordOutcome stores what a channel did with some URLs, and counts it in the day's statistics,
// in one transaction: called as each answer arrives, so that a crash loses nothing that was
// answered. A failure keeps the lastmod and time of the last success, and what was sent. The
// URLs are written in hash order, rowsPerStatement to a statement.
func (s *Store) RecordOutcome(ctx context.Context, site string, now time.Time, o channel.Outcome) (err error) {
	defer s.failed(&err, "recording an outcome", site)
	if len(o.URLs) == 0 {
		return nil
	}
	o.URLs = slices.Clone(o.URLs)
	slices.SortStableFunc(o.URLs, func(a, b channel.Due) int { return cmp.Compare(a.Hash, b.Hash) })
	o.Err = clipped(o.Err)
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if o.Ineligible() {
		return s.recordIneligible(ctx, tx, site, now, o)
	}
	if err := s.recordDeliveries(ctx, tx, site, now, o); err != nil {
		return err
	}
	if o.Preflight != nil {
		if err := s.markPreflight(ctx, tx, site, now, o); err != nil {
			return err
		}
	}
	if o.Unsent != "" {
		return tx.Commit()
	}
	if !o.Delivered || o.Rejected {
		if err := s.recordFailedAttempts(ctx, tx, site, now, o); err != nil {
			return err
		}
	}
	ok, failed := len(o.URLs), 0
	if !o.Delivered {
		ok, failed = 0, len(o.URLs)
	}
	if err := addStats(ctx, tx, statsRow{day(now), site, o.Channel, "", 0, len(o.URLs), ok, failed, now}); err != nil {
		return err
	}
	return tx.Commit()
}

// recordDeliveries upserts the delivery state of an outcome's URLs, sorted by hash. A rejected
// URL is recorded like a delivered one, so that it is not due again until it changes, but with
// its outcome and error; a failure keeps the lastmod and time of the last success; a URL taken
// as known without being sent (Unsent) has its word as outcome, and no delivery or attempt.
func (s *Store) recordDeliveries(ctx context.Context, tx *sql.Tx, site string, now time.Time, o channel.Outcome) error {
	// query is the statement of an outcome's kind; withSent the same for a site some of whose
	// pages have a content, which records the page's content as the one the channel has.
	shared, query, withSent := []any{site, o.Channel, now.UnixMilli(), o.Err}, failureSQL, failureSQL
	switch {
	case o.Rejected:
		shared, query, withSent = []any{site, o.Channel, now.UnixMilli(), "rejected", o.Err}, answerSQL, answerSentSQL
	case o.Unsent != "":
		shared, query, withSent = []any{site, o.Channel, now.UnixMilli(), o.Unsent, nil}, unsentSQL, unsentSentSQL
	case o.Delivered:
		shared, query, withSent = []any{site, o.Channel, now.UnixMilli(), "ok", nil}, answerSQL, answerSentSQL
	}
	answered, sent := len(shared) == 5, false
	if answered {
		var err error
		if sent, err = s.holdsContent(ctx, tx, site); err != nil {
			return err
		}
	}
	if sent {
		query = withSent
	}
	perRow := make([]any, 0, 3*min(len(o.URLs), rowsPerStatement))
	prep := prepared{}
	return inChunks(len(o.URLs), func(i int) int64 { return o.URLs[i].Hash }, func(lo, hi int) error {
		perRow = perRow[:0]
		for _, d := range o.URLs[lo:hi] {
			perRow = append(perRow, d.Hash)
			if answered {
				perRow = append(perRow, ms(d.Lastmod))
			}
			if sent {
				perRow = append(perRow, d.Hash)
			}
		}
		q, args := s.bind(query(hi-lo), shared, perRow)
		return prep.exec(ctx, tx, q, hi-lo, args)
	})
}

// answerSQL records n URLs delivered, rejected or skipped, of a site none of whose pages has a
// content (holdsContent): $1 the site, $2 the channel, $3 the time, $4 the outcome, $5 the
// error, then each URL's hash and lastmod.
func answerSQL(n int) string {
	return `INSERT INTO deliveries (site_id, url_hash, channel, lastmod, delivered_at, outcome, attempts, last_error, last_attempt)
		VALUES ` + valuesList(n, `$1, ?, $2, ?, $3, $4, 1, $5, $3`) + `
		ON CONFLICT (site_id, url_hash, channel) DO UPDATE SET lastmod = excluded.lastmod,
			delivered_at = excluded.delivered_at, outcome = excluded.outcome, attempts = ` + attemptsSQL + `,
			last_error = excluded.last_error, last_attempt = excluded.last_attempt`
}

// answerSentSQL is answerSQL for a site some of whose pages have a content: what the channel was
// sent is the page's content now (NULL when it was never checked). Each URL's hash comes again
// after its lastmod.
func answerSentSQL(n int) string {
	return `INSERT INTO deliveries (site_id, url_hash, channel, lastmod, delivered_at, outcome, attempts, last_error, last_attempt, sent)
		VALUES ` + valuesList(n, `$1, ?, $2, ?, $3, $4, 1, $5, $3, (SELECT content FROM urls WHERE site_id = $1 AND url_hash = ?)`) + `
		ON CONFLICT (site_id, url_hash, channel) DO UPDATE SET lastmod = excluded.lastmod,
			delivered_at = excluded.delivered_at, outcome = excluded.outcome, attempts = ` + attemptsSQL + `,
			last_error = excluded.last_error, last_attempt = excluded.last_attempt, sent = excluded.sent`
}

// unsentSQL records n URLs taken as known without being sent (channel.Outcome.Unsent), of a site
// none of whose pages has a content: as answerSQL, with $4 the word and $5 NULL, but no delivery
// time and no attempt — a URL the channel had delivered before keeps its last delivery.
func unsentSQL(n int) string {
	return `INSERT INTO deliveries (site_id, url_hash, channel, lastmod, delivered_at, outcome, attempts, last_error, last_attempt)
		VALUES ` + valuesList(n, `$1, ?, $2, ?, NULL, $4, 0, $5, $3`) + `
		ON CONFLICT (site_id, url_hash, channel) DO UPDATE SET lastmod = excluded.lastmod, outcome = excluded.outcome,
			attempts = 0, last_error = excluded.last_error, last_attempt = excluded.last_attempt`
}

// unsentSentSQL is unsentSQL for a site some of whose pages have a content: the page's content now
// is taken as the one the channel has (answerSentSQL), to tell a change from.
func unsentSentSQL(n int) string {
	return `INSERT INTO deliveries (site_id, url_hash, channel, lastmod, delivered_at, outcome, attempts, last_error, last_attempt, sent)
		VALUES ` + valuesList(n, `$1, ?, $2, ?, NULL, $4, 0, $5, $3, (SELECT content FROM urls WHERE site_id = $1 AND url_hash = ?)`) + `
		ON CONFLICT (site_id, url_hash, channel) DO UPDATE SET lastmod = excluded.lastmod, outcome = excluded.outcome,
			attempts = 0, last_error = excluded.last_error, last_attempt = excluded.last_attempt, sent = excluded.sent`
}

// holdsContent reports whether a page of site has a content (was checked): without one, what a
// channel is sent is no page's content, and a delivery records none — the lookup of each page's
// adds half to the cost of recording an outcome, measured. One probe of the index urls_checked.
func (s *Store) holdsContent(ctx context.Context, tx *sql.Tx, site string) (bool, error) {
	return exists(ctx, tx, holdsContentSQL, site)
}

// holdsContentSQL finds a page of site $1 with a content, in the index urls_checked. Its order,
// the index's, is what makes PostgreSQL read the index: without it, its planner — which takes the
// pages with a content of other sites for this one's — reads the table in search of a first row,
// all of it when there is none, measured.
const holdsContentSQL = `SELECT content FROM urls WHERE site_id = $1 AND content IS NOT NULL ORDER BY content LIMIT 1`

// failureSQL records n URLs whose request failed: $1 the site, $2 the channel, $3 the time, $4
// the error, then each URL's hash.
func failureSQL(n int) string {
	return `INSERT INTO deliveries (site_id, url_hash, channel, lastmod, delivered_at, outcome, attempts, last_error, last_attempt)
		VALUES ` + valuesList(n, `$1, ?, $2, NULL, NULL, 'failed', 1, $4, $3`) + `
		ON CONFLICT (site_id, url_hash, channel) DO UPDATE SET outcome = 'failed', attempts = ` + attemptsSQL + `,
			last_error = excluded.last_error, last_attempt = excluded.last_attempt`
}

// RecordRequests counts requests in the day's per-endpoint statistics.
func (s *Store) RecordRequests(ctx context.Context, site string, now time.Time, reqs []channel.Request) (err error) {
	defer s.failed(&err, "recording requests", site)
	if len(reqs) == 0 {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, r := range reqs {
		n, ok, failed := r.Counts()
		if err := addStats(ctx, tx, statsRow{day(now), site, r.Channel, r.Endpoint, n, ok + failed, ok, failed, now}); err != nil {
			return err
		}
	}
	return tx.Commit()
}

type statsRow struct {
	day, site, channel, endpoint        string
	requests, total, successful, failed int
	at                                  time.Time
}

// addStats adds to a day's statistics, and notes the time of the last success.
func addStats(ctx context.Context, tx *sql.Tx, r statsRow) error {
	var success sql.NullInt64
	if r.successful > 0 {
		success = sql.NullInt64{Int64: r.at.UnixMilli(), Valid: true}
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO daily_stats (day, site_id, channel, endpoint, requests, total, successful, failed, last_success)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT (day, site_id, channel, endpoint) DO UPDATE SET requests = daily_stats.requests + excluded.requests,
			total = daily_stats.total + excluded.total, successful = daily_stats.successful + excluded.successful,
			failed = daily_stats.failed + excluded.failed,
			last_success = COALESCE(excluded.last_success, daily_stats.last_success)`,
		r.day, r.site, r.channel, r.endpoint, r.requests, r.total, r.successful, r.failed, success)
	return err
}

// keepAttempts is how many failed attempts of a URL on a channel the state keeps, the newest.
const keepAttempts = 3

// recordFailedAttempts keeps a failed or rejected outcome in each URL's story, and only the
// newest keepAttempts of the URL on the channel. The URLs are sorted by hash.
func (s *Store) recordFailedAttempts(ctx context.Context, tx *sql.Tx, site string, now time.Time, o channel.Outcome) error {
	outcome := "failed"
	if o.Rejected {
		outcome = "rejected"
	}
	shared := []any{site, o.Channel, now.UnixMilli(), outcome, o.Err}
	perRow := make([]any, 0, min(len(o.URLs), rowsPerStatement))
	prep := prepared{}
	err := inChunks(len(o.URLs), func(i int) int64 { return o.URLs[i].Hash }, func(lo, hi int) error {
		perRow = perRow[:0]
		for _, d := range o.URLs[lo:hi] {
			perRow = append(perRow, d.Hash)
		}
		query, args := s.bind(`INSERT INTO failed_attempts (site_id, url_hash, channel, at, outcome, error)
			VALUES `+valuesList(hi-lo, `$1, ?, $2, $3, $4, $5`)+`
			ON CONFLICT (site_id, url_hash, channel, at) DO UPDATE SET outcome = excluded.outcome, error = excluded.error`, shared, perRow)
		return prep.exec(ctx, tx, query, hi-lo, args)
	})
	if err != nil {
		return err
	}
	return s.pruneFailedAttempts(ctx, tx, site, o)
}

// pruneFailedAttempts deletes the attempts of an outcome's URLs older than the newest
// keepAttempts: those before the keepAttempts-th newest, when there is one.
func (s *Store) pruneFailedAttempts(ctx context.Context, tx *sql.Tx, site string, o channel.Outcome) error {
	hashes := make([]int64, len(o.URLs))
	for i, d := range o.URLs {
		hashes[i] = d.Hash
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM failed_attempts WHERE site_id = $1 AND channel = $2 AND `+s.inHashes("url_hash", 3)+`
		AND at < (SELECT f.at FROM failed_attempts f WHERE f.site_id = $1 AND f.url_hash = failed_attempts.url_hash AND f.channel = $2
			ORDER BY f.at DESC LIMIT 1 OFFSET `+fmt.Sprint(keepAttempts-1)+`)`, site, o.Channel, s.hashParam(hashes))
	return err
}

// maxErrorBytes bounds an error as the state keeps it: it is a key of the index of failures,
// whose entries PostgreSQL bounds (about 2,700 bytes).
const maxErrorBytes = 1000

// clipped cuts an error to maxErrorBytes.
func clipped(msg string) string { return human.Clip(msg, maxErrorBytes) }

// deliveryState is the state a deliveries row gives: the lastmod and time last delivered (for a
// URL held back, the lastmod checked; for one never sent, the lastmod taken as known), its
// outcome, the attempts since the last success and the time of the last (for a URL never sent,
// when it was taken as known).
func deliveryState(lastmod, deliveredAt sql.NullInt64, outcome string, attempts int, lastAttempt int64) model.DeliveryState {
	st := model.DeliveryState{Known: true, Lastmod: fromMS(lastmod), DeliveredAt: fromMS(deliveredAt),
		Failed: outcome == "failed", Ineligible: outcome == "ineligible"}
	if outcome == model.UnsentBacklog || outcome == model.UnsentBaseline {
		st.Unsent, st.TakenAt = outcome, time.UnixMilli(lastAttempt).UTC()
	}
	if st.Failed {
		st.Failures = attempts
	}
	if st.Ineligible {
		st.CheckedAt = time.UnixMilli(lastAttempt).UTC()
	}
	return st
}

// recordIneligible records URLs a preflight held back. One that may change by itself (a 5xx, no
// answer) is a failure, due again at the next run; any other is 'ineligible', with the lastmod
// checked, so that only a change or preflightAfter makes it due again. The time and lastmod of
// the last acceptance are kept; nothing is counted in the day's statistics: nothing was sent.
func (s *Store) recordIneligible(ctx context.Context, tx *sql.Tx, site string, now time.Time, o channel.Outcome) error {
	query := ineligibleSQL
	shared := []any{site, o.Channel, now.UnixMilli(), clipped(o.Preflight.Reason + ": " + o.Preflight.Detail)}
	if o.Preflight.Again {
		query = failureSQL
		shared[3] = clipped(o.Preflight.ForNow())
	}
	perRow := make([]any, 0, 2*min(len(o.URLs), rowsPerStatement))
	prep := prepared{}
	err := inChunks(len(o.URLs), func(i int) int64 { return o.URLs[i].Hash }, func(lo, hi int) error {
		perRow = perRow[:0]
		for _, d := range o.URLs[lo:hi] {
			perRow = append(perRow, d.Hash)
			if !o.Preflight.Again {
				perRow = append(perRow, ms(d.Lastmod))
			}
		}
		q, args := s.bind(query(hi-lo), shared, perRow)
		return prep.exec(ctx, tx, q, hi-lo, args)
	})
	if err != nil {
		return err
	}
	if err := s.markPreflight(ctx, tx, site, now, o); err != nil {
		return err
	}
	return tx.Commit()
}

// ineligibleSQL records n URLs held back by a preflight: $1 the site, $2 the channel, $3 the
// time, $4 the reason and detail, then each URL's hash and lastmod.
func ineligibleSQL(n int) string {
	return `INSERT INTO deliveries (site_id, url_hash, channel, lastmod, delivered_at, outcome, attempts, last_error, last_attempt)
		VALUES ` + valuesList(n, `$1, ?, $2, ?, NULL, 'ineligible', 1, $4, $3`) + `
		ON CONFLICT (site_id, url_hash, channel) DO UPDATE SET lastmod = excluded.lastmod, outcome = 'ineligible',
			attempts = 1, last_error = excluded.last_error, last_attempt = excluded.last_attempt`
}

// markPreflight keeps what a preflight found of an outcome's URLs, recorded already: 'ok' for
// those sent, else the reason, and the detail.
func (s *Store) markPreflight(ctx context.Context, tx *sql.Tx, site string, now time.Time, o channel.Outcome) error {
	verdict, detail := "ok", sql.NullString{}
	if o.Ineligible() {
		verdict, detail = o.Preflight.Reason, sql.NullString{String: clipped(o.Preflight.Detail), Valid: true}
	}
	hashes := make([]int64, len(o.URLs))
	for i, d := range o.URLs {
		hashes[i] = d.Hash
	}
	_, err := tx.ExecContext(ctx, `UPDATE deliveries SET preflight = $1, preflight_detail = $2, preflight_at = $3
		WHERE site_id = $4 AND channel = $5 AND `+s.inHashes("url_hash", 6), verdict, detail, now.UnixMilli(), site, o.Channel, s.hashParam(hashes))
	return err
}
