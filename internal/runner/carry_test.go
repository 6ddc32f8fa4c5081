package runner_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/channel/indexnow"
	"github.com/sitepush/sitepush/internal/channel/preflight"
	"github.com/sitepush/sitepush/internal/enginetest"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// bigSite serves a sitemap index of children sitemaps, perChild pages each, dated day by day,
// and counts the requests for each child.
type bigSite struct {
	srv      *httptest.Server
	children int
	perChild int
	asked    []atomic.Int64
	lastmod  func(child int) string
}

func newBigSite(t *testing.T, children, perChild int) *bigSite {
	b := &bigSite{children: children, perChild: perChild, asked: make([]atomic.Int64, children),
		lastmod: func(c int) string { return fmt.Sprintf("2026-01-%02d", 1+c%28) }}
	b.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/index.xml" {
			fmt.Fprint(w, "<sitemapindex>")
			for c := range b.children {
				fmt.Fprintf(w, "<sitemap><loc>%s/child-%d.xml</loc></sitemap>", b.srv.URL, c)
			}
			fmt.Fprint(w, "</sitemapindex>")
			return
		}
		var c int
		if _, err := fmt.Sscanf(r.URL.Path, "/child-%d.xml", &c); err != nil || c >= b.children {
			http.NotFound(w, r)
			return
		}
		b.asked[c].Add(1)
		fmt.Fprint(w, "<urlset>")
		for i := range b.perChild {
			fmt.Fprintf(w, "<url><loc>https://a.example/p/%d-%d</loc><lastmod>%s</lastmod></url>", c, i, b.lastmod(c))
		}
		fmt.Fprint(w, "</urlset>")
	}))
	t.Cleanup(b.srv.Close)
	return b
}

func (b *bigSite) urls() []string {
	var out []string
	for c := range b.children {
		for i := range b.perChild {
			out = append(out, fmt.Sprintf("https://a.example/p/%d-%d", c, i))
		}
	}
	slices.Sort(out)
	return out
}

// countedClient makes requests until n have been made in a run: the n-th spends the run's
// budget, as a Worker's subrequests do, and fails.
type countedClient struct {
	n, limit int64
	spend    context.CancelCauseFunc
}

