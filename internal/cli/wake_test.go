package cli

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

func TestAtMostEvery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var calls atomic.Int32
		wake := atMostEvery(time.Second, func() { calls.Add(1) })
		wake()
		if calls.Load() != 1 {
			t.Fatalf("a lone call made %d calls, want 1 at once", calls.Load())
		}
		for range 100 { // a burst: one call at the end of the period
			wake()
		}
		if calls.Load() != 1 {
			t.Errorf("a burst within the period made %d calls at once", calls.Load())
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if calls.Load() != 2 {
			t.Errorf("after the period: %d calls, want 2", calls.Load())
		}
		time.Sleep(time.Second) // nothing called meanwhile: nothing more, and the next call is at once
		synctest.Wait()
		wake()
		if calls.Load() != 3 {
			t.Errorf("a call after a quiet period: %d calls, want 3", calls.Load())
		}
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if calls.Load() != 3 {
			t.Errorf("nothing called: %d calls, want 3", calls.Load())
		}
	})
}
