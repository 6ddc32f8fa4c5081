// Package preflight fetches a URL before a channel sends it, and says whether the engine would
// index the page: a page that answers an error, redirects, says noindex, names another URL as
// canonical or is disallowed by robots.txt for the engine's crawler costs a submission (and, on
// Bing, a share of a small daily quota) for nothing. One Checker serves a run: every channel of
// the run that preflights shares its fetches, one per page, and one robots.txt per origin.
package preflight

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
)

const (
	// maxBody bounds what is read of a page: its head, in practice far less.
	maxBody = 256 << 10
	// fetchTimeout bounds one fetch of a page or a robots.txt; the run's budget may end it sooner.
	fetchTimeout = 10 * time.Second
	// parallel is how many pages a Checker fetches at once, whatever the channels ask.
	parallel = 8
)

// Engine is what a preflight checks a page for: the channel that sends it, the crawler that
// would read it.
type Engine struct {
	// Channel names the channel in the outcomes reported.
	Channel string
	// Agent is the crawler's name in robots.txt groups ("bingbot"); "*" reads only the groups for
	// every crawler.
	Agent string
	// Meta is the name of the crawler's own robots meta tag and X-Robots-Tag prefix ("bingbot");
	// "" for none. The tag named "robots" and an X-Robots-Tag without a name count for every engine.
	Meta string
}

// The engines the channels check for. The feed checks for every engine: a page none would index
// (a noindex draft, an error, a redirect) is no item.
var (
	Bing     = Engine{Channel: "bing", Agent: "bingbot", Meta: "bingbot"}
	IndexNow = Engine{Channel: "indexnow", Agent: "*"}
	Feed     = Engine{Channel: "feed", Agent: "*"}
)

// Checker checks pages for the channels of one run: it fetches each page once, whatever the
// channels asking, at most parallel at a time, and reports each URL held back once per channel.
type Checker struct {
	client    *http.Client // never follows redirects: a redirect is a verdict
	robotsCl  *http.Client // follows them within the site (ownSite), as crawlers do for robots.txt
	userAgent string
	now       func() time.Time
	timeout   time.Duration // bounds one fetch: fetchTimeout
	slots     chan struct{}
	spent     atomic.Bool // the client refused a fetch: channel.ErrNoFetch

	mu       sync.Mutex
	pages    map[string]*page
	robots   map[string]*robotsFile // by origin
	reported map[string]bool        // channel + " " + URL, of the URLs held back
	expected map[string]bool        // the URLs whose content the run reads after (Expect)
}

// New returns the Checker of a run, fetching with client (its redirects not followed) as
// userAgent. Its fetches are page fetches (channel.PageFetch): once the client refuses one, the
// Checker is Spent.
func New(client *http.Client, userAgent string) *Checker {
	if client == nil {
		client = http.DefaultClient
	}
	return &Checker{client: PageClient(client), robotsCl: robotsClient(client), userAgent: userAgent, now: time.Now,
		timeout: fetchTimeout, slots: make(chan struct{}, parallel), pages: map[string]*page{}, robots: map[string]*robotsFile{},
		reported: map[string]bool{}, expected: map[string]bool{}}
}

// PageClient returns a copy of client that follows no redirect: a page's redirect is a verdict
// (the page is elsewhere), for the Checker and for whoever judges a page's answer with Judge.
func PageClient(client *http.Client) *http.Client {
	c := *client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &c
}

// Check returns the verdict on u for e; ok is false when ctx ended before one was reached.
func (c *Checker) Check(ctx context.Context, e Engine, u string) (v channel.Preflight, ok bool) {
	if v, ok = c.Robots(ctx, e, u); !ok || v.Reason != "" {
		return v, ok
	}
	p := c.pageOf(ctx, u)
	if p == nil {
		return v, false
	}
	return p.verdict(e, u), true
}

// Robots returns the verdict of the site's robots.txt on u for e — read once a run per origin —
// which holds u back or not (Reason ""); ok is false when ctx ended before it was read, or the
// client refused its fetch.
func (c *Checker) Robots(ctx context.Context, e Engine, u string) (v channel.Preflight, ok bool) {
	rf := c.robotsOf(ctx, u)
	if rf == nil {
		return v, false
	}
	if rule, allowed := rf.rules.allowed(e.Agent, pathOf(u)); !allowed {
		return channel.Preflight{Reason: channel.NotRobots, Detail: rule}, true
	}
	return v, true
}

