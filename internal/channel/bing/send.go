package bing

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
)

// stop says why a batch ended Bing's delivery for this run, if it did.
type stop int

const (
	goOn      stop = iota
	quotaFull      // Bing refused for quota: nothing more goes today
	keyFailed      // Bing refused the key or the site: nothing more goes
)

// batch sends urls (reserved already) and reports the outcome. An invalid URL is rejected and
// the rest of the batch sent again. msg says why when it stops.
func (c *Channel) batch(ctx context.Context, urls []channel.Due, rep channel.Reporter) (stop, string, error) {
	release := func(n int) { c.quota.ReleaseQuota(context.WithoutCancel(ctx), c.site, c.day, n) }
	for len(urls) > 0 {
		a, aborted := c.send(ctx, urls, rep)
		switch {
		case aborted:
			release(len(urls))
			return goOn, "", nil
		case a.verdict == accepted:
			return goOn, "", rep.Finished(channel.Outcome{Channel: name, URLs: urls, Delivered: true})
		case a.verdict == quotaSpent:
			release(len(urls))
			c.quota.MarkQuotaFull(context.WithoutCancel(ctx), c.site, c.day)
			return quotaFull, a.msg, nil
		case a.verdict == badKey:
			release(len(urls))
			rep.Failed(name, a.msg)
			return keyFailed, a.msg, nil
		case a.verdict == badURL:
			release(len(urls))
			bad, ok := c.culprit(urls, a.badURL)
			if !ok {
				return c.oneByOne(ctx, urls, rep)
			}
			if err := rep.Finished(channel.Outcome{Channel: name, URLs: []channel.Due{bad}, Err: a.msg, Rejected: true}); err != nil {
				return goOn, "", err
			}
			urls = slices.DeleteFunc(urls, func(d channel.Due) bool { return d == bad })
			// What is left is sent again, within a fresh reservation.
			var err error
			if urls, err = c.rereserve(ctx, urls); err != nil {
				return goOn, "", err
			}
		default:
			release(len(urls))
			return goOn, "", rep.Finished(channel.Outcome{Channel: name, URLs: urls, Err: a.msg})
		}
	}
	return goOn, "", nil
}

// culprit returns the URL an InvalidUrl answer is about: the one Bing named, or the batch's only
// one. ok is false when that cannot be told.
func (c *Channel) culprit(urls []channel.Due, named string) (channel.Due, bool) {
	for _, d := range urls {
		if d.URL == named {
			return d, true
		}
	}
	if len(urls) == 1 {
		return urls[0], true
	}
	return channel.Due{}, false
}

// oneByOne sends urls one per request, each within its own reservation, to find which one Bing
// refuses when it does not say.
func (c *Channel) oneByOne(ctx context.Context, urls []channel.Due, rep channel.Reporter) (stop, string, error) {
	for i, d := range urls {
		one, err := c.rereserve(ctx, []channel.Due{d})
		if err != nil || len(one) == 0 {
			if err == nil {
				rep.HeldBack(name, len(urls)-i, fmt.Sprintf("the daily quota of %d URLs is spent until 00:00 UTC", c.limit))
			}
			return goOn, "", err
		}
		if stop, msg, err := c.batch(ctx, one, rep); err != nil || stop != goOn {
			return stop, msg, err
		}
	}
	return goOn, "", nil
}

// rereserve reserves urls again after a batch lost some; it keeps those the quota still allows.
func (c *Channel) rereserve(ctx context.Context, urls []channel.Due) ([]channel.Due, error) {
	granted, err := c.quota.ReserveQuota(ctx, c.site, c.day, len(urls), c.limit)
	if err != nil {
		return nil, channel.UnlessStopped(ctx, err)
	}
	return urls[:granted], nil
}

// send makes one batch's requests, retrying after 5xx, network errors and 429s. aborted means
// ctx ended while waiting to retry, or before an answer came.
func (c *Channel) send(ctx context.Context, urls []channel.Due, rep channel.Reporter) (a answer, aborted bool) {
	list := make([]string, len(urls))
	for i, d := range urls {
		list[i] = d.URL
	}
	for attempt := 0; ; attempt++ {
		if wait := time.Until(c.pausedUntil); wait > 0 {
			if c.pastEnd(ctx) {
				return answer{verdict: refused, status: http.StatusTooManyRequests, msg: c.pauseWhy + "; " + rep.Later().Again()}, false
			}
			rep.Waiting(name, c.pauseCause, wait)
			if channel.Sleep(ctx, wait) != nil {
				return a, true
			}
		}
		start := time.Now()
		a = c.attempt(ctx, list)
		again := c.again(ctx, &a, attempt, rep.Later())
		rep.Requested(channel.Request{Channel: name, Endpoint: c.cfg.Endpoint, URLs: len(list), Accepted: a.verdict == accepted,
			Status: a.status, Latency: time.Since(start), Retry: attempt > 0, Again: again})
		switch {
		case a.verdict == retryLater && a.status == 0 && ctx.Err() != nil:
			return a, true // no answer before the run's end: the URLs stay due
		case !again:
			return a, false
		}
		if a.verdict == retryLater && a.asked == "" && channel.Sleep(ctx, backoff[min(attempt, len(backoff)-1)]) != nil {
			return a, true
		}
	}
}