func (c *countedClient) RoundTrip(r *http.Request) (*http.Response, error) {
	if atomic.AddInt64(&c.n, 1) >= c.limit {
		c.spend(errors.New("the requests of this test's invocation are spent"))
		<-r.Context().Done() // the request was made with the run's budget
		return nil, r.Context().Err()
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestAReadOverSeveralRuns checks that a site whose sitemaps take several runs to read gets on:
// each run takes what the runs before read whole, delivers what is due of it before it reads on
// from the sitemaps not yet read, and every URL goes once, within one run more than the read
// takes. Each run may make 4 requests: the index, two sitemaps, and the one that spends it.
func TestAReadOverSeveralRuns(t *testing.T) {
	big := newBigSite(t, 9, 10)
	st := storetest.Open(t)
	r := runner.New(st)
	s := newSite(t, "    sitemap: {retries: 0}\n")
	s.site.Sitemaps = []string{big.srv.URL + "/index.xml"}
	ch := &fakeChannel{name: "indexnow", batch: 1000}
	var sent []string
	runs := 0
	for runs < 6 && len(sent) < len(big.urls()) {
		runs++
		budget, spend := context.WithCancelCause(context.Background())
		r.Client = &http.Client{Transport: &countedClient{limit: 4, spend: spend}}
		rec := run(t, r, s, runner.Options{Channels: []channel.Channel{ch}, Budget: budget})
		got := ch.take()
		sent = append(sent, got...)
		if runs == 1 && (rec.Status != model.StatusBudgetExhausted || len(got) != 0 || rec.Stalled != 0) {
			t.Errorf("run 1: %s, sent %d, stalled %d; want stopped by its budget, nothing sent, progress made", rec.Status, len(got), rec.Stalled)
		}
		if runs > 1 && runs < 5 && (len(got) != 20 || rec.Stalled != 0) {
			t.Errorf("run %d sent %d URLs (stalled %d); want the 20 of the two sitemaps the run before read", runs, len(got), rec.Stalled)
		}
	}
	slices.Sort(sent)
	if !slices.Equal(sent, big.urls()) {
		t.Fatalf("after %d runs, %d of %d URLs sent (each once: %v)", runs, len(sent), len(big.urls()), len(slices.Compact(slices.Clone(sent))) == len(sent))
	}
	// 9 sitemaps at 2 a run take 5 runs to read; the 5th sends its own, as it has no more to read.
	if runs > 6 {
		t.Errorf("the URLs took %d runs; want at most 6", runs)
	}
	for c := range big.children {
		if n := big.asked[c].Load(); n != 1 {
			t.Errorf("child %d was asked for %d times; want once: a sitemap read whole is not read again until the read ends", c, n)
		}
	}
	// The read ended and everything was settled: the next run reads every sitemap again, and
	// has nothing to send.
	r.Client = nil
	rec := run(t, r, s, runner.Options{Channels: []channel.Channel{ch}})
	if got := ch.take(); len(got) != 0 || rec.Status != model.StatusOK || rec.TotalURLs != 90 {
		t.Errorf("the run after: %s, %d URLs, sent %v", rec.Status, rec.TotalURLs, got)
	}
	for c := range big.children {
		if n := big.asked[c].Load(); n != 2 {
			t.Errorf("child %d was asked for %d times; want twice once the read began again", c, n)
		}
	}
}

// TestAReadOverSeveralRunsSeesChanges checks that a page changed in a sitemap the read in progress
// took goes with the next read, and that a page the first read never met is new to it.
func TestAReadOverSeveralRunsSeesChanges(t *testing.T) {
	big := newBigSite(t, 3, 2)
	r := runner.New(storetest.Open(t))
	s := newSite(t, "    sitemap: {retries: 0}\n")
	s.site.Sitemaps = []string{big.srv.URL + "/index.xml"}
	ch := &fakeChannel{name: "indexnow", batch: 1000}
	for range 3 {
		budget, spend := context.WithCancelCause(context.Background())
		r.Client = &http.Client{Transport: &countedClient{limit: 3, spend: spend}}
		run(t, r, s, runner.Options{Channels: []channel.Channel{ch}, Budget: budget})
	}
	if got := ch.take(); len(got) != 6 {
		t.Fatalf("three runs of one sitemap each sent %d URLs; want 6", len(got))
	}
	big.lastmod = func(int) string { return "2026-06-01" }
	r.Client = nil
	run(t, r, s, runner.Options{Channels: []channel.Channel{ch}})
	if got := ch.take(); len(got) != 6 {
		t.Errorf("after every page changed, the next run sent %d; want 6", len(got))
	}
}

// TestAStalledSiteFails checks that a site whose budget ends before it gets anywhere — its only
// sitemap never answers — fails at its third run in a row, naming the budget to raise, and that
// the count ends with a run that gets on.
func TestAStalledSiteFails(t *testing.T) {
	release := make(chan struct{})
	var silent atomic.Bool
	silent.Store(true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if silent.Load() {
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		fmt.Fprint(w, "<urlset><url><loc>https://a.example/x</loc></url></urlset>")
	}))
	defer srv.Close()
	defer close(release)
	r := runner.New(storetest.Open(t))
	s := newSite(t, "    runBudget: 200ms\n    sitemap: {retries: 0}\n")
	s.site.Sitemaps = []string{srv.URL + "/sitemap.xml"}
	ch := &fakeChannel{name: "indexnow", batch: 10}
	opt := runner.Options{Channels: []channel.Channel{ch}}
	for n := 1; n <= 3; n++ {
		rec := run(t, r, s, opt)
		want := model.StatusBudgetExhausted
		if n == 3 {
			want = model.StatusFailed
		}
		if rec.Status != want || rec.Stalled != n {
			t.Fatalf("run %d: %s, stalled %d; want %s, %d", n, rec.Status, rec.Stalled, want, n)
		}
		if n == 3 && (len(rec.Errors) != 1 || !strings.Contains(rec.Errors[0], "runBudget") || !strings.Contains(rec.Errors[0], "3 runs in a row") ||
			!strings.Contains(rec.Errors[0], srv.URL+"/sitemap.xml had sent nothing")) {
			t.Errorf("the third stalled run's errors: %q", rec.Errors)
		}
	}
	silent.Store(false)
	rec := run(t, r, s, opt)
	if rec.Status != model.StatusOK || rec.Stalled != 0 || !slices.Equal(ch.take(), urls("/x")) {
		t.Errorf("once the sitemap answers: %s, stalled %d", rec.Status, rec.Stalled)
	}
}

// TestAStallNeedsThreeInARow checks that runs that get on, however little, between stopped ones
// start the count again.
func TestAStallNeedsThreeInARow(t *testing.T) {
	var slow atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if slow.Load() {
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
			return
		}
		fmt.Fprint(w, "<urlset><url><loc>https://a.example/y</loc></url></urlset>")
	}))
	defer srv.Close()
	r := runner.New(storetest.Open(t))
	s := newSite(t, "    runBudget: 200ms\n    sitemap: {retries: 0}\n")
	s.site.Sitemaps = []string{srv.URL + "/sitemap.xml"}
	opt := runner.Options{Channels: []channel.Channel{&fakeChannel{name: "indexnow", batch: 10}}}
	for i, stalls := range []bool{true, true, false, true, true} {
		slow.Store(stalls)
		rec := run(t, r, s, opt)
		if stalls == (rec.Stalled == 0) || rec.Status == model.StatusFailed {
			t.Errorf("run %d (stalls %v): %s, stalled %d", i+1, stalls, rec.Status, rec.Stalled)
		}
	}
}

