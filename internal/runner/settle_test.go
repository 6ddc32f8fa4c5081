package runner_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/store"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// quota is a channel like Bing's: it sends, in the queue's order, as many URLs as its quota has
// left, and holds the rest back, telling the run so.
type quota struct {
	left int
	got  []string
}

func (c *quota) Name() string { return "bing" }

func (c *quota) Deliver(ctx context.Context, q *channel.Queue, rep channel.Reporter) error {
	n := min(c.left, q.Len())
	if n > 0 {
		due, err := q.Slice(ctx, 0, n)
		if err != nil {
			return err
		}
		if err := rep.Finished(channel.Outcome{Channel: "bing", URLs: due, Delivered: true}); err != nil {
			return err
		}
		for _, d := range due {
			c.got = append(c.got, d.URL)
		}
		c.left -= n
	}
	if held := q.Len() - n; held > 0 {
		rep.HeldBack("bing", held, "the daily quota is spent")
	}
	return nil
}

// take returns the URLs sent since the last take, sorted.
func (c *quota) take() []string {
	got := c.got
	c.got = nil
	slices.Sort(got)
	return got
}

// TestAQuotaDoesNotHideTheSitemaps: a whole read is known at once, whatever a quota held back of
// what it found. After a run whose URLs Bing's quota partly held back, the sitemap is known to
// list a held URL (inspect); a URL that then leaves the sitemap and answers 404 reaches IndexNow
// as a removal notice within two runs while the quota still holds URLs back; and the URLs held
// back are not taken for settled: Bing gets each of them, once, when its quota is back.
func TestAQuotaDoesNotHideTheSitemaps(t *testing.T) {
	for name, open := range states(t) {
		t.Run(name, func(t *testing.T) {
			f := newFiles(t)
			answers := &siteAnswers{status: map[string]int{}}
			s := newSite(t, "")
			s.site.Sitemaps = []string{f.url("/s.xml")}
			all := urls("/u0", "/u1", "/u2", "/u3", "/u4", "/u5")
			f.set("/s.xml", false, all...)
			in, bing := &fakeChannel{name: "indexnow", batch: 100, removals: true}, &quota{left: 4}
			opt := runner.Options{Channels: []channel.Channel{in, bing}}
			at := time.Now()
			runAt := func() {
				at = at.Add(time.Hour)
				r := runner.New(open(at))
				r.Client = &http.Client{Transport: answers}
				run(t, r, s, opt)
			}
			runAt()
			sent := bing.take()
			if got := in.take(); !slices.Equal(got, all) || len(sent) != 4 {
				t.Fatalf("first run sent %v to IndexNow and %v to Bing; want all 6, and 4", got, sent)
			}
			var held []string
			for _, u := range all {
				if !slices.Contains(sent, u) {
					held = append(held, u)
				}
			}
			in2, known, err := runner.InSitemaps(context.Background(), open(at), "s", held[0])
			if err != nil || !in2 || !known {
				t.Errorf("after a whole read whose URL %s Bing's quota held back: in the sitemaps %v, known %v (%v); want true, true",
					held[0], in2, known, err)
			}

			gone := sent[0] // one Bing has, so that what it gets later is only what the quota held
			f.set("/s.xml", false, slices.DeleteFunc(slices.Clone(all), func(u string) bool { return u == gone })...)
			answers.mu.Lock()
			answers.status[gone[len("https://a.example"):]] = http.StatusNotFound
			answers.mu.Unlock()
			runAt() // finds it gone
			runAt() // probes it, and announces it
			if got := in.take(); !slices.Equal(got, []string{gone}) {
				t.Errorf("IndexNow got %v in 2 runs after %s left the sitemap (404) while Bing's quota held URLs back; want it once", got, gone)
			}
			if got := bing.take(); len(got) != 0 {
				t.Errorf("Bing got %v with no quota left", got)
			}

			bing.left = 100
			runAt()
			if got := bing.take(); !slices.Equal(got, held) {
				t.Errorf("Bing got %v once its quota was back; want the URLs it held back, %v", got, held)
			}
			runAt()
			if got, gotIn := bing.take(), in.take(); len(got) != 0 || len(gotIn) != 0 {
				t.Errorf("a run after everything was sent sent %v to Bing and %v to IndexNow; want nothing", got, gotIn)
			}
		})
	}
}

