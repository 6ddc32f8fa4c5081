package runner_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

func TestBacklogNone(t *testing.T) {
	st := storetest.Open(t)
	r := runner.New(st)
	s := newSite(t, "    backlog: none\n")
	in := &fakeChannel{name: "indexnow", batch: 10}
	s.publish("/a 2026-01-01", "/b 2026-01-01", "/c")
	dry := run(t, r, s, runner.Options{Channels: []channel.Channel{in}, DryRun: true})
	if c := dry.Channels["indexnow"]; c.Due != 0 || c.Skipped != 0 || c.Backlog != 3 || len(c.Sample) != 0 {
		t.Errorf("dry run of a first run with backlog none: %+v", c)
	}
	rec := run(t, r, s, runner.Options{Channels: []channel.Channel{in}})
	if got := in.take(); len(got) != 0 || rec.Channels["indexnow"].Backlog != 3 || rec.Channels["indexnow"].Skipped != 0 || rec.Channels["indexnow"].Due != 0 ||
		!slices.ContainsFunc(rec.Notes, func(n string) bool {
			return strings.Contains(n, "backlog none: 3 URLs older than that, not sent")
		}) {
		t.Fatalf("first run: sent %v, %+v, notes %q", got, rec.Channels["indexnow"], rec.Notes)
	}
	s.publish("/a 2026-01-01", "/b 2026-03-01", "/c", "/d")
	run(t, r, s, runner.Options{Channels: []channel.Channel{in}})
	if got := in.take(); !slices.Equal(got, urls("/b", "/d")) {
		t.Errorf("after a change and a new page: sent %v", got)
	}
	// A channel turned on later has a first run of its own.
	bing := &fakeChannel{name: "bing", batch: 10}
	s.publish("/a 2026-01-01", "/b 2026-03-01", "/c", "/d", "/e")
	run(t, r, s, runner.Options{Channels: []channel.Channel{in, bing}})
	if a, b := in.take(), bing.take(); !slices.Equal(a, urls("/e")) || len(b) != 0 {
		t.Errorf("a channel's first run after another's: indexnow %v, bing %v", a, b)
	}
}

func TestBacklogDuration(t *testing.T) {
	st := storetest.Open(t)
	r := runner.New(st)
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	r.Now = func() time.Time { return now }
	s := newSite(t, "    backlog: 720h\n")
	in := &fakeChannel{name: "indexnow", batch: 10}
	s.publish("/new 2026-04-26", "/edge 2026-04-01", "/old 2026-01-01", "/none")
	dry := run(t, r, s, runner.Options{Channels: []channel.Channel{in}, DryRun: true})
	if c := dry.Channels["indexnow"]; c.Due != 2 || c.Backlog != 2 || !slices.Equal(slices.Sorted(slices.Values(c.Sample)), urls("/edge", "/new")) {
		t.Errorf("dry run: %+v", c)
	}
	run(t, r, s, runner.Options{Channels: []channel.Channel{in}})
	if got := in.take(); !slices.Equal(got, urls("/edge", "/new")) {
		t.Errorf("first run with backlog 720h sent %v, want the pages of the last 30 days", got)
	}
}

func TestBacklogWaitsForAWholeRead(t *testing.T) {
	st := storetest.Open(t)
	r := runner.New(st)
	s := newSite(t, "    backlog: none\n")
	cfg := filepath.Join(s.dir, "c.yaml")
	text, _ := os.ReadFile(cfg)
	os.WriteFile(cfg, []byte(strings.Replace(string(text), "[sitemap.xml]", "[sitemap.xml, missing.xml]", 1)), 0o644)
	c, err := loadConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.site = &c.Sites[0]
	in := &fakeChannel{name: "indexnow", batch: 10}
	s.publish("/a", "/b")
	rec := run(t, r, s, runner.Options{Channels: []channel.Channel{in}})
	if got := in.take(); len(got) != 0 || !slices.ContainsFunc(rec.Notes, func(n string) bool { return strings.Contains(n, "waits for a run that reads every sitemap whole") }) {
		t.Fatalf("a first run that read a sitemap in part: sent %v, notes %q", got, rec.Notes)
	}
	os.Remove(filepath.Join(s.dir, "missing.xml"))
	os.WriteFile(filepath.Join(s.dir, "missing.xml"), []byte("<urlset><url><loc>https://a.example/c</loc></url></urlset>"), 0o644)
	rec = run(t, r, s, runner.Options{Channels: []channel.Channel{in}})
	if got := in.take(); len(got) != 0 || rec.Channels["indexnow"].Backlog != 3 {
		t.Errorf("the first whole read: sent %v, %+v", got, rec.Channels["indexnow"])
	}
}

