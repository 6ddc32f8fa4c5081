package runner_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// follower records what a run tells it.
type follower struct {
	changed [][]string
	starts  []time.Time
	fail    error
}

func (f *follower) Name() string { return "follower" }

func (f *follower) Sitemaps(_ context.Context, _ *config.Site, changed []string) (string, error) {
	f.changed = append(f.changed, slices.Clone(changed))
	return "told", f.fail
}

func (f *follower) Follow(_ context.Context, _ *config.Site, start time.Time) (string, error) {
	f.starts = append(f.starts, start)
	return "", nil
}

// TestFollowersAreToldOfChangedSitemaps: a first run tells its followers of every sitemap, a run
// where nothing changed of none, a run after one changed of that one; a dry run tells nothing,
// and a follower's failure is an error of the run that holds no channel up.
func TestFollowersAreToldOfChangedSitemaps(t *testing.T) {
	f := newFiles(t)
	f.set("/a.xml", false, "https://a.example/a1")
	f.set("/b.xml", false, "https://a.example/b1")
	r := runner.New(storetest.Open(t))
	fol := &follower{}
	r.Followers = func(*config.Site) []runner.Follower { return []runner.Follower{fol} }
	s := newSite(t, "    sitemap: {retries: 0}\n")
	s.site.Sitemaps = []string{f.url("/a.xml"), f.url("/b.xml")}
	ch := &fakeChannel{name: "indexnow", batch: 100}
	opt := runner.Options{Channels: []channel.Channel{ch}}

	run(t, r, s, opt)
	f.set("/b.xml", false, "https://a.example/b1")
	run(t, r, s, opt) // the same bytes: no change
	f.set("/b.xml", false, "https://a.example/b1", "https://a.example/b2")
	dry := opt
	dry.DryRun = true
	run(t, r, s, dry)
	fol.fail = errors.New("refused")
	rec := run(t, r, s, opt)
	want := [][]string{{f.url("/a.xml"), f.url("/b.xml")}, {f.url("/b.xml")}}
	if !slices.EqualFunc(fol.changed, want, slices.Equal) {
		t.Errorf("followers were told of %v; want %v", fol.changed, want)
	}
	if len(fol.starts) != 3 || !fol.starts[2].Equal(rec.StartedAt) {
		t.Errorf("followed %d runs (%v); want the 3 that wrote, each with its start", len(fol.starts), fol.starts)
	}
	if got := ch.take(); !slices.Contains(got, "https://a.example/b2") {
		t.Errorf("with the follower failing, the channel sent %v; want b2", got)
	}
	if len(rec.Errors) != 0 || !slices.Contains(rec.Notes, "follower: failed: refused") || !slices.Contains(rec.Notes, "follower: told") {
		t.Errorf("record: errors %v, notes %v; want the follower's failure and note among the notes", rec.Errors, rec.Notes)
	}
}
