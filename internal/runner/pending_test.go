package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/kvstate"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// scanned counts what each PendingDeliveries call of a run found.
type scanned struct {
	runner.State
	found []int
}

func (s *scanned) PendingDeliveries(ctx context.Context, site string, q model.PendingQuery) ([]model.Pending, error) {
	p, err := s.State.PendingDeliveries(ctx, site, q)
	s.found = append(s.found, len(p))
	return p, err
}

// state returns s as the state of a run, with the optional parts of the state it wraps.
func (s *scanned) state(t testing.TB) runner.State {
	return decorate(t, s, s.State)
}

// states are the two states a run may have, each opened for a run at a time: the SQL store, and
// the KV state of a Worker's invocation at that time.
func states(t *testing.T) map[string]func(at time.Time) runner.State {
	db := storetest.Open(t)
	kv := &kvstate.MemKV{}
	return map[string]func(time.Time) runner.State{
		"sql": func(time.Time) runner.State { return db },
		"kv": func(at time.Time) runner.State {
			return kvstate.New(kv, kvstate.Options{Now: func() time.Time { return at }})
		},
	}
}

// onlyNew is a channel that, like the feed, takes only URLs it never had.
type onlyNew struct{ *fakeChannel }

func (c onlyNew) Selection(context.Context) channel.Selection {
	return channel.Selection{OnlyNew: true}
}

// A URL two sitemaps list is remembered with both: when the first drops it, and the second does
// not change, its failure is still found and it is sent again. (The record's count leaves it out:
// a sitemap not read again counts what it counted when remembered, less the pages another had.)
func TestAPageInTwoSitemaps(t *testing.T) {
	for name, open := range states(t) {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			write := func(file string, paths ...string) {
				doc := "<urlset>"
				for _, p := range paths {
					doc += "<url><loc>https://a.example" + p + "</loc></url>"
				}
				os.WriteFile(filepath.Join(dir, file), []byte(doc+"</urlset>"), 0o644)
			}
			write("a.xml", "/u", "/x")
			write("b.xml", "/u", "/v")
			s := siteIn(t, dir, "a.xml, b.xml", "")
			in := &fakeChannel{name: "indexnow", batch: 50, failing: func(d channel.Due) string {
				if d.URL == "https://a.example/u" {
					return "HTTP 503"
				}
				return ""
			}}
			at := time.Now()
			runAt := func() *model.Record {
				at = at.Add(time.Hour)
				return run(t, runner.New(open(at)), s, runner.Options{Channels: []channel.Channel{in}})
			}
			if runAt(); !slices.Equal(in.take(), urls("/u", "/v", "/x")) {
				t.Fatal("the first run did not send the three URLs")
			}
			in.failing = nil
			write("a.xml", "/x", "/y")
			runAt()
			if got := in.take(); !slices.Equal(got, urls("/u", "/y")) {
				t.Errorf("a.xml dropped the failed /u, b.xml still lists it: sent %v, want /u and /y", got)
			}
		})
	}
}

// A channel that never sends a URL again (the feed) is not asked for URLs to resubmit: once
// resubmitAfter has passed since its first run, runs still find nothing pending.
func TestAFeedIsNotAskedToResubmit(t *testing.T) {
	for name, open := range states(t) {
		t.Run(name, func(t *testing.T) {
			start := time.Now().Add(time.Hour)
			s := newSite(t, "    resubmitAfter: 720h\n")
			feed := onlyNew{&fakeChannel{name: "feed", batch: 10}}
			runAt := func(at time.Time) *scanned {
				st := &scanned{State: open(at)}
				r := runner.New(st.state(t))
				r.Now = func() time.Time { return at }
				run(t, r, s, runner.Options{Channels: []channel.Channel{feed}})
				return st
			}
			s.publish("/a", "/b", "/c")
			runAt(start)
			feed.take()
			for day := 31; day < 34; day++ {
				if st := runAt(start.Add(time.Duration(day) * 24 * time.Hour)); len(feed.take()) != 0 || !slices.Equal(st.found, []int{0}) {
					t.Errorf("day %d: found %v pending for the feed", day, st.found)
				}
			}
		})
	}
}

// A URL removed from the sitemaps keeps its last acceptance, long ago. Once a complete run has
// resubmitted the others, it no longer holds the floor down: the runs after find nothing pending
// without looking (SQL; the Worker's shards keep their summary until they are written again).
func TestARemovedURLDoesNotHoldTheFloor(t *testing.T) {
	st := storetest.Open(t)
	start := time.Now()
	s := newSite(t, "    resubmitAfter: 720h\n")
	in := &fakeChannel{name: "indexnow", batch: 10}
	runAt := func(day int) *scanned {
		sc := &scanned{State: st}
		r := runner.New(sc.state(t)) // the store's floors are what the test is about
		r.Now = func() time.Time { return start.Add(time.Duration(day) * 24 * time.Hour) }
		run(t, r, s, runner.Options{Channels: []channel.Channel{in}})
		return sc
	}
	s.publish("/a", "/gone")
	runAt(0)
	s.publish("/a")
	runAt(1)
	if runAt(31); !slices.Equal(in.take(), urls("/a", "/a", "/gone")) {
		t.Fatal("/a was not resubmitted after 30 days")
	}
	for day := 32; day < 35; day++ {
		if sc := runAt(day); len(in.take()) != 0 || !slices.Equal(sc.found, []int{0}) {
			t.Errorf("day %d: found %v pending", day, sc.found)
		}
	}
}
