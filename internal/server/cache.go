package server

import (
	"fmt"
	"sync"
	"time"
)

// cache keeps computed answers so that many clients asking at once cost the store one query per
// answer and per ttl. The first caller of a key computes while the others wait for its result. An
// answer older than ttl but younger than stale is served while a background refresh computes it
// again, so that a busy server never makes a request wait on the store; an older one is computed
// again before it is served. invalidate (a run of this process started or ended, a site changed)
// makes the next callers wait for a fresh answer. An answer is thus at most stale old, changes
// made by other instances included.
type cache struct {
	ttl, stale time.Duration
	mu         sync.Mutex
	gen        uint64
	entries    map[string]*entry
}

type entry struct {
	ready      chan struct{} // closed once the first answer is in
	gen        uint64
	at         time.Time
	value      any
	err        error
	refreshing bool
}

// maxEntries bounds the answers kept; past it, those too old to be served are dropped.
const maxEntries = 1000

func newCache(ttl time.Duration) *cache {
	return &cache{ttl: ttl, stale: 3 * ttl, entries: map[string]*entry{}}
}

// get returns the answer cached under key, computing it when there is none or it is too old.
// Errors are not kept.
func (c *cache) get(key string, compute func() (any, error)) (any, error) {
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
	e = &entry{ready: make(chan struct{}), gen: c.gen}
	c.entries[key] = e
	c.mu.Unlock()
	v, err := safely(compute)
	c.mu.Lock()
	defer c.mu.Unlock()
	e.value, e.err, e.at = v, err, time.Now()
	if err != nil && c.entries[key] == e {
		delete(c.entries, key)
	}
	close(e.ready)
	return v, err
}

// refresh computes a stale answer again; on an error the stale one stays until it is too old.
func (c *cache) refresh(key string, e *entry, compute func() (any, error)) {
	v, err := safely(compute)
	c.mu.Lock()
	defer c.mu.Unlock()
	e.refreshing = false
	if err == nil && c.entries[key] == e {
		e.value, e.at = v, time.Now()
	}
}

// safely turns a panic of compute into an error, so that callers waiting for it are answered.
func safely(compute func() (any, error)) (v any, err error) {
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
