package server

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

func TestCache(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCache(time.Second)
		var calls atomic.Int32
		compute := func() (any, error) {
			n := calls.Add(1)
			time.Sleep(100 * time.Millisecond) // the store answering
			return n, nil
		}
		var wg sync.WaitGroup
		for range 10 {
			wg.Go(func() {
				if v, _ := c.get("k", compute); v != int32(1) {
					t.Errorf("a waiter got %v", v)
				}
			})
		}
		wg.Wait()
		if calls.Load() != 1 {
			t.Fatalf("10 callers at once computed %d times", calls.Load())
		}
		time.Sleep(2 * time.Second)
		// Stale: served at once, refreshed in the background.
		if v, _ := c.get("k", compute); v != int32(1) {
			t.Errorf("a stale answer: %v", v)
		}
		synctest.Wait()
		time.Sleep(200 * time.Millisecond)
		if v, _ := c.get("k", compute); v != int32(2) || calls.Load() != 2 {
			t.Errorf("after the refresh: %v, %d computations", v, calls.Load())
		}
		// Too old to be served: computed again before it is.
		time.Sleep(5 * time.Second)
		if v, _ := c.get("k", compute); v != int32(3) {
			t.Errorf("an answer older than stale: %v", v)
		}
		// Invalidated: the next caller waits for a fresh answer.
		c.invalidate()
		if v, _ := c.get("k", compute); v != int32(4) {
			t.Errorf("after invalidate: %v", v)
		}
		// Errors are not kept.
		fail := errors.New("database is locked")
		if _, err := c.get("e", func() (any, error) { return nil, fail }); err != fail {
			t.Errorf("error %v", err)
		}
		if v, err := c.get("e", func() (any, error) { return 7, nil }); v != 7 || err != nil {
			t.Errorf("after an error: %v %v", v, err)
		}
		// A panic is an error for every caller, not a hang.
		if _, err := c.get("p", func() (any, error) { panic("bug") }); err == nil {
			t.Error("a panic was no error")
		}
		if v, _ := c.get("p", func() (any, error) { return 8, nil }); v != 8 {
			t.Errorf("after a panic: %v", v)
		}
	})
}
