package kvstate

import (
	"context"
	"time"

	"github.com/sitepush/sitepush/internal/model"
)

// quotaDay is the value of `bing:quota:{id}:{day}`, as the original design kept it: what a site
// used of its Bing quota on a UTC day, and whether Bing refused for quota; with, once Bing
// answered that day, its latest answer and what was used then (model.BingDay).
type quotaDay struct {
	Used         int  `json:"used"`
	Full         bool `json:"full,omitempty"`
	Told         bool `json:"told,omitempty"`
	BingLeft     int  `json:"bingLeft,omitempty"`
	UsedWhenTold int  `json:"usedWhenTold,omitempty"`

	dirty   bool
	written time.Time
}

// quotaTTL keeps a day's quota a day past its end.
const quotaTTL = 48 * time.Hour

// quotaWrites is the least time between two writes of one quota key: Workers KV takes one write
// per second per key, and the Bing channel reserves before every batch.
const quotaWrites = 1100 * time.Millisecond

func quotaKey(site, day string) string { return "bing:quota:" + site + ":" + day }

// quotaOf returns a site's quota of day, read once; s.mu is held.
func (s *State) quotaOf(ctx context.Context, st *site, day string) (*quotaDay, error) {
	if q := st.quota[day]; q != nil {
		return q, nil
	}
	q := &quotaDay{}
	if _, err := s.getOrDrop(ctx, quotaKey(st.id, day), q, "the site's Bing quota of the day is counted again from 0 (Bing's own refusal still stops the day)"); err != nil {
		return nil, err
	}
	st.quota[day] = q
	return q, nil
}

// writeQuota writes a day's quota when it changed — at once when final, else at most once per
// quotaWrites; s.mu is held.
func (s *State) writeQuota(ctx context.Context, st *site, day string, q *quotaDay, final bool) error {
	if !q.dirty || !final && time.Since(q.written) < quotaWrites {
		return nil
	}
	if wait := quotaWrites - time.Since(q.written); wait > 0 {
		time.Sleep(wait) // a final write waits its turn rather than fail
	}
	if err := s.putJSON(ctx, quotaKey(st.id, day), q, quotaTTL); err != nil {
		return err
	}
	q.dirty, q.written = false, time.Now()
	return nil
}

// ReserveQuota takes up to n URLs of site's quota for day, never letting the day's total pass
// limit, and returns how many it took: 0 once the quota is spent or Bing refused for quota. KV
// has no atomic operation: invocations running the same site at once (which its lease prevents
// but for KV's propagation delay) could together pass the quota; Bing's own refusal then stops
// the day.
func (s *State) ReserveQuota(ctx context.Context, site, day string, n, limit int) (_ int, err error) {
	defer failed(&err, "reserving Bing quota", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.siteOf(site)
	q, err := s.quotaOf(ctx, st, day)
	if err != nil {
		return 0, err
	}
	granted := max(0, min(n, limit-q.Used))
	if q.Full || granted == 0 {
		return 0, nil
	}
	q.Used += granted
	q.dirty = true
	return granted, s.writeQuota(ctx, st, day, q, false)
}

// ReleaseQuota gives back n URLs reserved and not sent.
func (s *State) ReleaseQuota(ctx context.Context, site, day string, n int) (err error) {
	defer failed(&err, "giving Bing quota back", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.siteOf(site)
	q, err := s.quotaOf(ctx, st, day)
	if err != nil {
		return err
	}
	q.Used, q.dirty = max(0, q.Used-n), true
	return s.writeQuota(ctx, st, day, q, false)
}

// MarkQuotaFull records that Bing refused site's submissions for quota on day, at once.
func (s *State) MarkQuotaFull(ctx context.Context, site, day string) (err error) {
	defer failed(&err, "marking the Bing quota spent", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.siteOf(site)
	q, err := s.quotaOf(ctx, st, day)
	if err != nil {
		return err
	}
	q.Full, q.dirty = true, true
	return s.writeQuota(ctx, st, day, q, true)
}

// RecordBingLeft keeps Bing's answer of site's quota left on day, with what the day has used at
// that moment. It is written with the day's next reservation, or when the tick ends: no KV write
// of its own.
func (s *State) RecordBingLeft(ctx context.Context, site, day string, left int) (err error) {
	defer failed(&err, "keeping what Bing said of its quota", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	q, err := s.quotaOf(ctx, s.siteOf(site), day)
	if err != nil {
		return err
	}
	q.Told, q.BingLeft, q.UsedWhenTold, q.dirty = true, left, q.Used, true
	return nil
}

// QuotaDay returns what is kept of site's quota of day: zero for a day without any.
func (s *State) QuotaDay(ctx context.Context, site, day string) (_ model.BingDay, err error) {
	defer failed(&err, "reading the Bing quota", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	q, err := s.quotaOf(ctx, s.siteOf(site), day)
	if err != nil {
		return model.BingDay{}, err
	}
	return model.BingDay{Used: q.Used, Full: q.Full, Told: q.Told, BingLeft: q.BingLeft, UsedWhenTold: q.UsedWhenTold}, nil
}
