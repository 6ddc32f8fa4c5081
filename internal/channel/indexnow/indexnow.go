// Package indexnow is the IndexNow channel: new and changed URLs POSTed in JSON batches (or sent
// one per GET) to every configured endpoint, each endpoint on its own, at its own pace, with the
// retries the protocol calls for.
package indexnow

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/runner"
)

const (
	name = "indexnow"
	// requestTimeout bounds one request to an engine.
	requestTimeout = 30 * time.Second
)

// Channel delivers a site's due URLs through IndexNow.
type Channel struct {
	cfg       config.IndexNow
	host      string // baseUrl's host, as the protocol's "host"
	client    *http.Client
	userAgent string
}

// New returns the IndexNow channel of a validated site.
func New(site *config.Site, client *http.Client, userAgent string) *Channel {
	host := site.BaseURL
	if u, err := url.Parse(site.BaseURL); err == nil {
		host = u.Host
	}
	return &Channel{cfg: site.IndexNow, host: host, client: client, userAgent: userAgent}
}

// Name is "indexnow".
func (c *Channel) Name() string { return name }

// Deliver sends every due URL to every endpoint: batches of batchSize in post mode, one URL a
// request in get mode, at most maxConcurrent requests in flight and interval between the starts of
// two, per endpoint. Each batch is reported delivered as soon as one endpoint accepts it.
func (c *Channel) Deliver(ctx context.Context, q *runner.Queue, rep runner.Reporter) error {
	size := c.cfg.BatchSize
	if c.cfg.Method == "get" {
		size = 1
	}
	jobs := (q.Len() + size - 1) / size
	t := &tracker{rep: rep, endpoints: len(c.cfg.Endpoints), jobs: map[int]*jobState{}}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	for _, u := range c.cfg.Endpoints {
		e := newEndpoint(u, c.cfg.Interval.D())
		for range max(c.cfg.MaxConcurrent, 1) {
			wg.Go(func() {
				if err := c.work(ctx, q, e, t, rep, size, jobs); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	return errors.Join(errs...)
}

// work takes the endpoint's next batch until there is none, or ctx ends.
func (c *Channel) work(ctx context.Context, q *runner.Queue, e *endpoint, t *tracker, rep runner.Reporter, size, jobs int) error {
	for {
		k := int(e.next.Add(1) - 1)
		if k >= jobs || ctx.Err() != nil {
			return nil
		}
		urls, err := q.Slice(ctx, k*size, (k+1)*size)
		if err != nil {
			return ctxOr(ctx, err)
		}
		ok, msg, aborted := c.submit(ctx, e, urls, rep)
		if aborted {
			return nil
		}
		if err := t.done(k, urls, ok, msg); err != nil {
			return err
		}
	}
}

// ctxOr drops an error caused by the end of ctx: the run is stopping, not failing.
func ctxOr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// submit delivers one batch to one endpoint, retrying as the answer allows. aborted means ctx
// ended while waiting to start or retry: the batch has no outcome on this endpoint.
func (c *Channel) submit(ctx context.Context, e *endpoint, urls []runner.Due, rep runner.Reporter) (ok bool, msg string, aborted bool) {
	sub, err := c.submission(urls)
	if err != nil {
		return false, err.Error(), false
	}
	for attempt := 0; ; attempt++ {
		if msg := e.broken(); msg != "" {
			return false, msg, false
		}
		if err := e.ready(ctx); err != nil {
			return false, "", true
		}
		start := time.Now()
		a := c.attempt(ctx, e.url, sub)
		rep.Requested(runner.Request{Channel: name, Endpoint: e.url, URLs: sub.n, Accepted: a.verdict == accepted,
			Status: a.status, Latency: time.Since(start)})
		switch a.verdict {
		case accepted:
			return true, "", false
		case refused:
			return false, a.msg, false
		case broken:
			e.breakWith(a.msg)
			return false, a.msg, false
		}
		if attempt >= c.cfg.MaxRetries {
			return false, fmt.Sprintf("%s (gave up after %d attempts)", a.msg, attempt+1), false
		}
		if err := c.wait(ctx, e, a, attempt); err != nil {
			return false, "", true
		}
	}
}

// wait sits out the pause before a retry: the engine's Retry-After or throttleWait after a 429
// (for every request to the endpoint), backoff[attempt] after a failure.
func (c *Channel) wait(ctx context.Context, e *endpoint, a answer, attempt int) error {
	if a.verdict == throttled {
		d := a.wait
		if d == 0 {
			d = c.cfg.ThrottleWait.D()
		}
		e.pause(d)
		return nil // ready() waits out the pause
	}
	d := time.Second
	if b := c.cfg.Backoff; len(b) > 0 {
		d = b[min(attempt, len(b)-1)].D()
	}
	return sleep(ctx, d)
}

// attempt makes one request. A request that has started is let finish even when ctx ends (what
// it delivers is recorded), within requestTimeout.
func (c *Channel) attempt(ctx context.Context, endpoint string, s submission) answer {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), requestTimeout)
	defer cancel()
	req, err := c.request(rctx, endpoint, s)
	if err != nil {
		return answer{verdict: broken, msg: fmt.Sprintf("indexnow endpoint %s: %v", endpoint, err)}
	}
	resp, err := c.client.Do(req)
	if err != nil {
		// The URL of a GET holds the key: say what failed without it.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return answer{verdict: retryLater, msg: fmt.Sprintf("%s could not be reached (%v); it is tried again next run", endpoint, err)}
	}
	defer resp.Body.Close()
	return c.judge(endpoint, resp)
}
