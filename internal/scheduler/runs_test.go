package scheduler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/enginetest"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// gate is a channel that delivers everything once let through, or stops with the run.
type gate struct {
	open chan struct{}
}

func (g *gate) Name() string { return "indexnow" }

func (g *gate) Deliver(ctx context.Context, q *channel.Queue, rep channel.Reporter) error {
	select {
	case <-g.open:
	case <-ctx.Done():
		return nil
	}
	return rep.Finished(channel.Outcome{Channel: "indexnow", URLs: q.Refs(0, q.Len()), Delivered: true})
}

type finishedRuns struct {
	mu   sync.Mutex
	recs []*model.Record
}

func (f *finishedRuns) add(rec *model.Record) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.recs = append(f.recs, rec)
}

func (f *finishedRuns) all() []*model.Record {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*model.Record(nil), f.recs...)
}

// eventually waits up to 5 s for cond.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited 5 s for %s", what)
		}
	}
}

func newRuns(t *testing.T) (*Runs, *config.Site, *gate, *finishedRuns, *enginetest.Log) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "s.xml"), []byte("<urlset><url><loc>https://a.example/p</loc></url></urlset>"), 0o644)
	c, err := config.Parse([]byte("sites:\n  - {id: a, sitemaps: [s.xml], baseUrl: https://a.example}\n"), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := &gate{open: make(chan struct{})}
	done, log := &finishedRuns{}, &enginetest.Log{}
	runs := NewRuns(runner.New(storetest.Open(t)), func(*config.Site, string) []channel.Channel { return []channel.Channel{g} },
		done.add, slog.New(slog.NewTextHandler(log, nil)), 2)
	return runs, &c.Sites[0], g, done, log
}

func TestTrigger(t *testing.T) {
	runs, site, g, done, _ := newRuns(t)
	id, err := runs.Trigger(site, "all")
	if err != nil || id == 0 {
		t.Fatalf("trigger: %d, %v", id, err)
	}
	if active, ok := runs.Active("a"); !ok || active != id {
		t.Errorf("active: %d %v", active, ok)
	}
	if _, err := runs.Trigger(site, "all"); !errors.Is(err, runner.ErrBusy) {
		t.Errorf("a second trigger while the first runs: %v", err)
	}
	close(g.open)
	eventually(t, "the run to end", func() bool { return len(done.all()) == 1 })
	if recs := done.all(); len(recs) != 1 || recs[0].ID != id || recs[0].Status != model.StatusOK || recs[0].Trigger != "manual" {
		t.Fatalf("finished: %+v", recs)
	}
	if _, ok := runs.Active("a"); ok {
		t.Error("a finished run is still active")
	}
}

func TestScheduledRunsOncePerFireTime(t *testing.T) {
	runs, site, g, done, log := newRuns(t)
	close(g.open)
	at := time.Now().Add(-time.Second)
	runs.Scheduled(site, at)
	eventually(t, "the scheduled run", func() bool { return len(done.all()) == 1 })
	runs.Scheduled(site, at) // another instance's scheduler, or a make-up and a tick
	eventually(t, "the second to be skipped", func() bool { return strings.Contains(log.String(), "the site was already run") })
	runs.Scheduled(site, time.Now())
	eventually(t, "the next fire time's run", func() bool { return len(done.all()) == 2 })
	if recs := done.all(); recs[0].Trigger != "schedule" {
		t.Errorf("runs %+v", recs)
	}
}

func TestShutdownEndsRuns(t *testing.T) {
	runs, site, _, done, _ := newRuns(t)
	if _, err := runs.Trigger(site, "all"); err != nil {
		t.Fatal(err)
	}
	if !runs.Shutdown(5 * time.Second) {
		t.Fatal("a run held at its gate did not end on shutdown")
	}
	if recs := done.all(); len(recs) != 1 || recs[0].FinishedAt.IsZero() {
		t.Errorf("the stopped run must still be recorded: %+v", recs)
	}
	if _, err := runs.Trigger(site, "all"); !errors.Is(err, ErrStopping) {
		t.Errorf("a trigger during shutdown: %v", err)
	}
}

