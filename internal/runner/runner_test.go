package runner_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/store"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// fakeChannel delivers by accepting every URL, unless failing says otherwise, and remembers what
// it got.
type fakeChannel struct {
	name     string
	batch    int
	failing  func(channel.Due) string
	block    bool // after the first batch, wait for the run to end
	removals bool // it takes removal notices, as IndexNow does with indexnow.removed on
	mu       sync.Mutex
	got      []string
}

func (c *fakeChannel) Name() string { return c.name }

func (c *fakeChannel) Selection(context.Context) channel.Selection {
	return channel.Selection{Removals: c.removals}
}

func (c *fakeChannel) Deliver(ctx context.Context, q *channel.Queue, rep channel.Reporter) error {
	for from := 0; from < q.Len(); from += c.batch {
		if c.block && from > 0 {
			<-ctx.Done()
			return nil
		}
		due, err := q.Slice(ctx, from, from+c.batch)
		if err != nil {
			return err
		}
		var ok, bad []channel.Due
		for _, d := range due {
			c.mu.Lock()
			c.got = append(c.got, d.URL)
			c.mu.Unlock()
			if c.failing != nil && c.failing(d) != "" {
				bad = append(bad, d)
			} else {
				ok = append(ok, d)
			}
		}
		rep.Requested(channel.Request{Channel: c.name, Endpoint: "fake", URLs: len(due), Accepted: len(bad) == 0, Status: 200, Latency: time.Millisecond})
		if err := rep.Finished(channel.Outcome{Channel: c.name, URLs: ok, Delivered: true}); err != nil {
			return err
		}
		if len(bad) > 0 {
			if err := rep.Finished(channel.Outcome{Channel: c.name, URLs: bad, Err: c.failing(bad[0])}); err != nil {
				return err
			}
		}
	}
	return nil
}

// take returns the URLs sent since the last take, sorted: a run sends in hash order.
func (c *fakeChannel) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	got := c.got
	c.got = nil
	slices.Sort(got)
	return got
}

// site writes a sitemap and a configuration into a fresh directory and loads the site.
type site struct {
	dir  string
	site *config.Site
}

func newSite(t *testing.T, extra string) *site {
	return siteIn(t, t.TempDir(), "sitemap.xml", extra)
}