// Split checks urls for e, at most parallel at a time, reports to rep those held back — each
// once in the run — and returns both, in their order: send, those to send, and held, those held
// back. A URL not checked before ctx ended or the client refused its fetch is in neither, and
// stays due. A removal notice (channel.Due.Removal) is sent unchecked: the page is gone, and
// that is why it is sent.
func (c *Checker) Split(ctx context.Context, e Engine, urls []channel.Due, rep channel.Reporter) (send, held []channel.Due, err error) {
	verdicts := make([]channel.Preflight, len(urls))
	checked := make([]bool, len(urls))
	// parallel workers, not one a URL: a batch of IndexNow holds up to 10,000.
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(parallel, len(urls)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(urls); i = int(next.Add(1) - 1) {
				if !urls[i].Removal {
					verdicts[i], checked[i] = c.Check(ctx, e, urls[i].URL)
				}
			}
		})
	}
	wg.Wait()
	for i, d := range urls {
		switch {
		case d.Removal:
			send = append(send, d)
			continue
		case !checked[i]:
			continue
		case verdicts[i].Reason == "":
			send = append(send, d)
			continue
		}
		held = append(held, d)
		if c.firstReport(e, d.URL) {
			v := verdicts[i]
			if err := rep.Finished(channel.Outcome{Channel: e.Channel, URLs: []channel.Due{d}, Preflight: &v}); err != nil {
				return send, held, err
			}
		}
	}
	return send, held, nil
}

// firstReport reports whether u is held back on e's channel for the first time in the run.
func (c *Checker) firstReport(e Engine, u string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := e.Channel + " " + u
	first := !c.reported[k]
	c.reported[k] = true
	return first
}

// Checked wraps a channel's reporter so that the outcomes of URLs it sends say that they were
// checked and found eligible — all but removal notices, which Split sends unchecked.
func Checked(rep channel.Reporter) channel.Reporter { return checked{rep} }

type checked struct{ channel.Reporter }

func (r checked) Finished(o channel.Outcome) error {
	if o.Preflight != nil {
		return r.Reporter.Finished(o)
	}
	notices := slices.DeleteFunc(slices.Clone(o.URLs), func(d channel.Due) bool { return !d.Removal })
	if len(notices) > 0 {
		n := o
		n.URLs = notices
		if err := r.Reporter.Finished(n); err != nil {
			return err
		}
		if len(notices) == len(o.URLs) {
			return nil
		}
		o.URLs = slices.DeleteFunc(slices.Clone(o.URLs), func(d channel.Due) bool { return d.Removal })
	}
	o.Preflight = &channel.Preflight{}
	return r.Reporter.Finished(o)
}

// acquire takes one of the Checker's fetch slots, or returns false when ctx ends first or the
// client refused a fetch before.
func (c *Checker) acquire(ctx context.Context) bool {
	if c.Spent() {
		return false
	}
	select {
	case c.slots <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

// begin takes one of the Checker's fetch slots and makes the GET of u, a page fetch
// (channel.PageFetch) bounded by the Checker's timeout (fetchTimeout), as the Checker's user
// agent; end gives the slot and the request's context back. ok is false when ctx ended before a
// slot was free, or the client refused a fetch before: nothing was taken. err is a URL that
// makes no request.
func (c *Checker) begin(ctx context.Context, u string) (req *http.Request, end func(), ok bool, err error) {
	if !c.acquire(ctx) {
		return nil, nil, false, nil
	}
	fctx, cancel := context.WithTimeout(channel.PageFetch(ctx), c.timeout)
	end = func() { cancel(); c.release() }
	if req, err = http.NewRequestWithContext(fctx, http.MethodGet, u, nil); err != nil {
		return nil, end, true, err
	}
	req.Header.Set("User-Agent", c.userAgent)
	return req, end, true, nil
}

// refused reports whether err is the client's refusal of a page fetch, and if so marks the
// Checker spent.
func (c *Checker) refused(err error) bool {
	if errors.Is(err, channel.ErrNoFetch) {
		c.spent.Store(true)
		return true
	}
	return false
}

// SpentNote is what a channel notes when the client refused its preflights' fetches.
const SpentNote = "the page fetches this run may make for preflight are spent (on the Worker, the invocation's subrequests " +
	"are kept for the engines): the due URLs not checked yet wait for the next run"

// Spent reports whether the client refused a fetch (channel.ErrNoFetch): the URLs not checked
// yet stay due, and a channel sends those it has.
func (c *Checker) Spent() bool { return c.spent.Load() }

func (c *Checker) release() { <-c.slots }
