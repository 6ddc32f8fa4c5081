package indexnow

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/sitepush/sitepush/internal/channel"
)

// endpoint is one engine's IndexNow endpoint during a run: its pace, its pauses and, once it has
// answered in a way no request can get past (a key it rejects), why it is given up.
type endpoint struct {
	url     string
	limiter *rate.Limiter
	next    atomic.Int64 // the next batch its workers take

	mu          sync.Mutex
	pausedUntil time.Time
	pauseWhy    string
	brokenMsg   string
}

func newEndpoint(url string, interval time.Duration) *endpoint {
	lim := rate.NewLimiter(rate.Inf, 1)
	if interval > 0 {
		lim = rate.NewLimiter(rate.Every(interval), 1)
	}
	return &endpoint{url: url, limiter: lim}
}

// ready waits until a request may start: after the endpoint's pause — which another worker's
// 429 may extend meanwhile — and its interval. When the pause ends after ctx's deadline (the
// run's budget), it does not wait: past says why, and no request is to be made.
func (e *endpoint) ready(ctx context.Context) (past string, err error) {
	for {
		e.mu.Lock()
		until, why := e.pausedUntil, e.pauseWhy
		e.mu.Unlock()
		wait := time.Until(until)
		if wait <= 0 {
			return "", e.limiter.Wait(ctx)
		}
		if end, ok := ctx.Deadline(); ok && until.After(end) {
			return why, nil
		}
		if err := channel.Sleep(ctx, wait); err != nil {
			return "", err
		}
	}
}

// pause holds every request to the endpoint for d, as a 429 asks; why is what a request that
// cannot wait that long within the run's budget is told.
func (e *endpoint) pause(d time.Duration, why string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if until := time.Now().Add(d); until.After(e.pausedUntil) {
		e.pausedUntil, e.pauseWhy = until, why
	}
}

// breakWith gives the endpoint up for the rest of the run; broken says why.
func (e *endpoint) breakWith(msg string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.brokenMsg == "" {
		e.brokenMsg = msg
	}
}

func (e *endpoint) broken() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.brokenMsg
}