// TestAFirstRunAfterAReadOverSeveralRuns checks that what needs every sitemap — a feed's first
// run, with its newest pages — waits for the run that reaches the end of the read, and gets the
// newest pages of every sitemap then, those taken from memory with their URLs.
func TestAFirstRunAfterAReadOverSeveralRuns(t *testing.T) {
	big := newBigSite(t, 5, 2)
	r := runner.New(storetest.Open(t))
	s := newSite(t, "    sitemap: {retries: 0}\n")
	s.site.Sitemaps = []string{big.srv.URL + "/index.xml"}
	ch := &selective{sel: channel.Selection{OnlyNew: true, Newest: 3, FirstRun: true}}
	var rec *model.Record
	for runs := 1; runs <= 3; runs++ {
		budget, spend := context.WithCancelCause(context.Background())
		r.Client = &http.Client{Transport: &countedClient{limit: 4, spend: spend}}
		ch.due, ch.newest = nil, nil
		rec = run(t, r, s, runner.Options{Channels: []channel.Channel{ch}, Budget: budget})
		if runs < 3 && (ch.due != nil || rec.Channels["feed"].Submitted != 0) {
			t.Fatalf("run %d, before the read reached its end: delivered %v", runs, ch.due)
		}
	}
	// Children 0–4 are dated Jan 1–5: the newest three pages are child 4's two and one of child 3's.
	if len(ch.newest) != 3 || !strings.HasPrefix(ch.newest[0], "https://a.example/p/4-") || !strings.HasPrefix(ch.newest[2], "https://a.example/p/3-") ||
		ch.partial || rec.Channels["feed"].Submitted != 3 || rec.Channels["feed"].Backlog != 7 {
		t.Errorf("the run that ended the read: newest %q (partial %v), %+v", ch.newest, ch.partial, rec.Channels["feed"])
	}
}

// TestAStallSaysHowShortTheBudgetFell: a sitemap that comes slowly, its length announced, is
// still being read when the budget ends; the third such run says how long reading it whole takes
// at that pace.
func TestAStallSaysHowShortTheBudgetFell(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100000")
		w.Write([]byte("<urlset>" + strings.Repeat(" ", 10_000-len("<urlset>"))))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	r := runner.New(storetest.Open(t))
	s := newSite(t, "    runBudget: 300ms\n    sitemap: {retries: 0}\n")
	s.site.Sitemaps = []string{srv.URL + "/sitemap.xml"}
	opt := runner.Options{Channels: []channel.Channel{&fakeChannel{name: "indexnow", batch: 10}}}
	var rec *model.Record
	for range 3 {
		rec = run(t, r, s, opt)
	}
	// 10,000 of 100,000 bytes in the run's 300ms: about 3s for the whole.
	want := srv.URL + "/sitemap.xml had sent 10000 of 100000 bytes after "
	if rec.Status != model.StatusFailed || len(rec.Errors) != 1 || !strings.Contains(rec.Errors[0], want) ||
		!strings.Contains(rec.Errors[0], "so raise runBudget (300ms) to at least ") {
		t.Errorf("%s %q; want it to say %q and what to raise runBudget to", rec.Status, rec.Errors, want)
	}
}

