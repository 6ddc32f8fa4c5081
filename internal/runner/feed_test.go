package runner_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/channel/feed"
	"github.com/sitepush/sitepush/internal/channel/preflight"
	"github.com/sitepush/sitepush/internal/enginetest"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
)

// pagesOfA serves the pages of https://a.example: each path the page the test sets, else an
// ordinary page; every other host through the default transport.
type pagesOfA struct {
	mu    sync.Mutex
	pages map[string]func(http.ResponseWriter)
}

func (p *pagesOfA) set(path string, page func(http.ResponseWriter)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pages[path] = page
}

func (p *pagesOfA) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Host != "a.example" {
		return http.DefaultTransport.RoundTrip(req)
	}
	return enginetest.Client(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		page := p.pages[r.URL.Path]
		p.mu.Unlock()
		if page == nil {
			w.Write([]byte("<html><head><title>" + r.URL.Path + "</title></head><body></body></html>"))
			return
		}
		page(w)
	})).Transport.RoundTrip(req)
}

func status(code int) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) { w.WriteHeader(code) }
}

// TestTheFeedPublishesOnlyWhatAnEngineWouldIndex: the feed's first run and the runs after, on
// the SQL store and on the Worker's KV state, leave a noindex draft, a 404, a redirect and a page
// that fails out of the feed, with a note; the page that failed becomes an item at the next run
// that it answers, and the draft — made public without a new lastmod — once preflightAfter has
// passed.
func TestTheFeedPublishesOnlyWhatAnEngineWouldIndex(t *testing.T) {
	for name, open := range states(t) {
		t.Run(name, func(t *testing.T) {
			f := newFiles(t)
			pages := &pagesOfA{pages: map[string]func(http.ResponseWriter){
				"/draft": func(w http.ResponseWriter) {
					w.Write([]byte(`<html><head><meta name="robots" content="noindex"><title>Secret draft</title></head></html>`))
				},
				"/gone": status(http.StatusNotFound),
				"/moved": func(w http.ResponseWriter) {
					w.Header().Set("Location", "/ok")
					w.WriteHeader(http.StatusMovedPermanently)
				},
				"/down": status(http.StatusServiceUnavailable),
			}}
			client := &http.Client{Transport: pages}
			s := newSite(t, "    preflightAfter: 24h\n    feed: {enabled: true, baselineItems: 10}\n")
			s.site.Sitemaps = []string{f.url("/s.xml")}
			f.set("/s.xml", false, urls("/ok", "/draft", "/gone", "/moved", "/down")...)
			at := time.Now()
			var st runner.State
			runAt := func(after time.Duration) *model.Record {
				at = at.Add(after)
				st = open(at)
				r := runner.New(st)
				r.Client, r.Now = client, func() time.Time { return at }
				ch := feed.New(s.site, client, "sitepush-test", st.(feed.Store), at)
				ch.Preflight(preflight.New(client, "sitepush-test"))
				return run(t, r, s, runner.Options{Channels: []channel.Channel{ch}})
			}
			items := func() []string {
				t.Helper()
				its, err := st.(feed.Store).FeedItems(context.Background(), "s", 100)
				if err != nil {
					t.Fatal(err)
				}
				var out []string
				for _, it := range its {
					out = append(out, strings.TrimPrefix(it.URL, "https://a.example"))
				}
				slices.Sort(out)
				return out
			}
			rec := runAt(time.Hour)
			notes := strings.Join(rec.Notes, "\n")
			if got := items(); !slices.Equal(got, []string{"/ok"}) || rec.Channels["feed"].Ineligible != 4 ||
				!strings.Contains(notes, "feed: 3 new pages left out of the feed, as no engine would index them (1 HTTP 404, 1 noindex, 1 redirect)") ||
				!strings.Contains(notes, "feed: 1 new page left out of the feed for now, as the site did not answer (HTTP 503 Service Unavailable)") {
				t.Fatalf("the feed's first run: items %v, %+v, notes %q", got, rec.Channels["feed"], rec.Notes)
			}
			pages.set("/down", nil)
			pages.set("/draft", nil)
			runAt(time.Hour)
			if got := items(); !slices.Equal(got, []string{"/down", "/ok"}) {
				t.Errorf("the run after the failing page answers: items %v; want it added, the draft still out (unchanged, checked an hour ago)", got)
			}
			runAt(24 * time.Hour)
			if got := items(); !slices.Equal(got, []string{"/down", "/draft", "/ok"}) {
				t.Errorf("a day later (preflightAfter): items %v; want the draft made public added", got)
			}
		})
	}
}