// failingLookUp is the real store, whose look-ups of pages in the catalogue fail while fail is set.
type failingLookUp struct {
	*store.Store
	fail bool
}

func (s *failingLookUp) SyncCatalog(ctx context.Context, site string, now time.Time, pages []channel.Page, channels []string, dryRun bool) ([]model.DeliveryState, error) {
	if s.fail {
		return nil, errors.New("the catalogue is out of reach")
	}
	return s.Store.SyncCatalog(ctx, site, now, pages, channels, dryRun)
}

// TestAFailedLookUpEndsTheRun: a look-up that fails ends the read and the run, failed with its
// cause, nothing sent and nothing remembered of the read: the next run sends what it would have.
func TestAFailedLookUpEndsTheRun(t *testing.T) {
	f := newFiles(t)
	st := &failingLookUp{Store: storetest.Open(t)}
	r := runner.New(st)
	s := newSite(t, "")
	s.site.Sitemaps = []string{f.url("/s.xml")}
	f.set("/s.xml", false, urls("/a", "/b")...)
	in := &fakeChannel{name: "indexnow", batch: 100}
	opt := runner.Options{Channels: []channel.Channel{in}, Trigger: "cli"}
	run(t, r, s, opt)
	in.take()
	f.set("/s.xml", false, urls("/a", "/b", "/c")...)
	st.fail = true
	rec, err := r.Run(context.Background(), s.site, opt)
	if err == nil || rec.Status != model.StatusFailed || !slices.ContainsFunc(rec.Errors, func(e string) bool {
		return strings.Contains(e, "the catalogue is out of reach")
	}) {
		t.Errorf("a run whose look-up failed: %v, %s, errors %q; want it failed with the cause", err, rec.Status, rec.Errors)
	}
	if got := in.take(); len(got) != 0 {
		t.Errorf("a run whose look-up failed sent %v", got)
	}
	st.fail = false
	run(t, r, s, opt)
	if got := in.take(); !slices.Equal(got, urls("/c")) {
		t.Errorf("the run after a failed look-up sent %v; want /c", got)
	}
}

// TestWhatAWholeReadListsIsKnown: a whole read is remembered as what the sitemaps list, whatever
// the run's mode — a feed's first run, which uses no memos, too (inspect says the URLs it set
// aside are in the sitemaps) — but a run of the failed URLs only does not take the URLs it passed
// over for no news: a URL new since is sent by the ordinary run after it.
func TestWhatAWholeReadListsIsKnown(t *testing.T) {
	for name, open := range states(t) {
		t.Run(name, func(t *testing.T) {
			f := newFiles(t)
			s := newSite(t, "")
			s.site.Sitemaps = []string{f.url("/s.xml")}
			all := urls("/u0", "/u1", "/u2", "/u3")
			f.set("/s.xml", false, all...)
			at := time.Now()
			runAt := func(opt runner.Options) {
				at = at.Add(time.Hour)
				run(t, runner.New(open(at)), s, opt)
			}
			feed := &selective{sel: channel.Selection{OnlyNew: true, Newest: 1, FirstRun: true}}
			runAt(runner.Options{Channels: []channel.Channel{feed}})
			later := open(at.Add(time.Hour)) // a Worker's state trusts a settled memo once KV has settled
			for _, u := range all {
				if in, known, err := runner.InSitemaps(context.Background(), later, "s", u); err != nil || !in || !known {
					t.Errorf("after a feed's first run read the sitemap whole: %s in the sitemaps %v, known %v (%v); want true, true", u, in, known, err)
				}
			}

			in := &fakeChannel{name: "indexnow", batch: 100}
			opt := runner.Options{Channels: []channel.Channel{in}}
			runAt(opt)
			in.take()
			f.set("/s.xml", false, append(all, urls("/new")...)...)
			runAt(runner.Options{Channels: opt.Channels, RetryFailed: true})
			if got := in.take(); len(got) != 0 {
				t.Fatalf("a run of the failed URLs only, none failed, sent %v", got)
			}
			runAt(opt)
			if got := in.take(); !slices.Equal(got, urls("/new")) {
				t.Errorf("the ordinary run after a run of the failed URLs only sent %v; want the URL new since, %v", got, urls("/new"))
			}
		})
	}
}