// instance is one sitepush serve of several sharing a state: its own runner, its own runs.
func instance(st runner.State, g *gate, done *finishedRuns, log *enginetest.Log) *Runs {
	return NewRuns(runner.New(st), func(*config.Site, string) []channel.Channel { return []channel.Channel{g} },
		done.add, slog.New(slog.NewTextHandler(log, nil)), 2)
}

func TestInstancesSharingAStateRunAFireTimeOnce(t *testing.T) {
	_, site, _, _, _ := newRuns(t)
	st := storetest.Open(t)
	g := &gate{open: make(chan struct{})}
	close(g.open)
	done := &finishedRuns{}
	log := &enginetest.Log{}
	a, b := instance(st, g, done, log), instance(st, g, done, log)
	for round := range 5 {
		at := time.Now()
		a.Scheduled(site, at)
		b.Scheduled(site, at) // both schedulers fire the same minute
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("log:\n%s", log)
			}
		})
		eventually(t, fmt.Sprintf("a run in round %d", round), func() bool { return len(done.all()) == round+1 })
		time.Sleep(50 * time.Millisecond) // the other instance's attempt
	}
	a.Shutdown(5 * time.Second)
	b.Shutdown(5 * time.Second)
	if runs, _ := st.Runs(context.Background(), "a", 100); len(runs) != 5 || len(done.all()) != 5 {
		t.Errorf("5 fire times, 2 instances: %d runs recorded, %d finished", len(runs), len(done.all()))
	}
}

func TestADeadInstancesLeaseExpires(t *testing.T) {
	runs, site, g, done, _ := newRuns(t)
	close(g.open)
	st := runs.runner.State
	// The runs' clock, which the lease is taken by: moved on by hand.
	var clock atomic.Pointer[time.Time]
	now := time.Now()
	clock.Store(&now)
	runs.runner.Now = func() time.Time { return *clock.Load() }
	// An instance took the site's lease 14 s ago and died: it expires in a second.
	if _, err := st.AcquireLease(context.Background(), "a", "dead-instance", now.Add(-14*time.Second), 15*time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := runs.Trigger(site, "all"); !errors.Is(err, runner.ErrBusy) {
		t.Fatalf("while the dead instance's lease lasts: %v", err)
	}
	later := now.Add(999 * time.Millisecond)
	clock.Store(&later)
	if _, err := runs.Trigger(site, "all"); !errors.Is(err, runner.ErrBusy) {
		t.Fatalf("a millisecond before the dead instance's lease ends: %v", err)
	}
	ended := now.Add(1001 * time.Millisecond)
	clock.Store(&ended)
	if _, err := runs.Trigger(site, "all"); err != nil {
		t.Fatalf("after it expired: %v", err)
	}
	eventually(t, "the run", func() bool { return len(done.all()) == 1 })
}

func TestARefusedTriggerLeavesTheRunGoing(t *testing.T) {
	runs, site, g, _, _ := newRuns(t)
	id, err := runs.Trigger(site, "all")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runs.Trigger(site, "all"); !errors.Is(err, runner.ErrBusy) {
		t.Fatal(err)
	}
	if active, ok := runs.Active("a"); !ok || active != id {
		t.Errorf("after a refused trigger: %d %v, want run %d going", active, ok, id)
	}
	close(g.open)
}

// TestAFailedRunIsLoggedAsAnError: log-level alerting sees failed runs.
func TestAFailedRunIsLoggedAsAnError(t *testing.T) {
	runs, site, g, done, log := newRuns(t)
	close(g.open)
	os.Remove(site.Sitemaps[0])
	if _, err := runs.Trigger(site, "all"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the run to end", func() bool { return len(done.all()) == 1 })
	if recs := done.all(); recs[0].Status != model.StatusFailed || !strings.Contains(log.String(), `level=ERROR msg="run finished"`) {
		t.Errorf("a run %s logged:\n%s", recs[0].Status, log.String())
	}
}