// siteIn writes into dir the configuration of a site of https://a.example whose sitemaps are
// those listed (YAML flow items), with extra lines, and loads the site.
func siteIn(t testing.TB, dir, sitemaps, extra string) *site {
	t.Helper()
	cfg := "sites:\n  - id: s\n    sitemaps: [" + sitemaps + "]\n    baseUrl: https://a.example\n" + extra
	os.WriteFile(filepath.Join(dir, "c.yaml"), []byte(cfg), 0o644)
	c, err := loadConfig(filepath.Join(dir, "c.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return &site{dir: dir, site: &c.Sites[0]}
}

func loadConfig(path string) (*config.Config, error) {
	return config.Load(path, func(string) (string, bool) { return "", false })
}

// publish writes the sitemap; each entry is "path" or "path lastmod".
func (s *site) publish(entries ...string) {
	os.WriteFile(filepath.Join(s.dir, "sitemap.xml"), []byte(urlset(entries...)), 0o644)
}

// urlset is a sitemap of pages "path" or "path lastmod" on https://a.example.
func urlset(pages ...string) string {
	var b strings.Builder
	b.WriteString("<urlset>")
	for _, p := range pages {
		path, lm, _ := strings.Cut(p, " ")
		fmt.Fprintf(&b, "<url><loc>https://a.example%s</loc>", path)
		if lm != "" {
			fmt.Fprintf(&b, "<lastmod>%s</lastmod>", lm)
		}
		b.WriteString("</url>")
	}
	return b.String() + "</urlset>"
}

func run(t *testing.T, r *runner.Runner, s *site, opt runner.Options) *model.Record {
	t.Helper()
	opt.Trigger = "cli"
	rec, err := r.Run(context.Background(), s.site, opt)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func urls(paths ...string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = "https://a.example" + p
	}
	return out
}

func TestRunFindsWhatChanged(t *testing.T) {
	st := storetest.Open(t)
	r := runner.New(st)
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	r.Now = func() time.Time { return now }
	s := newSite(t, "    resubmitAfter: 720h\n")
	ch := &fakeChannel{name: "indexnow", batch: 2}
	s.publish("/a 2026-01-01", "/b 2026-01-01", "/c", "/d 2026-01-01T10:00:00.123456Z")
	rec := run(t, r, s, runner.Options{Channels: []channel.Channel{ch}})
	if got := ch.take(); !slices.Equal(got, urls("/a", "/b", "/c", "/d")) || rec.Status != model.StatusOK || rec.TotalURLs != 4 {
		t.Fatalf("first run: %v, %+v", got, rec)
	}
	if got := ch.take(); run(t, r, s, runner.Options{Channels: []channel.Channel{ch}}).Channels["indexnow"].Skipped != 4 || len(got) != 0 {
		t.Fatalf("a rerun delivered %v", got)
	}
	// /a changes, /e appears, /b vanishes, /c (no lastmod) stays, /d keeps a lastmod finer than a millisecond.
	s.publish("/a 2026-02-01", "/c", "/d 2026-01-01T10:00:00.123456Z", "/e")
	rec = run(t, r, s, runner.Options{Channels: []channel.Channel{ch}})
	if got := ch.take(); !slices.Equal(got, urls("/a", "/e")) || rec.Channels["indexnow"].Skipped != 2 {
		t.Errorf("after a change: %v, %+v", got, rec.Channels["indexnow"])
	}
	// resubmitAfter: thirty days later everything present is due again.
	now = now.Add(721 * time.Hour)
	run(t, r, s, runner.Options{Channels: []channel.Channel{ch}})
	if got := ch.take(); len(got) != 4 {
		t.Errorf("after resubmitAfter: %v", got)
	}
	runs, _ := st.Runs(context.Background(), "s", 10)
	if len(runs) != 4 || runs[0].Status != model.StatusOK || runs[0].ID == 0 {
		t.Errorf("records: %+v", runs)
	}
}

func TestRunFailuresGoFirstNextTime(t *testing.T) {
	r := runner.New(storetest.Open(t))
	s := newSite(t, "")
	ch := &fakeChannel{name: "indexnow", batch: 10, failing: func(d channel.Due) string {
		if strings.HasSuffix(d.URL, "/b") {
			return "HTTP 503 from the engine"
		}
		return ""
	}}
	s.publish("/a", "/b", "/c")
	rec := run(t, r, s, runner.Options{Channels: []channel.Channel{ch}})
	if st := rec.Channels["indexnow"]; rec.Status != model.StatusPartial || st.Submitted != 2 || st.Failed != 1 || rec.Errors[0] != "indexnow: HTTP 503 from the engine" {
		t.Fatalf("%s %+v %q", rec.Status, st, rec.Errors)
	}
	ch.take()
	ch.failing = nil
	s.publish("/a", "/b", "/c", "/d")
	run(t, r, s, runner.Options{Channels: []channel.Channel{ch}})
	if got := ch.take(); !slices.Equal(got, urls("/b", "/d")) {
		t.Errorf("next run delivered %v, want the failed one first", got)
	}
}

func TestRunScope(t *testing.T) {
	r := runner.New(storetest.Open(t))
	s := newSite(t, "    include: [\"/blog/**\"]\n    exclude: [\"/blog/drafts/**\"]\n")
	os.WriteFile(filepath.Join(s.dir, "sitemap.xml"), []byte(`<urlset><url><loc>https://a.example/blog/a</loc></url>`+
		`<url><loc>https://a.example/blog/drafts/x</loc></url><url><loc>https://a.example/about</loc></url>`+
		`<url><loc>https://other.example/blog/b</loc></url><url><loc>HTTPS://A.EXAMPLE/blog/c?q=1</loc></url></urlset>`), 0o644)
	ch := &fakeChannel{name: "indexnow", batch: 10}
	rec := run(t, r, s, runner.Options{Channels: []channel.Channel{ch}})
	if got := ch.take(); !slices.Equal(got, []string{"https://a.example/blog/a", "https://a.example/blog/c?q=1"}) || rec.Filtered != 3 || rec.TotalURLs != 2 {
		t.Errorf("delivered %v, filtered %d", got, rec.Filtered)
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	state := storetest.State(t)
	ro, err := store.OpenReadOnly(context.Background(), state)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	r := runner.New(ro)
	s := newSite(t, "")
	s.publish("/a", "/b")
	ch := &fakeChannel{name: "indexnow", batch: 10}
	rec := run(t, r, s, runner.Options{Channels: []channel.Channel{ch}, DryRun: true})
	if got := ch.take(); len(got) != 0 || rec.Channels["indexnow"].Due != 2 || !slices.Equal(rec.Channels["indexnow"].Sample, urls("/a", "/b")) || rec.ID != 0 {
		t.Fatalf("dry run delivered %v, record %+v", got, rec.Channels["indexnow"])
	}
	if _, err := os.Stat(strings.TrimPrefix(state, "sqlite:")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a dry run created the state file: %v", err)
	}
}

func TestRunUnreadableSitemap(t *testing.T) {
	r := runner.New(storetest.Open(t))
	s := newSite(t, "")
	rec := run(t, r, s, runner.Options{Channels: []channel.Channel{&fakeChannel{name: "indexnow", batch: 1}}})
	if rec.Status != model.StatusFailed || rec.Sitemaps.Failed != 1 || !strings.Contains(rec.Errors[0], "no such file") {
		t.Errorf("%s %+v %q", rec.Status, rec.Sitemaps, rec.Errors)
	}
}

func TestRunBudget(t *testing.T) {
	r := runner.New(storetest.Open(t))
	s := newSite(t, "    runBudget: 100ms\n")
	s.publish("/a", "/b", "/c")
	ch := &fakeChannel{name: "indexnow", batch: 1, block: true}
	rec := run(t, r, s, runner.Options{Channels: []channel.Channel{ch}})
	if st := rec.Channels["indexnow"]; rec.Status != model.StatusBudgetExhausted || st.Submitted != 1 || st.Left != 2 ||
		len(rec.Errors) != 0 || !slices.Equal(rec.Notes, []string{"runBudget ran out: 2 due URLs left for the next run"}) {
		t.Fatalf("%s %+v %q %q", rec.Status, st, rec.Errors, rec.Notes)
	}
	first := ch.take()
	ch.block = false
	run(t, r, s, runner.Options{Channels: []channel.Channel{ch}})
	rest := slices.DeleteFunc(urls("/a", "/b", "/c"), func(u string) bool { return slices.Contains(first, u) })
	if got := ch.take(); !slices.Equal(got, rest) {
		t.Errorf("the run after one that sent %v delivered %v, want %v", first, got, rest)
	}
}

// TestAnInvocationsBudget ends a run through Options.Budget, as a Worker does when the
// subrequests of its invocation are spent: the run stops as at its runBudget, and says why.
func TestAnInvocationsBudget(t *testing.T) {
	r := runner.New(storetest.Open(t))
	s := newSite(t, "")
	s.publish("/a", "/b", "/c")
	ch := &fakeChannel{name: "indexnow", batch: 1, block: true}
	spent, spend := context.WithCancelCause(context.Background())
	time.AfterFunc(100*time.Millisecond, func() { spend(errors.New("the 45 subrequests of the invocation are spent")) })
	rec := run(t, r, s, runner.Options{Channels: []channel.Channel{ch}, Budget: spent})
	if st := rec.Channels["indexnow"]; rec.Status != model.StatusBudgetExhausted || !rec.Stopped || st.Submitted != 1 || st.Left != 2 ||
		len(rec.Errors) != 0 || !slices.Equal(rec.Notes, []string{"the 45 subrequests of the invocation are spent: 2 due URLs left for the next run"}) {
		t.Fatalf("%s, stopped %v, %+v %q %q", rec.Status, rec.Stopped, st, rec.Errors, rec.Notes)
	}
	ch.block = false
	if rec := run(t, r, s, runner.Options{Channels: []channel.Channel{ch}}); rec.Stopped || rec.Status != model.StatusOK {
		t.Errorf("a run that went to its end: %s, stopped %v", rec.Status, rec.Stopped)
	}
}

func TestRunWaitsForTheLease(t *testing.T) {
	st := storetest.Open(t)
	ctx := context.Background()
	other, err := st.AcquireLease(ctx, "s", "someone-else", time.Now(), time.Minute)
	if err != nil {
		t.Fatal("no lease:", err)
	}
	r := runner.New(st)
	r.LeasePoll = 10 * time.Millisecond
	var said []string
	r.Notify = func(m string) { said = append(said, m) }
	s := newSite(t, "")
	s.publish("/a")
	_, err = r.Run(ctx, s.site, runner.Options{NoWait: true})
	if !errors.Is(err, runner.ErrBusy) || !strings.Contains(err.Error(), "someone-else") {
		t.Errorf("no-wait: %v", err)
	}
	go func() {
		time.Sleep(50 * time.Millisecond)
		other.Release(ctx)
	}()
	rec, err := r.Run(ctx, s.site, runner.Options{})
	if err != nil || rec.Status != model.StatusOK || len(said) != 1 || !strings.Contains(said[0], "waiting for it to finish") {
		t.Errorf("waiting run: %v %v, said %q", rec, err, said)
	}
	if _, err := st.AcquireLease(ctx, "s", "third", time.Now(), time.Minute); err != nil {
		t.Error("a finished run must release its lease:", err)
	}
}

func TestFailuresComeBeforeTheBudget(t *testing.T) {
	r := runner.New(storetest.Open(t))
	s := newSite(t, "    runBudget: 100ms\n")
	s.publish("/a", "/b", "/c")
	ch := &fakeChannel{name: "indexnow", batch: 1, block: true, failing: func(channel.Due) string { return "HTTP 503" }}
	rec := run(t, r, s, runner.Options{Channels: []channel.Channel{ch}})
	if st := rec.Channels["indexnow"]; rec.Status != model.StatusFailed || st.Failed != 1 || st.Left != 2 {
		t.Errorf("%s %+v: a run that failed and then ran out of budget must not look merely stopped", rec.Status, st)
	}
	s.publish("/a", "/b", "/c", "/d")
	ch.failing = func(d channel.Due) string {
		if strings.HasSuffix(d.URL, "/a") {
			return "HTTP 503"
		}
		return ""
	}
	ch.batch = 2
	// The run goes on where the last one stopped: it sends what that one left before it reads
	// the sitemap again.
	rec = run(t, r, s, runner.Options{Channels: []channel.Channel{ch}})
	if st := rec.Channels["indexnow"]; rec.Status != model.StatusPartial || st.Due != 3 || st.Submitted != 1 || st.Failed != 1 || st.Left != 1 {
		t.Errorf("%s %+v", rec.Status, st)
	}
	ch.block = false
	rec = run(t, r, s, runner.Options{Channels: []channel.Channel{ch}})
	if st := rec.Channels["indexnow"]; rec.Status != model.StatusPartial || st.Due != 2 || st.Submitted != 1 || st.Failed != 1 {
		t.Errorf("then the rest: %s %+v", rec.Status, st)
	}
	ch.take()
	run(t, r, s, runner.Options{Channels: []channel.Channel{ch}})
	if got := ch.take(); !slices.Equal(got, urls("/a", "/d")) {
		t.Errorf("the run after the read ended sent %v; want the failed one again and the new page", got)
	}
}

func TestBudgetEndsDuringTheRead(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<urlset>"))
		for i := range 500 {
			fmt.Fprintf(w, "<url><loc>https://a.example/p/%d</loc></url>", i)
		}
		w.(http.Flusher).Flush()
		select { // then the server stalls
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}))
	defer srv.Close()
	st := storetest.Open(t)
	r := runner.New(st)
	s := newSite(t, "    runBudget: 300ms\n    sitemap: {retries: 0}\n")
	s.site.Sitemaps = []string{srv.URL + "/sitemap.xml"}
	ch := &fakeChannel{name: "indexnow", batch: 100}
	rec := run(t, r, s, runner.Options{Channels: []channel.Channel{ch}})
	// It read no sitemap whole and delivered nothing: a run without progress, the first.
	if rec.Status != model.StatusBudgetExhausted || rec.TotalURLs != 500 || rec.Sitemaps.Read != 0 || rec.Sitemaps.Failed != 0 ||
		len(rec.Notes) != 2 || !strings.Contains(rec.Notes[0], "the sitemaps were read only in part (500 URLs)") || rec.Stalled != 1 {
		t.Fatalf("%s, %d URLs, sitemaps %+v, notes %q, errors %q", rec.Status, rec.TotalURLs, rec.Sitemaps, rec.Notes, rec.Errors)
	}
	// What was read is in the catalogue, due next run.
	if got, _ := st.URLs(context.Background(), "s", []int64{runner.URLHash([]byte("https://a.example/p/499"))}); got[0] == "" {
		t.Error("the URLs read before the budget ran out were not recorded")
	}
}

func TestSinceRunsOnceForSchedulersFiringTogether(t *testing.T) {
	st := storetest.Open(t)
	ctx := context.Background()
	s := newSite(t, "")
	s.publish("/a")
	r := runner.New(st)
	fired := time.Now().Add(-time.Second)
	var started []int64
	opt := runner.Options{Trigger: "schedule", Since: fired, NoWait: true, Started: func(id int64) { started = append(started, id) },
		Channels: []channel.Channel{&fakeChannel{name: "indexnow", batch: 10}}}
	rec, err := r.Run(ctx, s.site, opt)
	if err != nil || rec.Status != model.StatusOK || !slices.Equal(started, []int64{rec.ID}) {
		t.Fatalf("the first scheduler: %v, %v, started %v", rec, err, started)
	}
	if _, err := r.Run(ctx, s.site, opt); !errors.Is(err, runner.ErrAlreadyRun) || len(started) != 1 {
		t.Errorf("the second scheduler of the same fire time: %v, started %v", err, started)
	}
	opt.Since = time.Now().Add(time.Second)
	if _, err := r.Run(ctx, s.site, opt); err != nil || len(started) != 2 {
		t.Errorf("the next fire time: %v", err)
	}
}

func TestOnRequest(t *testing.T) {
	s := newSite(t, "")
	s.publish("/a", "/b", "/c")
	r := runner.New(storetest.Open(t))
	var got []channel.Request
	r.OnRequest = func(site string, req channel.Request) {
		if site == "s" {
			got = append(got, req)
		}
	}
	r.Run(context.Background(), s.site, runner.Options{Channels: []channel.Channel{&fakeChannel{name: "indexnow", batch: 2}}})
	if len(got) != 2 || got[0].URLs != 2 || got[1].URLs != 1 {
		t.Errorf("requests told: %+v", got)
	}
}

// idleChannel counts the runs that had nothing due on it.
type idleChannel struct {
	fakeChannel
	idle int
}

func (c *idleChannel) Idle(context.Context, channel.Reporter) { c.idle++ }

// TestAnIdleChannel: a channel with work of its own (the feed's file) is told of a run that has
// nothing due on it, and only then; a dry run tells it nothing.
func TestAnIdleChannel(t *testing.T) {
	r := runner.New(storetest.Open(t))
	s := newSite(t, "")
	ch := &idleChannel{fakeChannel: fakeChannel{name: "feed", batch: 10}}
	s.publish("/a", "/b")
	run(t, r, s, runner.Options{Channels: []channel.Channel{ch}})
	if got := ch.take(); len(got) != 2 || ch.idle != 0 {
		t.Fatalf("a run with 2 due: delivered %v, idle %d times", got, ch.idle)
	}
	run(t, r, s, runner.Options{Channels: []channel.Channel{ch}})
	if got := ch.take(); len(got) != 0 || ch.idle != 1 {
		t.Errorf("a run with nothing due: delivered %v, idle %d times; want 0 and 1", got, ch.idle)
	}
	run(t, r, s, runner.Options{Channels: []channel.Channel{ch}, DryRun: true})
	if ch.idle != 1 {
		t.Errorf("a dry run told the channel it was idle")
	}
}
