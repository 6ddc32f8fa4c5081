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

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/channel/preflight"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/human"
	"github.com/sitepush/sitepush/internal/model"
)

const (
	name = "indexnow"
	// requestTimeout bounds one request to an engine.
	requestTimeout = 30 * time.Second
)

// The run asks IndexNow what it can do: removal notices, and when it wants its URLs.
var _ channel.Selective = (*Channel)(nil)

// Channel delivers a site's due URLs through IndexNow, and the removal notices of the URLs gone
// from the site.
type Channel struct {
	cfg       config.IndexNow
	host      string // baseUrl's host, as the protocol's "host"
	client    *http.Client
	userAgent string
	// checker, when set, fetches each URL before it is sent and holds back those an engine would
	// not index (indexnow.preflight).
	checker *preflight.Checker
}

// New returns the IndexNow channel of a validated site.
func New(site *config.Site, client *http.Client, userAgent string) *Channel {
	return &Channel{cfg: site.IndexNow, host: site.Host(), client: client, userAgent: userAgent}
}

// Preflight makes the channel check each URL with pc before it sends it (indexnow.preflight).
func (c *Channel) Preflight(pc *preflight.Checker) { c.checker = pc }

// Preflighted returns the Checker given by Preflight, nil for none: the one a run's content
// checks share their fetches with (sitechannels.Pages).
func (c *Channel) Preflighted() *preflight.Checker { return c.checker }

// Name is "indexnow".
func (c *Channel) Name() string { return name }

// Selection declares what IndexNow does besides delivering due URLs: it takes removal notices
// when indexnow.removed is on (the protocol's way to say a URL is gone). It ranks nothing: a read
// of the sitemaps over several runs hands it its URLs as the read goes.
func (c *Channel) Selection(context.Context) channel.Selection {
	return channel.Selection{Removals: c.cfg.Removed}
}

// Deliver sends every due URL to every endpoint: batches of batchSize in post mode, one URL a
// request in get mode, at most maxConcurrent requests in flight and interval between the starts of
// two, per endpoint. Each batch is reported delivered as soon as one endpoint accepts it.
func (c *Channel) Deliver(ctx context.Context, q *channel.Queue, rep channel.Reporter) error {
	size := c.cfg.BatchSize
	if c.cfg.Method == "get" {
		size = 1
	}
	jobs := (q.Len() + size - 1) / size
	if c.checker != nil {
		rep = preflight.Checked(rep)
	}
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
	if c.preflightSpent() {
		rep.Noted(name, preflight.SpentNote)
	}
	return errors.Join(errs...)
}

// preflightSpent reports whether the client refused a page fetch of the channel's preflights
// (channel.ErrNoFetch): the batches not checked wait for a later run.
func (c *Channel) preflightSpent() bool { return c.checker != nil && c.checker.Spent() }

// work takes the endpoint's next batch until there is none, or ctx ends.
func (c *Channel) work(ctx context.Context, q *channel.Queue, e *endpoint, t *tracker, rep channel.Reporter, size, jobs int) error {
	for {
		k := int(e.next.Add(1) - 1)
		if k >= jobs || ctx.Err() != nil || c.preflightSpent() {
			return nil
		}
		urls, err := q.Slice(ctx, k*size, (k+1)*size)
		if err == nil && c.checker != nil {
			// Every endpoint checks the batch: the checker fetches each page once, and
			// reports each URL it holds back once.
			urls, _, err = c.checker.Split(ctx, preflight.IndexNow, urls, rep)
		}
		if err != nil {
			return channel.UnlessStopped(ctx, err)
		}
		if len(urls) == 0 {
			if err := t.done(k, nil, nil); err != nil {
				return err
			}
			continue
		}
		parts, aborted := c.deliver(ctx, e, urls, rep)
		if aborted {
			return nil
		}
		if err := t.done(k, urls, parts); err != nil {
			return err
		}
	}
}

// part is what an endpoint did with some URLs of a batch.
type part struct {
	urls     []channel.Due
	ok       bool
	rejected bool // refused on its own: the URL itself is at fault
	msg      string
}