// TestChosenURLsWaitForTheFirstRun: chosen URLs sent before a site's first run would make that
// run no first run, and the whole site would go out despite backlog none.
func TestChosenURLsWaitForTheFirstRun(t *testing.T) {
	st := storetest.Open(t)
	r := runner.New(st)
	s := newSite(t, "    backlog: none\n")
	in := &fakeChannel{name: "indexnow", batch: 10}
	s.publish("/a", "/b", "/c")
	_, err := r.Run(context.Background(), s.site, runner.Options{Trigger: "manual", Channels: []channel.Channel{in}, URLs: urls("/a")})
	if !errors.Is(err, runner.ErrFirstRunPending) || !strings.Contains(err.Error(), "run it first (sitepush run --site s") {
		t.Fatalf("chosen URLs before the first run: %v", err)
	}
	run(t, r, s, runner.Options{Channels: []channel.Channel{in}})
	rec := run(t, r, s, runner.Options{Channels: []channel.Channel{in}, URLs: urls("/a")})
	if got := in.take(); !slices.Equal(got, urls("/a")) || rec.Channels["indexnow"].Submitted != 1 {
		t.Errorf("chosen URLs after the first run: sent %v", got)
	}
}

// TestBacklogPerChannel: each channel's first run follows its own backlog, the site's when it
// has none; chosen URLs wait for the first run only on a channel whose backlog is not all.
func TestBacklogPerChannel(t *testing.T) {
	st := storetest.Open(t)
	r := runner.New(st)
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	r.Now = func() time.Time { return now }
	s := newSite(t, "    backlog: none\n    bing:\n      backlog: 720h\n")
	in, bing := &fakeChannel{name: "indexnow", batch: 10}, &fakeChannel{name: "bing", batch: 10}
	s.publish("/new 2026-04-26", "/old 2026-01-01", "/none")
	_, err := r.Run(context.Background(), s.site, runner.Options{Trigger: "manual", Channels: []channel.Channel{bing}, URLs: urls("/old")})
	if !errors.Is(err, runner.ErrFirstRunPending) || !strings.Contains(err.Error(), "has backlog 720h on bing") {
		t.Fatalf("chosen URLs for bing before the first run: %v", err)
	}
	rec := run(t, r, s, runner.Options{Channels: []channel.Channel{in, bing}})
	if a, b := in.take(), bing.take(); len(a) != 0 || !slices.Equal(b, urls("/new")) ||
		rec.Channels["indexnow"].Backlog != 3 || rec.Channels["bing"].Backlog != 2 {
		t.Errorf("first run with backlog none, bing 720h: indexnow sent %v, bing %v; %+v %+v", a, b, rec.Channels["indexnow"], rec.Channels["bing"])
	}

	// A site that never ran: chosen URLs go through indexnow, whose backlog is all.
	r = runner.New(storetest.Open(t))
	all := newSite(t, "    backlog: none\n    indexnow: {backlog: all}\n")
	all.publish("/a", "/b")
	rec = run(t, r, all, runner.Options{Trigger: "manual", Channels: []channel.Channel{in}, URLs: urls("/a")})
	if got := in.take(); !slices.Equal(got, urls("/a")) || rec.Channels["indexnow"].Submitted != 1 {
		t.Errorf("chosen URLs for indexnow, backlog all, before the first run: sent %v", got)
	}
}
