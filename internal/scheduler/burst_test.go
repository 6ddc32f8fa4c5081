package scheduler

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/enginetest"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// counter is the channel of every site of a burst: it counts the runs delivering at once and
// holds them until open is closed.
type counter struct {
	open      chan struct{}
	now, most atomic.Int64
	mu        sync.Mutex
	order     []string // the sites, in the order their runs delivered
}

// deliverer is counter's channel for one site.
type deliverer struct {
	c    *counter
	site string
}

func (d deliverer) Name() string { return "indexnow" }

func (d deliverer) Deliver(ctx context.Context, q *channel.Queue, rep channel.Reporter) error {
	c := d.c
	n := c.now.Add(1)
	defer c.now.Add(-1)
	for m := c.most.Load(); n > m && !c.most.CompareAndSwap(m, n); m = c.most.Load() {
	}
	c.mu.Lock()
	c.order = append(c.order, d.site)
	c.mu.Unlock()
	select {
	case <-c.open:
	case <-ctx.Done():
		return nil
	}
	return rep.Finished(channel.Outcome{Channel: "indexnow", URLs: q.Refs(0, q.Len()), Delivered: true})
}

func (c *counter) delivered() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.order)
}

// burst returns Runs of concurrency over n sites s000…, each of which delivers through c.
func burst(t testing.TB, n, concurrency int) (*Runs, []*config.Site, *counter, *finishedRuns) {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "s.xml"), []byte("<urlset><url><loc>https://a.example/p</loc></url></urlset>"), 0o644)
	var doc strings.Builder
	doc.WriteString("sites:\n")
	for i := range n {
		fmt.Fprintf(&doc, "  - {id: s%03d, sitemaps: [s.xml], baseUrl: https://a.example}\n", i)
	}
	cfg, err := config.Parse([]byte(doc.String()), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	sites := make([]*config.Site, n)
	for i := range cfg.Sites {
		sites[i] = &cfg.Sites[i]
	}
	c, done, log := &counter{open: make(chan struct{})}, &finishedRuns{}, &enginetest.Log{}
	runs := NewRuns(runner.New(storetest.Open(t)), func(site *config.Site, _ string) []channel.Channel {
		return []channel.Channel{deliverer{c: c, site: site.ID}}
	}, done.add, slog.New(slog.NewTextHandler(log, nil)), concurrency)
	t.Cleanup(func() {
		runs.Shutdown(5 * time.Second)
		if t.Failed() {
			t.Logf("log:\n%s", log)
		}
	})
	return runs, sites, c, done
}

// TestABurstKeepsToConcurrency: 150 sites due at once run 3 at a time, and wait for their turn
// as entries in a queue, not as a goroutine each.
func TestABurstKeepsToConcurrency(t *testing.T) {
	runs, sites, c, done := burst(t, 150, 3)
	at := time.Now().Add(-time.Minute)
	for _, site := range sites[:3] {
		runs.Scheduled(site, at)
	}
	eventually(t, "3 runs at once", func() bool { return c.now.Load() == 3 })
	before := runtime.NumGoroutine()
	for _, site := range sites[3:] {
		runs.Scheduled(site, at)
	}
	if grew := runtime.NumGoroutine() - before; grew > 10 {
		t.Errorf("147 sites queued behind 3 runs: %d more goroutines, want none per queued site", grew)
	}
	if q := runs.Queued(); q != 147 {
		t.Errorf("queued: %d, want 147", q)
	}
	close(c.open)
	eventually(t, "the burst to run", func() bool { return len(done.all()) == 150 })
	if most := c.most.Load(); most != 3 {
		t.Errorf("at most %d runs at once, want 3", most)
	}
}

// TestABurstIsTakenOldestFirst: sites due at different times, fired in another order (made up at
// start-up, say), run the oldest fire time first.
func TestABurstIsTakenOldestFirst(t *testing.T) {
	runs, sites, c, done := burst(t, 9, 1)
	now := time.Now()
	runs.Scheduled(sites[0], now.Add(-time.Hour)) // holds the one slot
	eventually(t, "the first run", func() bool { return c.now.Load() == 1 })
	for _, i := range []int{5, 2, 8, 1, 7, 3, 6, 4} {
		runs.Scheduled(sites[i], now.Add(-time.Duration(10-i)*time.Minute))
	}
	close(c.open)
	eventually(t, "the burst to run", func() bool { return len(done.all()) == 9 })
	want := []string{"s000", "s001", "s002", "s003", "s004", "s005", "s006", "s007", "s008"}
	if got := c.delivered(); !slices.Equal(got, want) {
		t.Errorf("ran %v, want the oldest fire time first: %v", got, want)
	}
}

// TestShutdownDropsTheQueue: the runs going stop and are recorded; the queued ones never start.
func TestShutdownDropsTheQueue(t *testing.T) {
	runs, sites, c, done := burst(t, 20, 2)
	at := time.Now().Add(-time.Minute)
	for _, site := range sites {
		runs.Scheduled(site, at)
	}
	eventually(t, "2 runs at once", func() bool { return c.now.Load() == 2 })
	if !runs.Shutdown(5 * time.Second) {
		t.Fatal("the runs going did not end on shutdown")
	}
	runs.Scheduled(sites[0], time.Now())
	if recs := done.all(); len(recs) != 2 || runs.Queued() != 0 {
		t.Errorf("after shutdown: %d runs recorded, %d queued; want the 2 going, none queued", len(recs), runs.Queued())
	}
}

// TestInstancesShareABurst: two instances on one state, each firing the same 30 sites for the
// same minute, run each site once between them.
func TestInstancesShareABurst(t *testing.T) {
	_, sites, _, _ := burst(t, 30, 1)
	st := storetest.Open(t)
	g := &gate{open: make(chan struct{})}
	close(g.open)
	done, log := &finishedRuns{}, &enginetest.Log{}
	a, b := instance(st, g, done, log), instance(st, g, done, log)
	at := time.Now().Add(-time.Minute)
	for _, site := range sites {
		a.Scheduled(site, at)
		b.Scheduled(site, at)
	}
	eventually(t, "the burst to run", func() bool { return len(done.all()) == 30 })
	time.Sleep(busyTries * busyWait) // the tries again of sites found busy on the other instance
	a.Shutdown(5 * time.Second)
	b.Shutdown(5 * time.Second)
	ran := map[string]int{}
	for _, rec := range done.all() {
		ran[rec.Site]++
	}
	if len(done.all()) != 30 || len(ran) != 30 {
		t.Errorf("30 sites fired on 2 instances: %d runs of %d sites", len(done.all()), len(ran))
	}
}