// deliver sends a batch to an endpoint. When the endpoint refuses it (400, 422) and it holds more
// than one URL, the batch is halved and each half sent, down to the URLs at fault: one bad URL
// costs some 2·log₂(n) requests instead of failing the batch, and the next runs, for good. When
// both halves are refused alike, the cause is not in the URLs, and the whole batch fails.
func (c *Channel) deliver(ctx context.Context, e *endpoint, urls []channel.Due, rep channel.Reporter) ([]part, bool) {
	a, aborted := c.submit(ctx, e, urls, rep)
	switch {
	case aborted:
		return nil, true
	case a.verdict == accepted:
		return []part{{urls: urls, ok: true}}, false
	case a.verdict != refused:
		return []part{{urls: urls, msg: a.msg}}, false
	case len(urls) == 1:
		return []part{{urls: urls, rejected: true, msg: a.msg + " (the URL is not sent again until it changes)"}}, false
	}
	return c.bisect(ctx, e, urls, rep)
}

// bisect sends both halves of a refused batch, and halves further what is refused again.
func (c *Channel) bisect(ctx context.Context, e *endpoint, urls []channel.Due, rep channel.Reporter) ([]part, bool) {
	halves := [2][]channel.Due{urls[:len(urls)/2], urls[len(urls)/2:]}
	var answers [2]answer
	for i, h := range halves {
		a, aborted := c.submit(ctx, e, h, rep)
		if aborted {
			return nil, true
		}
		answers[i] = a
	}
	if answers[0].verdict == refused && answers[1].verdict == refused && answers[0].status == answers[1].status {
		return []part{{urls: urls, msg: answers[0].msg}}, false
	}
	var parts []part
	for i, h := range halves {
		switch a := answers[i]; {
		case a.verdict == accepted:
			parts = append(parts, part{urls: h, ok: true})
		case a.verdict == refused && len(h) == 1:
			parts = append(parts, part{urls: h, rejected: true, msg: a.msg + " (the URL is not sent again until it changes)"})
		case a.verdict == refused:
			sub, aborted := c.bisect(ctx, e, h, rep)
			if aborted {
				return nil, true
			}
			parts = append(parts, sub...)
		default:
			parts = append(parts, part{urls: h, msg: a.msg})
		}
	}
	return parts, false
}

// submit sends one batch to one endpoint, retrying as the answer allows, and returns the last
// answer. aborted means ctx ended while waiting to start or retry, or before an answer came.
func (c *Channel) submit(ctx context.Context, e *endpoint, urls []channel.Due, rep channel.Reporter) (answer, bool) {
	sub, err := c.submission(urls)
	if err != nil {
		return answer{verdict: broken, msg: err.Error()}, false
	}
	for attempt := 0; ; attempt++ {
		if msg := e.broken(); msg != "" {
			return answer{verdict: broken, msg: msg}, false
		}
		past, err := e.ready(ctx, rep)
		if err != nil {
			return answer{}, true
		}
		if past != nil {
			return settled(answer{verdict: throttled, status: past.status, msg: past.why}, rep.Later()), false
		}
		start := time.Now()
		a := c.attempt(ctx, e.url, sub)
		again := c.again(ctx, e, &a, attempt)
		rep.Requested(channel.Request{Channel: name, Endpoint: e.url, URLs: sub.n, Accepted: a.verdict == accepted,
			Status: a.status, Latency: time.Since(start), Retry: attempt > 0, Again: again})
		switch {
		case a.verdict == broken:
			e.breakWith(a.msg)
			return a, false
		case a.verdict == retryLater && a.status == 0 && ctx.Err() != nil:
			return answer{}, true // no answer before the run's end: the URLs stay due
		case !again:
			return settled(a, rep.Later()), false
		}
		if a.verdict == retryLater && a.asked == "" && channel.Sleep(ctx, c.backoff(attempt)) != nil {
			return answer{}, true
		}
	}
}

// settled ends the message of an answer that is final in this run with what becomes of its
// URLs: one that failed for now (a 5xx, a 429, no answer) leaves them due, as later says.
func settled(a answer, later model.Later) answer {
	if a.verdict == retryLater || a.verdict == throttled {
		a.msg += "; " + later.Again()
	}
	return a
}

