// Package bing is the Bing Webmaster channel: due URLs submitted through SubmitUrlbatch within
// the site's daily quota — reserved atomically in the store before each request, so that runs in
// several processes never exceed it — newest first or at random.
package bing

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/channel/preflight"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/human"
	"github.com/sitepush/sitepush/internal/model"
)

const (
	name = "bing"
	// maxRetries is how often a batch is tried again after a 5xx, a network error or a 429.
	maxRetries = 3
	// throttleWait is the wait after a 429 without Retry-After, as the original design had.
	throttleWait = 60 * time.Second
	// requestTimeout bounds one request to Bing (the run's budget may end it sooner).
	requestTimeout = 30 * time.Second
)

// backoff are the waits before the retries after a failure.
var backoff = []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}

// QuotaStore counts each site's daily Bing quota, atomically across processes, and keeps what
// Bing answered of it that day, so that every face of sitepush tells the same quota left.
type QuotaStore interface {
	ReserveQuota(ctx context.Context, site, day string, n, limit int) (int, error)
	ReleaseQuota(ctx context.Context, site, day string, n int) error
	MarkQuotaFull(ctx context.Context, site, day string) error
	// RecordBingLeft keeps Bing's answer of day, left, with what the day has used at that moment.
	RecordBingLeft(ctx context.Context, site, day string, left int) error
	// QuotaDay returns what is kept of site's quota of day (zero for a day without any).
	QuotaDay(ctx context.Context, site, day string) (model.BingDay, error)
}

// The run asks Bing what it can do: rank its URLs.
var _ channel.Selective = (*Channel)(nil)

// Channel delivers a site's due URLs to Bing.
type Channel struct {
	cfg       config.Bing
	given     bool // the configuration set bing.dailyQuota (Quota.DailyGiven)
	site      string
	siteURL   string // the site's origin, as Bing knows the site
	client    *http.Client
	userAgent string
	quota     QuotaStore
	day       string // the UTC day of the run's start: the quota it counts against
	today     Quota  // the day's quota as Deliver found it, once it asked Bing
	limit     int    // the day's quota in all, once Deliver has asked Bing: today.Used + today.Left()
	rnd       *rand.Rand
	// checker, when set, fetches each URL before it is sent and holds back those Bing would not
	// index, so that they spend none of the quota.
	checker *preflight.Checker

	// After a 429, no request goes before pausedUntil; a batch that cannot wait that long within
	// the run's budget fails at once with pauseWhy. pauseCause is the answer, as the reporter is
	// told of the wait.
	pausedUntil time.Time
	pauseCause  string
	pauseWhy    string

	// crawls keeps what GetUrlInfo says (nil: the state keeps none, and nothing is asked);
	// start is when the run started: the URLs submitted before it are asked about. tracked is
	// set once the run asked, unreachable when Bing refused the key or did not answer.
	crawls      CrawlStore
	start       time.Time
	tracked     bool
	unreachable bool
	// OnCrawl, when set, is told of each crawl first seen after a submission, with the time
	// from the submission to the crawl (for /metrics).
	OnCrawl func(site string, took time.Duration)
}

// New returns the Bing channel of a validated site, for a run starting at start. When quota is
// a CrawlStore too, the channel asks Bing whether it crawled the URLs submitted (bing.track).
func New(site *config.Site, client *http.Client, userAgent string, quota QuotaStore, start time.Time) *Channel {
	crawls, _ := quota.(CrawlStore)
	return &Channel{cfg: site.Bing, given: site.Given(dailyQuotaKey), site: site.ID, siteURL: site.BaseURL, client: client, userAgent: userAgent,
		quota: quota, day: start.UTC().Format(time.DateOnly), rnd: rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())),
		crawls: crawls, start: start}
}

// Preflight makes the channel check each URL with pc before it sends it (bing.preflight).
func (c *Channel) Preflight(pc *preflight.Checker) { c.checker = pc }

// Preflighted returns the Checker given by Preflight, nil for none: the one a run's content
// checks share their fetches with (sitechannels.Pages).
func (c *Channel) Preflighted() *preflight.Checker { return c.checker }

// Name is "bing".
func (c *Channel) Name() string { return name }

// Selection declares that Bing ranks its due URLs (Ranked): its daily quota goes to the newest
// pages first, so a read of the sitemaps over several runs hands it its URLs from the run that
// reaches the end of the read, with every page in hand.
func (c *Channel) Selection(context.Context) channel.Selection {
	return channel.Selection{Ranked: true}
}

