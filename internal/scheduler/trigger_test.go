package scheduler

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/enginetest"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// turnstile is a channel whose deliveries each wait for a pass, counting the deliveries going
// and the most of them at once.
type turnstile struct {
	pass      chan struct{}
	mu        sync.Mutex
	now, most int
}

func (g *turnstile) Name() string { return "indexnow" }

func (g *turnstile) Deliver(ctx context.Context, q *channel.Queue, rep channel.Reporter) error {
	g.mu.Lock()
	g.now++
	g.most = max(g.most, g.now)
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.now--
		g.mu.Unlock()
	}()
	select {
	case <-g.pass:
	case <-ctx.Done():
		return nil
	}
	return rep.Finished(channel.Outcome{Channel: "indexnow", URLs: q.Refs(0, q.Len()), Delivered: true})
}

func (g *turnstile) going() (now, most int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.now, g.most
}

// TestTriggersKeepToConcurrency: a flood of triggers runs concurrency at a time, as scheduled runs
// do: those beyond wait in the queue (answered Queued), and each runs once, in the order the
// triggers came. A trigger of a site whose run waits is that run; one asking another run of it
// is refused, and one of a site being run is busy.
func TestTriggersKeepToConcurrency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n, slots = 50, 3
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "s.xml"), []byte("<urlset><url><loc>https://a.example/p</loc></url></urlset>"), 0o644)
		var yaml strings.Builder
		yaml.WriteString("sites:\n")
		for i := range n {
			fmt.Fprintf(&yaml, "  - {id: s%02d, sitemaps: [s.xml], baseUrl: https://a.example}\n", i)
		}
		c, err := config.Parse([]byte(yaml.String()), dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		g := &turnstile{pass: make(chan struct{})}
		done, log := &finishedRuns{}, &enginetest.Log{}
		runs := NewRuns(runner.New(storetest.Open(t)), func(*config.Site, string) []channel.Channel { return []channel.Channel{g} },
			done.add, slog.New(slog.NewTextHandler(log, nil)), slots)
		t.Cleanup(func() {
			runs.Shutdown(time.Minute) // a failed check leaves no run going: the bubble ends with its goroutines
			if t.Failed() {
				t.Logf("log:\n%s", log)
			}
		})
		var started []int64
		for i := range c.Sites {
			id, err := runs.Trigger(&c.Sites[i], "all")
			if err != nil {
				t.Fatalf("trigger %d: %v", i, err)
			}
			if id != Queued {
				started = append(started, id)
			}
		}
		synctest.Wait()
		if now, _ := g.going(); len(started) != slots || now != slots || runs.Queued() != n-slots {
			t.Fatalf("after %d triggers: %d started, %d delivering, %d queued; want %d, %d, %d", n, len(started), now, runs.Queued(), slots, slots, n-slots)
		}
		if id, err := runs.Trigger(&c.Sites[n-1], "all"); id != Queued || err != nil || runs.Queued() != n-slots {
			t.Errorf("the same trigger of a site queued: %d, %v, %d queued; want Queued, the site queued once", id, err, runs.Queued())
		}
		if _, err := runs.Trigger(&c.Sites[n-1], "bing"); !errors.Is(err, ErrQueued) {
			t.Errorf("another trigger of a site queued: %v, want ErrQueued", err)
		}
		if _, err := runs.Trigger(&c.Sites[0], "all"); !errors.Is(err, runner.ErrBusy) {
			t.Errorf("a trigger of a site being run: %v, want runner.ErrBusy", err)
		}
		for range n {
			g.pass <- struct{}{}
			synctest.Wait()
		}
		recs := done.all()
		slices.SortFunc(recs, func(a, b *model.Record) int { return cmp.Compare(a.ID, b.ID) }) // the order they started
		var order []string
		for _, rec := range recs {
			order = append(order, rec.Site)
		}
		if _, most := g.going(); most != slots || len(recs) != n {
			t.Errorf("%d runs, at most %d at once; want %d, %d at most", len(recs), most, n, slots)
		}
		for i, rec := range recs {
			if want := c.Sites[i].ID; rec.Site != want || rec.Status != model.StatusOK || rec.Trigger != "manual" {
				t.Errorf("run %d: %s %s %s; want %s, ok, manual: the triggers in the order they came (%v)", i, rec.Site, rec.Status, rec.Trigger, want, order)
				break
			}
		}
	})
}

// TestPoolTriggerJumpsTheQueue: a triggered run goes before the scheduled ones queued, after the
// triggered ones queued before it; a site queued for its schedule is not queued twice, its entry
// taken by the trigger; a site running is not queued.
func TestPoolTriggerJumpsTheQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakeRuns()
		blocker := f.holdSite("blocker")
		p := newPool(1, SlotTurn, f.run)
		p.add(siteNamed("blocker"), fireTime("00:00"))
		synctest.Wait()
		for _, id := range []string{"a", "b", "c"} {
			p.add(siteNamed(id), fireTime("00:01"))
		}
		manual := func(id string) func(bool) {
			return func(waited bool) { f.run(siteNamed(id+" manual"), time.Time{}, 1) }
		}
		got := []triggered{p.trigger(siteNamed("x"), "run all", manual("x")), p.trigger(siteNamed("c"), "run all", manual("c")),
			p.trigger(siteNamed("c"), "run all", manual("c")), p.trigger(siteNamed("c"), "", manual("c")),
			p.trigger(siteNamed("blocker"), "run all", manual("blocker"))}
		if want := []triggered{queuedNow, queuedNow, queuedNow, siteQueued, siteRunning}; !slices.Equal(got, want) || p.queued() != 4 {
			t.Errorf("triggers answered %v with %d queued; want %v, 4 queued", got, p.queued(), want)
		}
		close(blocker)
		p.wait()
		want := []string{"blocker@00:00 try 1", "x manual@00:00 try 1", "c manual@00:00 try 1", "a@00:01 try 1", "b@00:01 try 1"}
		if got := f.order(); !slices.Equal(got, want) {
			t.Errorf("runs %v, want %v", got, want)
		}
	})
}