// again pauses the endpoint as a 429 (or a 503 with Retry-After) asks, and says whether the URLs
// of an answer are to be tried again: after a 429, a 5xx or no answer, while retries are left and
// the pause ends within the run's budget — or when the run ended before an answer came, in the
// next run. An answer given up on says why in its message.
func (c *Channel) again(ctx context.Context, e *endpoint, a *answer, attempt int) bool {
	if a.verdict != throttled && a.verdict != retryLater {
		return false
	}
	if a.verdict == throttled || a.asked != "" {
		// Every 429 holds the endpoint: its other workers and later batches wait too. A 503
		// with Retry-After says when the engine is back, as a 429 does.
		e.pause(c.pauseFor(e.url, *a))
	}
	if a.status == 0 && ctx.Err() != nil {
		return true
	}
	if attempt >= c.cfg.MaxRetries {
		a.msg = fmt.Sprintf("%s (gave up after %s)", a.msg, human.Count(attempt+1, "attempt"))
		return false
	}
	if h, past := e.pastEnd(ctx); past {
		a.msg = h.why
		return false
	}
	return true
}

// pauseFor is the pause an answer asks of the endpoint: Retry-After, else (a 429 without one)
// throttleWait, at most maxPause.
func (c *Channel) pauseFor(endpoint string, a answer) hold {
	d, how := a.wait, "the engine asked to wait "+a.asked
	if a.asked == "" {
		d, how = min(c.cfg.ThrottleWait.D(), maxPause), fmt.Sprintf("it gave no Retry-After and indexnow.throttleWait is %v", c.cfg.ThrottleWait.D())
	}
	return hold{status: a.status, d: d, cause: fmt.Sprintf("HTTP %d from %s", a.status, endpoint),
		why: fmt.Sprintf("HTTP %d %s from %s: %s, past the end of the run's budget: not waited for",
			a.status, http.StatusText(a.status), endpoint, how)}
}

// backoff is the wait before retry attempt+1 after a failure: backoff[attempt], the last value
// repeating.
func (c *Channel) backoff(attempt int) time.Duration {
	if b := c.cfg.Backoff; len(b) > 0 {
		return b[min(attempt, len(b)-1)].D()
	}
	return time.Second
}

// attempt makes one request. A request that has started is let finish even when ctx ends (what
// it delivers is recorded), within requestTimeout and at most channel.RequestGrace past the end of
// the run's budget.
func (c *Channel) attempt(ctx context.Context, endpoint string, s submission) answer {
	rctx, cancel := channel.RequestContext(ctx, requestTimeout, channel.RequestGrace)
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
		what := fmt.Sprintf("could not be reached (%v)", err)
		if errors.Is(err, context.DeadlineExceeded) {
			what = fmt.Sprintf("did not answer within %v", requestTimeout)
		}
		return answer{verdict: retryLater, msg: fmt.Sprintf("%s %s", endpoint, what)}
	}
	defer resp.Body.Close()
	return c.judge(endpoint, resp)
}

// previewChunk is how many URLs a dry run checks at a time: what it holds in memory.
const previewChunk = 1000

// Preview checks, when the channel preflights, the URLs of q as Deliver would, reports those it
// holds back and takes them out of q. It holds none back for a quota: IndexNow has none.
func (c *Channel) Preview(ctx context.Context, q *channel.Queue, rep channel.Reporter) (held int) {
	if c.checker == nil {
		return 0
	}
	dropped := map[int64]bool{}
	for pos := 0; pos < q.Len() && ctx.Err() == nil; pos += previewChunk {
		urls, err := q.Slice(ctx, pos, pos+previewChunk)
		if err == nil {
			_, out, serr := c.checker.Split(ctx, preflight.IndexNow, urls, rep)
			for _, d := range out {
				dropped[d.Hash] = true
			}
			err = serr
		}
		if err != nil {
			rep.Failed(name, err.Error())
			break
		}
	}
	q.Drop(dropped)
	return 0
}
