package runner_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/channel/indexnow"
	"github.com/sitepush/sitepush/internal/channel/preflight"
	"github.com/sitepush/sitepush/internal/enginetest"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/store"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// site answers the pages of https://a.example with the status the test sets (200 by default),
// and every other request through the default transport.
type siteAnswers struct {
	mu     sync.Mutex
	status map[string]int
	asked  []string
}

func (s *siteAnswers) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Host != "a.example" {
		return http.DefaultTransport.RoundTrip(req)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, req.URL.Path)
	code := s.status[req.URL.Path]
	if code == 0 {
		code = http.StatusOK
	}
	rec := httptest.NewRecorder()
	rec.WriteHeader(code)
	res := rec.Result()
	res.Body = io.NopCloser(strings.NewReader("page"))
	return res, nil
}

// TestRemovedPagesAreAnnounced: a URL that leaves every sitemap is probed by the run after the
// whole read that found it gone: one that answers 404 goes to IndexNow once, as a removal notice;
// one that still answers 200 is never sent; Bing gets neither; indexnow.removed: false sends none.
func TestRemovedPagesAreAnnounced(t *testing.T) {
	for _, on := range []bool{true, false} {
		f := newFiles(t)
		answers := &siteAnswers{status: map[string]int{}}
		st := storetest.Open(t)
		r := runner.New(st)
		r.Client = &http.Client{Transport: answers}
		extra := ""
		if !on {
			extra = "    indexnow: {removed: false}\n"
		}
		s := newSite(t, extra)
		s.site.Sitemaps = []string{f.url("/s.xml")}
		all := urls("/a", "/b", "/c", "/gone", "/stays")
		f.set("/s.xml", false, all...)
		in, bing := &fakeChannel{name: "indexnow", batch: 100, removals: on}, &fakeChannel{name: "bing", batch: 100}
		opt := runner.Options{Channels: []channel.Channel{in, bing}}
		run(t, r, s, opt)
		if a, b := in.take(), bing.take(); len(a) != 5 || len(b) != 5 {
			t.Fatalf("first run sent %v and %v", a, b)
		}
		f.set("/s.xml", false, all[:3]...)
		answers.status["/gone"] = http.StatusNotFound
		rec := run(t, r, s, opt) // finds them gone
		if !on && slices.ContainsFunc(rec.Notes, func(n string) bool { return strings.Contains(n, "left every sitemap") }) {
			t.Errorf("indexnow.removed: false: %v", rec.Notes)
		}
		run(t, r, s, opt) // probes them
		run(t, r, s, opt)
		a, b := in.take(), bing.take()
		switch {
		case on && !slices.Equal(a, urls("/gone")):
			t.Errorf("IndexNow got %v after /gone (404) and /stays (200) left the sitemap; want /gone once", a)
		case !on && len(a) != 0:
			t.Errorf("indexnow.removed: false, IndexNow got %v", a)
		case len(b) != 0:
			t.Errorf("Bing got %v: removals never go through it", b)
		}
		rm, ok, err := st.RemovalOf(context.Background(), "s", runner.URLHash([]byte(all[3])))
		if on && (err != nil || !ok || rm.Status != 404 || !rm.Probed || rm.AnnouncedAt.IsZero()) {
			t.Errorf("the removal of /gone: %+v %v %v", rm, ok, err)
		}
		if stays, _, _ := st.RemovalOf(context.Background(), "s", runner.URLHash([]byte(all[4]))); on && (stays.Status != 200 || !stays.AnnouncedAt.IsZero()) {
			t.Errorf("the removal of /stays: %+v", stays)
		}
		if n := strings.Count(strings.Join(answers.asked, " "), "/gone"); on && n != 1 || !on && n != 0 {
			t.Errorf("/gone was probed %d times (removed %v)", n, on)
		}
	}
}

// heldBack is a channel whose preflight holds every URL back.
type heldBack struct{}

func (heldBack) Name() string { return "bing" }

func (heldBack) Deliver(ctx context.Context, q *channel.Queue, r channel.Reporter) error {
	refs, err := q.Slice(ctx, 0, q.Len())
	if err != nil {
		return err
	}
	return r.Finished(channel.Outcome{Channel: "bing", URLs: refs, Preflight: &channel.Preflight{Reason: "noindex", Detail: "meta robots"}})
}

// TestARunWithURLsHeldBackSettles: URLs a preflight held back are answered — their delivery
// state says when they are due again — so the run's read settles and its sitemaps are
// remembered: the next run compares against them (and finds a URL that left).
func TestARunWithURLsHeldBackSettles(t *testing.T) {
	f := newFiles(t)
	st := storetest.Open(t)
	r := runner.New(st)
	s := newSite(t, "")
	s.site.Sitemaps = []string{f.url("/s.xml")}
	f.set("/s.xml", false, urls("/a", "/b")...)
	rec := run(t, r, s, runner.Options{Channels: []channel.Channel{heldBack{}}})
	memos, err := st.SitemapMemos(context.Background(), "s")
	if err != nil || rec.Channels["bing"].Ineligible != 2 || len(memos) != 1 || memos[f.url("/s.xml")].Unfinished {
		t.Errorf("a run whose URLs were all held back: %d ineligible, memos %+v (%v); want the sitemap remembered, settled",
			rec.Channels["bing"].Ineligible, memos, err)
	}
}

