package store_test

import (
	"sync"
	"testing"

	"github.com/sitepush/sitepush/internal/store/storetest"
)

func TestQuota(t *testing.T) {
	s := storetest.Open(t)
	got := func(n, limit int) int {
		t.Helper()
		g, err := s.ReserveQuota(ctx, "a", "2026-03-01", n, limit)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	if g := got(100, 120); g != 100 {
		t.Errorf("first reservation %d, want 100", g)
	}
	if g := got(100, 120); g != 20 {
		t.Errorf("second reservation %d, want the 20 left", g)
	}
	if g := got(1, 120); g != 0 {
		t.Errorf("reservation past the quota: %d", g)
	}
	s.ReleaseQuota(ctx, "a", "2026-03-01", 15)
	if used, full, _ := s.QuotaUsed(ctx, "a", "2026-03-01"); used != 105 || full {
		t.Errorf("after a release: used %d full %v", used, full)
	}
	if g := got(100, 150); g != 45 {
		t.Errorf("a higher limit (config changed) grants %d, want 45", g)
	}
	if g, _ := s.ReserveQuota(ctx, "a", "2026-03-02", 10, 120); g != 10 {
		t.Errorf("a new day starts afresh: %d", g)
	}
	if g, _ := s.ReserveQuota(ctx, "b", "2026-03-01", 10, 120); g != 10 {
		t.Errorf("sites do not share a quota: %d", g)
	}
	s.MarkQuotaFull(ctx, "a", "2026-03-02")
	if g, _ := s.ReserveQuota(ctx, "a", "2026-03-02", 10, 120); g != 0 {
		t.Errorf("a full day granted %d", g)
	}
	if used, full, _ := s.QuotaUsed(ctx, "a", "2026-03-02"); used != 10 || !full {
		t.Errorf("full day: used %d full %v", used, full)
	}
	s.MarkQuotaFull(ctx, "c", "2026-03-03")
	if used, full, _ := s.QuotaUsed(ctx, "c", "2026-03-03"); used != 0 || !full {
		t.Errorf("full before any reservation: used %d full %v", used, full)
	}
	if used, full, err := s.QuotaUsed(ctx, "x", "2026-03-01"); used != 0 || full || err != nil {
		t.Errorf("unknown site: %d %v %v", used, full, err)
	}
	s.ReleaseQuota(ctx, "b", "2026-03-01", 1000)
	if used, _, _ := s.QuotaUsed(ctx, "b", "2026-03-01"); used != 0 {
		t.Errorf("releasing more than reserved: used %d", used)
	}
}

func TestQuotaIsNeverExceededConcurrently(t *testing.T) {
	s := storetest.Open(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for range 10 {
		wg.Go(func() {
			for range 10 {
				g, err := s.ReserveQuota(ctx, "a", "2026-03-01", 7, 150)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				total += g
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if total != 150 {
		t.Errorf("granted %d in all, want exactly the quota of 150", total)
	}
}
