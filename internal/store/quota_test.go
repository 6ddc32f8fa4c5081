package store_test

import (
	"sync"
	"testing"

	"github.com/sitepush/sitepush/internal/store/storetest"
)

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