// TestAStallCountsWhatItAskedFor: a run that takes sitemaps from the unfinished read and then
// gets nowhere counts, among the files it asked for, only those it asked for.
func TestAStallCountsWhatItAskedFor(t *testing.T) {
	var hang atomic.Bool
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/index.xml":
			fmt.Fprintf(w, "<sitemapindex><sitemap><loc>%[1]s/0.xml</loc></sitemap><sitemap><loc>%[1]s/1.xml</loc></sitemap></sitemapindex>", srv.URL)
		case r.URL.Path == "/1.xml" && hang.Load():
			<-r.Context().Done()
		default:
			fmt.Fprintf(w, "<urlset><url><loc>https://a.example%s</loc></url></urlset>", strings.TrimSuffix(r.URL.Path, ".xml"))
		}
	}))
	defer srv.Close()
	r := runner.New(storetest.Open(t))
	s := newSite(t, "    sitemap: {retries: 0}\n")
	s.site.Sitemaps = []string{srv.URL + "/index.xml"}
	opt := runner.Options{Channels: []channel.Channel{&fakeChannel{name: "indexnow", batch: 10}}}
	budget, spend := context.WithCancelCause(context.Background())
	r.Client = &http.Client{Transport: &countedClient{limit: 3, spend: spend}}
	opt.Budget = budget
	run(t, r, s, opt) // the index and 0.xml
	r.Client, hang = nil, atomic.Bool{}
	hang.Store(true)
	var rec *model.Record
	for range 4 { // the first sends what the read took, the three after get nowhere
		budget, spend := context.WithCancelCause(context.Background())
		time.AfterFunc(200*time.Millisecond, func() { spend(errors.New("the invocation's budget is spent")) })
		opt.Budget = budget
		rec = run(t, r, s, opt)
	}
	if rec.Status != model.StatusFailed || len(rec.Errors) != 1 || !strings.Contains(rec.Errors[0], "this run asked for 2 files (indexes included)") {
		t.Errorf("%s %q; want it failed, having asked for the index and 1.xml", rec.Status, rec.Errors)
	}
}

// TestIndexNowDeliversAsTheReadGoes checks that the real IndexNow channel, preflight on, gets
// the pages of a read over several runs as the read goes, as docs/runs.md says: only a channel
// that ranks what is due (Bing's quota) waits for the run that reaches the end of the read.
func TestIndexNowDeliversAsTheReadGoes(t *testing.T) {
	big := newBigSite(t, 9, 10)
	st := storetest.Open(t)
	r := runner.New(st)
	s := newSite(t, "    sitemap: {retries: 0}\n"+
		"    indexnow: {enabled: true, key: a1b2c3d4e5f6a7b8c9d0, endpoints: [https://engine.example/indexnow], interval: 1ms, preflight: true}\n")
	s.site.Sitemaps = []string{big.srv.URL + "/index.xml"}
	engine := &enginetest.IndexNow{FetchKey: func(string) (string, error) { return "a1b2c3d4e5f6a7b8c9d0", nil }}
	pages := &siteAnswers{status: map[string]int{}}
	engineClient := &http.Client{Transport: engineAt{engine: enginetest.Client(engine).Transport, site: pages}}
	for i := 1; i <= 3; i++ {
		budget, spend := context.WithCancelCause(context.Background())
		r.Client = &http.Client{Transport: &countedClient{limit: 4, spend: spend}}
		in := indexnow.New(s.site, engineClient, "sitepush-test")
		in.Preflight(preflight.New(engineClient, "sitepush-test"))
		rec := run(t, r, s, runner.Options{Channels: []channel.Channel{in}, Budget: budget})
		if want := 20 * (i - 1); len(engine.Accepted()) != want {
			t.Fatalf("after run %d (%s), IndexNow got %d URLs; want %d: the pages of the sitemaps read whole by the runs before, as the read goes",
				i, rec.Status, len(engine.Accepted()), want)
		}
	}
}