// Deliver sends the due URLs, in order of priority, in batches of batchSize, one request at a
// time, until the day's quota is spent; then it asks Bing whether it crawled the URLs submitted
// before (track). With a preflight, each batch is filled with URLs found eligible, taking more
// from the queue for those held back: the pages fetched are about as many as the quota lets go,
// whatever the size of the queue.
func (c *Channel) Deliver(ctx context.Context, q *channel.Queue, rep channel.Reporter) error {
	if err := c.deliver(ctx, q, rep); err != nil {
		return err
	}
	c.track(ctx, rep)
	return nil
}

// deliver sends the due URLs.
func (c *Channel) deliver(ctx context.Context, q *channel.Queue, rep channel.Reporter) error {
	today, ok, err := c.todaysQuota(ctx, rep, true)
	if err != nil || !ok {
		return channel.UnlessStopped(ctx, err)
	}
	if c.checker != nil {
		rep = preflight.Checked(rep)
	}
	c.today, c.limit = today, today.Used+today.Left()
	c.order(q)
	defer c.noteSpent(rep)
	for pos := 0; pos < q.Len() && ctx.Err() == nil && !c.preflightSpent(); {
		granted, err := c.quota.ReserveQuota(ctx, c.site, c.day, min(c.cfg.BatchSize, q.Len()-pos), c.limit)
		if err != nil {
			return channel.UnlessStopped(ctx, err)
		}
		if granted == 0 {
			spent := c.today
			spent.Used = c.limit
			rep.HeldBack(name, q.Len()-pos, fmt.Sprintf("the quota of today is spent (%s) until 00:00 UTC", spent.Source()))
			return nil
		}
		urls, next, err := c.take(ctx, q, pos, granted, rep)
		if unused := granted - len(urls); unused > 0 {
			c.quota.ReleaseQuota(context.WithoutCancel(ctx), c.site, c.day, unused)
		}
		if err != nil {
			return channel.UnlessStopped(ctx, err)
		}
		if len(urls) == 0 {
			pos = next
			continue
		}
		stop, msg, err := c.batch(ctx, urls, rep)
		switch {
		case err != nil:
			return err
		case stop == keyFailed:
			c.unreachable = true
			return nil
		case stop == quotaFull:
			held := q.Len() - next + len(urls)
			rep.HeldBack(name, held, fmt.Sprintf("%s: Bing refused more today (quota exceeded) until 00:00 UTC", msg))
			return nil
		}
		pos = next
	}
	return nil
}

// take returns the next n URLs to send from pos in q, and the position after them. With a
// preflight, those held back are reported and more are taken in their place; a URL the run's
// end left unchecked is passed over, and stays due.
func (c *Channel) take(ctx context.Context, q *channel.Queue, pos, n int, rep channel.Reporter) ([]channel.Due, int, error) {
	if c.checker == nil {
		urls, err := q.Slice(ctx, pos, pos+n)
		return urls, pos + len(urls), err
	}
	var out []channel.Due
	for len(out) < n && pos < q.Len() && ctx.Err() == nil && !c.preflightSpent() {
		urls, err := q.Slice(ctx, pos, pos+n-len(out))
		if err != nil {
			return out, pos, err
		}
		pos += len(urls)
		send, _, err := c.checker.Split(ctx, preflight.Bing, urls, rep)
		out = append(out, send...)
		if err != nil {
			return out, pos, err
		}
	}
	return out, pos, nil
}

// preflightSpent reports whether the client refused a page fetch of the channel's preflights
// (channel.ErrNoFetch): the URLs not checked wait for a later run.
func (c *Channel) preflightSpent() bool { return c.checker != nil && c.checker.Spent() }

// noteSpent says, when the client refused the preflights' fetches, that the URLs not checked wait.
func (c *Channel) noteSpent(rep channel.Reporter) {
	if c.preflightSpent() {
		rep.Noted(name, preflight.SpentNote)
	}
}

