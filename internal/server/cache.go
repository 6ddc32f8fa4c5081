package server

import (
	"sync"
	"time"
)

// cache keeps computed answers so that many clients asking at once cost the store one query per
// answer and per ttl. The first caller of a key computes while the others wait for its result; an
// answer older than ttl is still served while one caller's request refreshes it in the background,
// so that no request waits on the store once an answer exists. invalidate (a run of this process
// ended, a site changed) makes the next callers wait for a fresh answer; changes made by other
// instances show within ttl.
type cache struct {
	ttl     time.Duration
	mu      sync.Mutex
	gen     uint64
	entries map[string]*entry
}

type entry struct {
	ready      chan struct{} // closed once the first answer is in
	gen        uint64
	at         time.Time
	value      any
	err        error
	refreshing bool
}

func newCache(ttl time.Duration) *cache {
	return &cache{ttl: ttl, entries: map[string]*entry{}}
}

// get returns the answer cached under key, computing it when there is none. Errors are not kept.
func (c *cache) get(key string, compute func() (any, error)) (any, error) {
	c.mu.Lock()
	e := c.entries[key]
	if e != nil && e.gen == c.gen {
		select {
		case <-e.ready:
			if !e.refreshing && time.Since(e.at) >= c.ttl {
				e.refreshing = true
				go c.refresh(key, e, compute)
			}
			v, err := e.value, e.err
			c.mu.Unlock()
			return v, err
		default:
			c.mu.Unlock()
			<-e.ready
			c.mu.Lock()
			defer c.mu.Unlock()
			return e.value, e.err
		}
	}
	e = &entry{ready: make(chan struct{}), gen: c.gen}
	c.entries[key] = e
	c.mu.Unlock()
	v, err := compute()
	c.mu.Lock()
	defer c.mu.Unlock()
	e.value, e.err, e.at = v, err, time.Now()
	if err != nil && c.entries[key] == e {
		delete(c.entries, key)
	}
	close(e.ready)
	return v, err
}

// refresh computes a stale answer again; on an error the stale one stays until the next try.
func (c *cache) refresh(key string, e *entry, compute func() (any, error)) {
	v, err := compute()
	c.mu.Lock()
	defer c.mu.Unlock()
	e.refreshing = false
	if err == nil && c.entries[key] == e {
		e.value, e.at = v, time.Now()
	}
}

func (c *cache) invalidate() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	clear(c.entries)
}
