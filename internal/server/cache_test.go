package server

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

func TestCache(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCache(time.Second, nil)
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

// TestCacheMark: an answer whose state did not change is renewed, not computed again — until
// the state changes, the answer is maxAge old, or its own time comes.
func TestCacheMark(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var state atomic.Value
		state.Store("1")
		var reads atomic.Int32
		c := newCache(time.Second, func(context.Context) (string, error) {
			reads.Add(1)
			return state.Load().(string), nil
		})
		var calls atomic.Int32
		var until time.Time
		compute := func() (any, time.Time, error) {
			return calls.Add(1), until, nil
		}
		get := func(want int32, why string) {
			t.Helper()
			v, err := c.getUntil("k", compute)
			synctest.Wait()
			if err != nil || v != want {
				t.Errorf("%s: %v %v, want %d", why, v, err, want)
			}
		}
		get(1, "first")
		for range 20 { // 20 s of clients asking every second, the state unchanged
			time.Sleep(time.Second)
			get(1, "unchanged")
		}
		if calls.Load() != 1 || reads.Load() > 22 {
			t.Errorf("unchanged state: %d computations, %d reads of the mark", calls.Load(), reads.Load())
		}
		time.Sleep(10 * time.Second) // too old to be served unchecked: checked before it is
		get(1, "unchanged, after a pause")
		state.Store("2")
		time.Sleep(1500 * time.Millisecond)
		get(1, "changed: the old answer while it is computed again")
		get(2, "changed: computed again")
		for range 70 {
			time.Sleep(time.Second)
			c.getUntil("k", compute)
			synctest.Wait()
		}
		if calls.Load() != 3 {
			t.Errorf("70 s unchanged: %d computations, want 3 (one at maxAge)", calls.Load())
		}
		until = time.Now().Add(5 * time.Second)
		c.invalidate()
		get(4, "after invalidate")
		for range 4 {
			time.Sleep(time.Second)
			get(4, "before its time")
		}
		time.Sleep(1500 * time.Millisecond)
		get(4, "its time came: the old answer while it is computed again")
		get(5, "its time came: computed again")
		state.Store("")
		c.invalidate()
		get(6, "a state that cannot tell")
		time.Sleep(1500 * time.Millisecond)
		get(6, "a state that cannot tell: the old answer while it is computed again")
		get(7, "a state that cannot tell: computed again")

		fixed := func(want int32, why string) {
			t.Helper()
			v, err := c.getFixed("f", func() (any, error) { return calls.Add(1), nil })
			synctest.Wait()
			if err != nil || v != want {
				t.Errorf("%s: %v %v, want %d", why, v, err, want)
			}
		}
		fixed(8, "fixed")
		for range 100 {
			time.Sleep(time.Second)
			fixed(8, "fixed: the state changes, the answer stays")
		}
		c.invalidate()
		fixed(9, "fixed, after invalidate")
	})
}
