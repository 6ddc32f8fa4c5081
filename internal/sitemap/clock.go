package sitemap

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// errTimedOut is the cause an attempt's context is cancelled with when sitemap.timeout runs out.
var errTimedOut = errors.New("sitemap.timeout ran out")

// attemptClock is the deadline of one attempt at one sitemap: sitemap.timeout of the reader's own
// time — waiting for the network and parsing — stopped while the caller's fn runs. fn records
// what was read (for a run, a database write), which is no part of the download: a sitemap of a
// million URLs must not time out, and be downloaded again, because storing them took longer
// than fetching them. The run's own context still ends an attempt at once.
type attemptClock struct {
	timer   *time.Timer
	left    time.Duration
	started time.Time
	running bool
}

// startClock starts the clock of an attempt whose context cancel ends.
func startClock(timeout time.Duration, cancel context.CancelCauseFunc) *attemptClock {
	return &attemptClock{timer: time.AfterFunc(timeout, func() { cancel(errTimedOut) }),
		left: timeout, started: time.Now(), running: true}
}

// pause stops the clock, keeping what is left.
func (c *attemptClock) pause() {
	if c == nil || !c.running {
		return
	}
	c.running = false
	if c.timer.Stop() {
		c.left -= time.Since(c.started)
	}
}

// resume starts the clock again with what was left.
func (c *attemptClock) resume() {
	if c == nil || c.running {
		return
	}
	c.running = true
	c.started = time.Now()
	c.timer.Reset(max(c.left, 0))
}

// stop ends the clock for good.
func (c *attemptClock) stop() {
	c.running = false
	c.timer.Stop()
}

// timeoutError says an attempt ran out of sitemap.timeout.
func timeoutError(timeout time.Duration) error {
	return fmt.Errorf("no complete answer within %s (sitemap.timeout)", timeout)
}