// todaysQuota is the site's quota of today by the one rule (Quota.Left): what the state keeps,
// with what Bing answers now — kept in the state too when record is set, for the run's later
// batches and every other face of sitepush. ok is false when nothing is to be sent in this run,
// and the reporter was told why: Bing refused the key, or gave no answer at all — it is out of
// reach, and the due URLs wait for the next run. When Bing answers without telling the quota (a
// 5xx, {"d":null}), what it said earlier today stands, else dailyQuota is counted on; Bing's own
// refusal still stops the day.
func (c *Channel) todaysQuota(ctx context.Context, rep channel.Reporter, record bool) (q Quota, ok bool, err error) {
	left, _, err := c.Quota(ctx)
	switch {
	case ctx.Err() != nil:
		return Quota{}, false, nil // the run is ending: no failure of Bing
	case err == nil:
		q, err = c.told(ctx, left, record)
		return q, err == nil, err
	case isInvalidKey(err):
		c.unreachable = true
		rep.Failed(name, err.Error())
		return Quota{}, false, nil
	case errors.Is(err, ErrNoAnswer):
		c.unreachable = true
		rep.Failed(name, fmt.Sprintf("GetUrlSubmissionQuota at %s: %v: nothing is sent to Bing in this run, and %s; check bing.endpoint and the network", c.cfg.Endpoint, err, rep.Later().StayDue("the due URLs")))
		return Quota{}, false, nil
	}
	d, serr := c.quota.QuotaDay(ctx, c.site, c.day)
	if serr != nil {
		return Quota{}, false, serr
	}
	q = today(c.cfg.DailyQuota, c.given, d)
	rep.Noted(name, fmt.Sprintf("the quota Bing leaves today is unknown (%v): %d left today (%s), and Bing's own refusal stops the day", err, q.Left(), q.Source()))
	return q, true, nil
}

// told is the quota of today with Bing's answer left: kept in the state when record is set, else
// only taken into account.
func (c *Channel) told(ctx context.Context, left int, record bool) (Quota, error) {
	if record {
		if err := c.quota.RecordBingLeft(ctx, c.site, c.day, left); err != nil {
			return Quota{}, err
		}
	}
	d, err := c.quota.QuotaDay(ctx, c.site, c.day)
	if err != nil {
		return Quota{}, err
	}
	q := today(c.cfg.DailyQuota, c.given, d)
	if !record {
		q = q.Answered(left)
	}
	return q, nil
}

// order puts the queue in the site's priority: failed URLs first, then, for newest, URLs with a
// lastmod newest first and those without in random order; for random, all in random order.
func (c *Channel) order(q *channel.Queue) {
	q.Shuffle(c.rnd)
	q.SortStable(func(a, b channel.Meta) int {
		switch {
		case a.Retry != b.Retry:
			return boolFirst(a.Retry)
		case c.cfg.Priority != "newest":
			return 0
		case a.Lastmod.IsZero() != b.Lastmod.IsZero():
			return boolFirst(!a.Lastmod.IsZero())
		}
		return b.Lastmod.Compare(a.Lastmod)
	})
}

// boolFirst orders true before false.
func boolFirst(aIsTrue bool) int {
	if aIsTrue {
		return -1
	}
	return 1
}

// Preview orders q as Deliver would and returns how many of its URLs today's quota holds back:
// the quota left by the one rule, with what Bing answers now. Nothing is reserved or kept.
func (c *Channel) Preview(ctx context.Context, q *channel.Queue, rep channel.Reporter) (held int) {
	c.order(q)
	today, ok, err := c.todaysQuota(ctx, rep, false)
	if err != nil {
		rep.Failed(name, err.Error())
	}
	if err != nil || !ok {
		return q.Len()
	}
	left := today.Left()
	if c.checker != nil {
		c.previewChecks(ctx, q, left, rep)
	}
	if held = max(0, q.Len()-left); held > 0 {
		rep.HeldBack(name, held, fmt.Sprintf("the quota leaves %s today (%s) until 00:00 UTC", human.Int(left), today.Source()))
	}
	return held
}

// previewChecks checks q's URLs in order, as Deliver would, until left of them are found
// eligible, and takes those held back out of q: they are reported, and counted apart.
func (c *Channel) previewChecks(ctx context.Context, q *channel.Queue, left int, rep channel.Reporter) {
	dropped := map[int64]bool{}
	for pos, eligible := 0, 0; eligible < left && pos < q.Len() && ctx.Err() == nil; {
		urls, err := q.Slice(ctx, pos, pos+min(c.cfg.BatchSize, left-eligible))
		if err != nil {
			rep.Failed(name, err.Error())
			break
		}
		pos += len(urls)
		send, held, err := c.checker.Split(ctx, preflight.Bing, urls, rep)
		if err != nil {
			rep.Failed(name, err.Error())
			break
		}
		eligible += len(send)
		for _, d := range held {
			dropped[d.Hash] = true
		}
	}
	q.Drop(dropped)
}
