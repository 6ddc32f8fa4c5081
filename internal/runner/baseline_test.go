package runner_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/sitemap"
	"github.com/sitepush/sitepush/internal/store"
)

// TestABaseline: a run given the sitemap as it was before a deploy, on a state that keeps
// nothing, sends what is new or changed since — not what the baseline lists unchanged — and
// announces through IndexNow what the baseline lists and the sitemap lacks, when the site answers
// 404 for it; a dry run finds the same due and probes nothing. Diff tells the same apart.
func TestABaseline(t *testing.T) {
	f := newFiles(t)
	old := urlset("/same 2026-01-01", "/older 2026-01-01", "/none", "/bare", "/gone 2026-01-01", "/moved", "/failed 2026-01-01")
	now := urlset("/same 2026-01-01", "/older 2026-02-01", "/none", "/bare 2026-02-01", "/new", "/failed 2026-01-01")
	f.mu.Lock()
	f.by["/old.xml"], f.by["/s.xml"] = old, now
	f.mu.Unlock()
	answers := &siteAnswers{status: map[string]int{"/gone": http.StatusNotFound, "/moved": http.StatusMovedPermanently}}
	s := newSite(t, "")
	s.site.Sitemaps = []string{f.url("/s.xml")}
	base, err := runner.ReadBaseline(context.Background(), sitemap.NewReader(sitemap.Defaults()), []string{f.url("/old.xml")})
	if err != nil || len(base) != 7 {
		t.Fatalf("ReadBaseline: %d pages, %v", len(base), err)
	}
	for _, dryRun := range []bool{true, false} {
		st, err := store.Open(context.Background(), store.Memory)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		r := runner.New(st)
		r.Client = &http.Client{Transport: answers}
		in, bing := &fakeChannel{name: "indexnow", batch: 100}, &fakeChannel{name: "bing", batch: 100}
		rec := run(t, r, s, runner.Options{Channels: []channel.Channel{in, bing}, Baseline: base, DryRun: dryRun})
		got, sentBing := in.take(), bing.take()
		slices.Sort(got)
		slices.Sort(sentBing)
		changed := urls("/bare", "/new", "/older")
		switch {
		case dryRun && (len(got) != 0 || rec.Channels["indexnow"].Due != 3 || rec.Channels["bing"].Due != 3):
			t.Errorf("the dry run sent %v, found %d due on IndexNow and %d on Bing; want 3 each", got, rec.Channels["indexnow"].Due, rec.Channels["bing"].Due)
		case !dryRun && !slices.Equal(got, urls("/bare", "/gone", "/new", "/older")):
			t.Errorf("IndexNow got %v; want %v and /gone's removal notice", got, changed)
		case !dryRun && !slices.Equal(sentBing, changed):
			t.Errorf("Bing got %v; want %v", sentBing, changed)
		}
		if probes := strings.Join(answers.asked, " "); dryRun && probes != "" {
			t.Errorf("the dry run probed %s", probes)
		}
	}
	var changes []string
	for _, c := range runner.Diff(base, mustBaseline(t, f.url("/s.xml"))) {
		changes = append(changes, c.Kind+" "+strings.TrimPrefix(c.URL, "https://a.example"))
	}
	want := []string{"new /new", "changed /bare", "changed /older", "removed /gone", "removed /moved"}
	if !slices.Equal(changes, want) {
		t.Errorf("Diff: %v, want %v", changes, want)
	}
}

func mustBaseline(t *testing.T, target string) runner.Baseline {
	t.Helper()
	b, err := runner.ReadBaseline(context.Background(), sitemap.NewReader(sitemap.Defaults()), []string{target})
	if err != nil {
		t.Fatal(err)
	}
	return b
}
