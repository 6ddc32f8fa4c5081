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
	held        hold      // what paused it last
	told        time.Time // the end of the last pause the reporter was told of
	brokenMsg   string
}

// hold is a pause an answer asks of an endpoint: a 429, or a 503 with Retry-After.
type hold struct {
	status int
	d      time.Duration
	cause  string // the answer, as the reporter is told of it: "HTTP 429 from …"
	why    string // what a batch that cannot wait that long within the run's budget is told
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
// run's budget), it does not wait: past is the answer that paused it, and no request is to be
// made. The first worker to wait out a pause tells rep of it; the others wait along.
func (e *endpoint) ready(ctx context.Context, rep channel.Reporter) (past *hold, err error) {
	for {
		until, h, tell := e.pending()
		wait := time.Until(until)
		if wait <= 0 {
			return nil, e.limiter.Wait(ctx)
		}
		if end, ok := ctx.Deadline(); ok && until.After(end) {
			return &h, nil
		}
		if tell {
			rep.Waiting(name, h.cause, wait)
		}
		if err := channel.Sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// pastEnd returns the pause that holds the endpoint beyond ctx's deadline (the run's budget), if
// one does: no request is made to it in this run.
func (e *endpoint) pastEnd(ctx context.Context) (hold, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	end, ok := ctx.Deadline()
	return e.held, ok && e.pausedUntil.After(end)
}

// pending is the end of the endpoint's pause and what caused it. tell is set for the first
// worker to see that pause: it is to tell of it. (A pause too long for the run's budget is
// waited by none, and told by none: they all see the same deadline.)
func (e *endpoint) pending() (until time.Time, h hold, tell bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if tell = e.pausedUntil.After(e.told); tell {
		e.told = e.pausedUntil
	}
	return e.pausedUntil, e.held, tell
}

// pause holds every request to the endpoint as h asks.
func (e *endpoint) pause(h hold) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if until := time.Now().Add(h.d); until.After(e.pausedUntil) {
		e.pausedUntil, e.held = until, h
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
