package server

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// cache keeps computed answers so that many clients asking at once cost the store one query per
// answer, and an idle state costs it next to nothing. The first caller of a key computes while
// the others wait for its result. An answer older than ttl but younger than stale is served while
// a background refresh makes it fresh again; an older one is made fresh before it is served.
//
// Making an answer fresh costs one small query when the state did not change: an answer
// remembers the state's mark (store.Mark) read before it was computed, and while the state's
// mark is the same it is renewed rather than computed again — up to maxAge, and not past the
// time it was computed to change by itself (until: a scheduled run's time). Otherwise, or when
// the state cannot tell (an empty mark), it is computed again. invalidate (a run of this process
// started or ended, a site changed) makes the next callers wait for a fresh answer. An answer is
// thus at most stale old, changes made by other instances included. getFixed keeps what the
// state's changes do not change (past days' statistics, under a key naming the day) until
// invalidate.
type cache struct {
	ttl, stale, maxAge time.Duration
	// mark reads the state's mark; nil when answers do not come from the state.
	mark    func(context.Context) (string, error)
	mu      sync.Mutex
	gen     uint64
	entries map[string]*entry
	// seen is the state's mark as last read, at seenAt: read at most twice a ttl.
	markMu sync.Mutex
	seen   string
	seenAt time.Time
}

type entry struct {
	ready      chan struct{} // closed once the first answer is in
	gen        uint64
	at         time.Time // when the answer was computed or found unchanged
	made       time.Time // when it was computed
	until      time.Time // when it changes by itself; zero: never
	mark       string    // the state's mark before it was computed
	fixed      bool      // kept whatever the state's mark (getFixed)
	value      any
	err        error
	refreshing bool
}

// maxEntries bounds the answers kept; past it, those too old to be served are dropped.
const maxEntries = 1000

// maxAge bounds how long an answer is renewed without being computed again, for what changes
// without a write: a lease left by a process that died, Bing's word on its quota.
const maxAge = time.Minute

// computeFunc computes an answer, and the time it changes by itself (zero: never).
type computeFunc func() (any, time.Time, error)

func newCache(ttl time.Duration, mark func(context.Context) (string, error)) *cache {
	return &cache{ttl: ttl, stale: 3 * ttl, maxAge: maxAge, mark: mark, entries: map[string]*entry{}}
}

// get returns the answer cached under key, computing it when there is none or it is too old.
// Errors are not kept.
func (c *cache) get(key string, compute func() (any, error)) (any, error) {
	return c.lookup(key, false, never(compute))
}

// getUntil is get for answers that change by themselves at a time compute returns.
func (c *cache) getUntil(key string, compute computeFunc) (any, error) {
	return c.lookup(key, false, compute)
}

// getFixed is get for answers the state's changes do not change: the past days' statistics,
// whose key names the day. They are computed again only after invalidate.
func (c *cache) getFixed(key string, compute func() (any, error)) (any, error) {
	return c.lookup(key, true, never(compute))
}

// never is compute for an answer that does not change by itself.
func never(compute func() (any, error)) computeFunc {
	return func() (any, time.Time, error) {
		v, err := compute()
		return v, time.Time{}, err
	}
}

func (c *cache) lookup(key string, fixed bool, compute computeFunc) (any, error) {
	c.mu.Lock()
	e := c.entries[key]
	if e != nil && e.gen == c.gen {
		select {
		case <-e.ready:
			age := time.Since(e.at)
			if age < c.stale {
				if age >= c.ttl && !e.refreshing {
					e.refreshing = true
					go c.refresh(key, e, compute)
				}
				v, err := e.value, e.err
				c.mu.Unlock()
				return v, err
			}
			c.mu.Unlock()
			renewed := c.renewed(e)
			c.mu.Lock()
			if renewed {
				defer c.mu.Unlock()
				return e.value, e.err
			}
		default:
			c.mu.Unlock()
			<-e.ready
			c.mu.Lock()
			defer c.mu.Unlock()
			return e.value, e.err
		}
	}
	if len(c.entries) >= maxEntries {
		c.sweep()
	}
	e = &entry{ready: make(chan struct{}), gen: c.gen, fixed: fixed}
	c.entries[key] = e
	c.mu.Unlock()
	mark := c.stateMark()
	v, until, err := safely(compute)
	c.mu.Lock()
	defer c.mu.Unlock()
	e.value, e.err, e.until, e.mark = v, err, until, mark
	e.at = time.Now()
	e.made = e.at
	if err != nil && c.entries[key] == e {
		delete(c.entries, key)
	}
	close(e.ready)
	return v, err
}

// refresh makes an answer older than ttl fresh: renewed when the state did not change, else
// computed again; on an error the old one stays until it is too old.
func (c *cache) refresh(key string, e *entry, compute computeFunc) {
	if c.renewed(e) {
		c.mu.Lock()
		defer c.mu.Unlock()
		e.refreshing = false
		return
	}
	mark := c.stateMark()
	v, until, err := safely(compute)
	c.mu.Lock()
	defer c.mu.Unlock()
	e.refreshing = false
	if err == nil && c.entries[key] == e {
		e.value, e.until, e.mark = v, until, mark
		e.at = time.Now()
		e.made = e.at
	}
}

// renewed makes e fresh without computing it when it is still true — fixed, or the state's mark
// the same as when it was computed and the answer neither too old nor past its until — and
// reports whether it did. The caller does not hold c.mu: the state's mark may be read.
func (c *cache) renewed(e *entry) bool {
	c.mu.Lock()
	fixed, mark, made, until := e.fixed, e.mark, e.made, e.until
	c.mu.Unlock()
	if !fixed {
		now := time.Now()
		if mark == "" || now.Sub(made) >= c.maxAge || !until.IsZero() && !now.Before(until) || c.stateMark() != mark {
			return false
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e.at = time.Now()
	return true
}

// stateMark returns the state's mark, read again when the last reading is older than half a
// ttl; "" when it cannot be told.
func (c *cache) stateMark() string {
	if c.mark == nil {
		return ""
	}
	c.markMu.Lock()
	defer c.markMu.Unlock()
	if time.Since(c.seenAt) < c.ttl/2 {
		return c.seen
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	m, err := c.mark(ctx)
	if err != nil {
		m = ""
	}
	c.seen, c.seenAt = m, time.Now()
	return m
}

// safely turns a panic of compute into an error, so that callers waiting for it are answered.
func safely(compute computeFunc) (v any, until time.Time, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("computing the answer failed: %v", p)
		}
	}()
	return compute()
}

// sweep drops the answers too old to be served; the caller holds c.mu.
func (c *cache) sweep() {
	for k, e := range c.entries {
		select {
		case <-e.ready:
			if time.Since(e.at) >= c.stale {
				delete(c.entries, k)
			}
		default:
		}
	}
}

func (c *cache) invalidate() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	clear(c.entries)
}
