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
// nothing, sends what is new or changed since — not what the baseline lists unchanged, counted
// apart (baseline), never as skipped — and announces through IndexNow what the baseline lists and
// the sitemap lacks, when the site answers 404 for it; a dry run (the CI's) asks the site the same
// and finds the same due, removal notices included. Diff tells the same apart.
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
	if err != nil || base.Len() != 7 {
		t.Fatalf("ReadBaseline: %v", err)
	}
	t.Cleanup(func() { base.Close() })
	for _, dryRun := range []bool{true, false} {
		st, err := store.Open(context.Background(), store.Memory)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		r := runner.New(st)
		r.Client = &http.Client{Transport: answers}
		in, bing := &fakeChannel{name: "indexnow", batch: 100, removals: true}, &fakeChannel{name: "bing", batch: 100}
		rec := run(t, r, s, runner.Options{Channels: []channel.Channel{in, bing}, Baseline: base, DryRun: dryRun})
		got, sentBing := in.take(), bing.take()
		slices.Sort(got)
		slices.Sort(sentBing)
		changed := urls("/bare", "/new", "/older")
		in0, bing0 := rec.Channels["indexnow"], rec.Channels["bing"]
		switch {
		case in0.Due != 4 || bing0.Due != 3 || in0.Baseline != 3 || bing0.Baseline != 3 || in0.Skipped != 0 || bing0.Skipped != 0:
			t.Errorf("dry run %v: IndexNow %+v, Bing %+v; want 4 due on IndexNow (/gone's removal notice) and 3 on Bing, 3 unchanged since the baseline on each", dryRun, in0, bing0)
		case dryRun && (len(got) != 0 || !slices.Contains(in0.Sample, "https://a.example/gone")):
			t.Errorf("the dry run sent %v, showed %v; want nothing sent, /gone's removal notice shown", got, in0.Sample)
		case !dryRun && !slices.Equal(got, urls("/bare", "/gone", "/new", "/older")):
			t.Errorf("IndexNow got %v; want %v and /gone's removal notice", got, changed)
		case !dryRun && !slices.Equal(sentBing, changed):
			t.Errorf("Bing got %v; want %v", sentBing, changed)
		}
		answers.mu.Lock()
		probes := slices.Sorted(slices.Values(answers.asked))
		answers.asked = nil
		answers.mu.Unlock()
		if !slices.Equal(probes, []string{"/gone", "/moved"}) {
			t.Errorf("dry run %v asked the site about %v; want /gone and /moved, which left the sitemap", dryRun, probes)
		}
	}
	var changes []string
	_, err = runner.Diff(base, mustBaseline(t, f.url("/s.xml")), func(c runner.Change) error {
		changes = append(changes, c.Kind+" "+strings.TrimPrefix(c.URL, "https://a.example"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"new /new", "changed /bare", "changed /older", "removed /gone", "removed /moved"}
	if !slices.Equal(changes, want) {
		t.Errorf("Diff: %v, want %v", changes, want)
	}
}

func mustBaseline(t *testing.T, target string) *runner.Baseline {
	t.Helper()
	b, err := runner.ReadBaseline(context.Background(), sitemap.NewReader(sitemap.Defaults()), []string{target})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// TestABaselineOtherHosts: a run announces as removed only the site's own URLs the baseline
// lists and the sitemap lacks — not those of another host, though that host answers 404 for them
// (here the test's sitemap server) — and probes none of them; Diff leaves them out, counted.
func TestABaselineOtherHosts(t *testing.T) {
	f := newFiles(t)
	old := urlset("/same", "/gone")
	old = strings.Replace(old, "</urlset>", "<url><loc>"+f.url("/elsewhere")+"</loc></url></urlset>", 1)
	f.mu.Lock()
	f.by["/old.xml"], f.by["/s.xml"] = old, urlset("/same")
	f.mu.Unlock()
	answers := &siteAnswers{status: map[string]int{"/gone": http.StatusNotFound, "/elsewhere": http.StatusNotFound}}
	s := newSite(t, "")
	s.site.Sitemaps = []string{f.url("/s.xml")}
	base := mustBaseline(t, f.url("/old.xml"))
	st, err := store.Open(context.Background(), store.Memory)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	r := runner.New(st)
	r.Client = &http.Client{Transport: answers}
	in := &fakeChannel{name: "indexnow", batch: 100, removals: true}
	run(t, r, s, runner.Options{Channels: []channel.Channel{in}, Baseline: base})
	if got := in.take(); !slices.Equal(got, urls("/gone")) {
		t.Errorf("IndexNow got %v; want only the site's own removal notice, %v", got, urls("/gone"))
	}
	if probes := strings.Join(answers.asked, " "); probes != "/gone" {
		t.Errorf("the run probed %q; want only /gone", probes)
	}
	var changes []string
	site, err := runner.Diff(base, mustBaseline(t, f.url("/s.xml")), func(c runner.Change) error {
		changes = append(changes, c.Kind+" "+c.URL)
		return nil
	})
	if err != nil || !slices.Equal(changes, []string{"removed https://a.example/gone"}) || site.Host != "a.example" || site.Foreign != 1 {
		t.Errorf("Diff: %v, %+v, %v; want only removed https://a.example/gone, 1 other host's URL left out", changes, site, err)
	}
}