// again pauses the requests to Bing as a 429 (or a 503 with Retry-After) asks, and says whether
// the URLs of an answer are to be tried again: after a 429, a 5xx or no answer, while retries are
// left and the pause ends within the run's budget — or when the run ended before an answer came,
// in the next run. An answer given up on is refused, and says why and, as later words it, what
// becomes of its URLs.
func (c *Channel) again(ctx context.Context, a *answer, attempt int, later model.Later) bool {
	if a.verdict != retryLater && a.verdict != throttled {
		return false
	}
	if a.verdict == throttled || a.asked != "" {
		// Every 429 (and a 503 that says when to come back) holds the next requests, this
		// batch's and the next batches'.
		c.pause(*a)
	}
	switch {
	case a.status == 0 && ctx.Err() != nil:
		return true
	case attempt >= maxRetries:
		a.verdict, a.msg = refused, fmt.Sprintf("%s (gave up after %d attempts); %s", a.msg, attempt+1, later.Again())
		return false
	case c.pastEnd(ctx):
		a.verdict, a.msg = refused, c.pauseWhy+"; "+later.Again()
		return false
	}
	return true
}

// pastEnd reports whether the pause holds Bing's requests beyond ctx's deadline (the run's
// budget): no request is made in this run.
func (c *Channel) pastEnd(ctx context.Context) bool {
	end, ok := ctx.Deadline()
	return ok && c.pausedUntil.After(end)
}

// pause holds the requests to Bing as a 429 (or a 503 with Retry-After) asks: Retry-After, else
// throttleWait, at most maxPause.
func (c *Channel) pause(a answer) {
	d, how := a.wait, "Bing asked to wait "+a.asked
	if a.asked == "" {
		d, how = throttleWait, fmt.Sprintf("Bing gave no Retry-After, and sitepush waits %v after a 429", throttleWait)
	}
	if until := time.Now().Add(d); until.After(c.pausedUntil) {
		c.pausedUntil = until
		c.pauseCause = fmt.Sprintf("HTTP %d from %s", a.status, c.cfg.Endpoint)
		if a.status != http.StatusTooManyRequests && a.verdict == throttled {
			c.pauseCause = fmt.Sprintf("HTTP %d, ErrorCode %d (ThrottleUser), from %s", a.status, codeThrottleUser, c.cfg.Endpoint)
		}
		c.pauseWhy = fmt.Sprintf("%s: %s, past the end of the run's budget: not waited for", a.cause, how)
	}
}

// attempt makes one request; once started it is let finish even if ctx ends (what it delivers is
// recorded), within requestTimeout for the whole answer, its body too, and at most channel.RequestGrace past the end of the run's
// budget.
func (c *Channel) attempt(ctx context.Context, urls []string) answer {
	rctx, cancel := channel.RequestContext(ctx, requestTimeout, channel.RequestGrace)
	defer cancel()
	req, err := c.submitRequest(rctx, urls)
	if err != nil {
		return answer{verdict: refused, msg: err.Error()}
	}
	resp, err := c.client.Do(req)
	if err != nil {
		what := fmt.Sprintf("did not answer (%v)", withoutURL(err))
		if errors.Is(err, context.DeadlineExceeded) {
			what = fmt.Sprintf("did not answer within %v", requestTimeout)
		}
		return answer{verdict: retryLater, msg: fmt.Sprintf("Bing at %s %s", c.cfg.Endpoint, what)}
	}
	defer resp.Body.Close()
	a := c.judge(resp)
	if a.broke != nil && rctx.Err() != nil {
		a.msg = fmt.Sprintf("Bing at %s began its answer (HTTP %d) and had not ended it within %v", c.cfg.Endpoint, a.status, requestTimeout)
	}
	return a
}

func isInvalidKey(err error) bool { return errors.Is(err, ErrInvalidKey) }