// spendOnLeft is the real store, with the invocation's budget spent as a run asks it which URLs
// left the sitemaps: the query meets a cancelled context, as it does when a Worker's subrequests
// or a run's budget run out at that moment.
type spendOnLeft struct {
	*store.Store
	spend func()
}

func (s *spendOnLeft) LeftToProbe(ctx context.Context, site string, limit int) ([]channel.Page, error) {
	if s.spend != nil {
		s.spend()
		s.spend = nil
	}
	return s.Store.LeftToProbe(ctx, site, limit)
}

// TestABudgetSpentWhileAskingWhatLeft: a budget that runs out as the run reads the URLs to probe
// stops the run as anywhere else — no error, the probes left for the next run — which then
// announces the page gone.
func TestABudgetSpentWhileAskingWhatLeft(t *testing.T) {
	f := newFiles(t)
	answers := &siteAnswers{status: map[string]int{"/gone": http.StatusNotFound}}
	st := &spendOnLeft{Store: storetest.Open(t)}
	r := runner.New(st)
	r.Client = &http.Client{Transport: answers}
	s := newSite(t, "")
	s.site.Sitemaps = []string{f.url("/s.xml")}
	f.set("/s.xml", false, urls("/a", "/gone")...)
	in := &fakeChannel{name: "indexnow", batch: 100, removals: true}
	opt := runner.Options{Channels: []channel.Channel{in}}
	run(t, r, s, opt)
	f.set("/s.xml", false, urls("/a")...)
	run(t, r, s, opt) // finds /gone gone
	in.take()
	budget, spend := context.WithCancelCause(context.Background())
	st.spend = func() { spend(errors.New("the 45 subrequests of the invocation are spent")) }
	rec := run(t, r, s, runner.Options{Channels: []channel.Channel{in}, Budget: budget})
	if len(rec.Errors) != 0 {
		t.Errorf("a run whose budget ran out as it read the URLs that left: %s, errors %q", rec.Status, rec.Errors)
	}
	// The run stops when the end of its budget reaches it: on SQLite, which does not answer a
	// cancelled query, it may yet probe and send; the notice goes once, by it or the run after.
	sent := in.take()
	run(t, r, s, opt)
	if got := append(sent, in.take()...); !slices.Equal(got, urls("/gone")) {
		t.Errorf("the run whose budget ran out and the run after sent %v; want the removal notice of /gone once", got)
	}
}

// engineAt hands the requests to engine.example to an IndexNow engine, in-process, and every
// other to site.
type engineAt struct {
	engine http.RoundTripper
	site   http.RoundTripper
}

func (e engineAt) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Host == "engine.example" {
		return e.engine.RoundTrip(req)
	}
	return e.site.RoundTrip(req)
}

// TestARemovalNoticeIsNotPreflighted: with indexnow.preflight on, a URL that left the sitemaps
// and answers 404 reaches a real IndexNow engine as a removal notice once over the two runs after
// — the run that finds it gone, and the one that probes it — and never again: the preflight would
// hold it back for the very 404 it is sent for. On the SQL store and on the Worker's KV state.
func TestARemovalNoticeIsNotPreflighted(t *testing.T) {
	for name, open := range states(t) {
		t.Run(name, func(t *testing.T) {
			f := newFiles(t)
			answers := &siteAnswers{status: map[string]int{}}
			engine := &enginetest.IndexNow{FetchKey: func(string) (string, error) { return "a1b2c3d4e5f6a7b8c9d0", nil }}
			client := &http.Client{Transport: engineAt{engine: enginetest.Client(engine).Transport, site: answers}}
			s := newSite(t, "    indexnow: {enabled: true, key: a1b2c3d4e5f6a7b8c9d0, endpoints: [https://engine.example/indexnow], interval: 1ms, preflight: true}\n")
			s.site.Sitemaps = []string{f.url("/s.xml")}
			at := time.Now()
			runAt := func() *model.Record {
				at = at.Add(time.Hour)
				r := runner.New(open(at))
				r.Client, r.Now = client, func() time.Time { return at }
				in := indexnow.New(s.site, client, "sitepush-test")
				in.Preflight(preflight.New(client, "sitepush-test"))
				return run(t, r, s, runner.Options{Channels: []channel.Channel{in}})
			}
			f.set("/s.xml", false, urls("/a", "/gone")...)
			runAt()
			if got := engine.Accepted(); len(got) != 2 {
				t.Fatalf("the first run sent %v", got)
			}
			f.set("/s.xml", false, urls("/a")...)
			answers.mu.Lock()
			answers.status["/gone"] = http.StatusNotFound
			answers.mu.Unlock()
			var recs []*model.Record
			for range 3 {
				recs = append(recs, runAt())
			}
			if got := engine.Accepted()[2:]; !slices.Equal(got, urls("/gone")) {
				t.Errorf("with indexnow.preflight on, IndexNow got %v over the three runs after /gone left the sitemap "+
					"answering 404; want its removal notice once, by the second", got)
			}
			for i, rec := range recs {
				if st := rec.Channels["indexnow"]; st.Ineligible != 0 || st.Failed != 0 {
					t.Errorf("run %d after /gone left: %+v, notes %q", i+1, st, rec.Notes)
				}
			}
		})
	}
}
