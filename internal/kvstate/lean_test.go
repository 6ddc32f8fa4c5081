package kvstate_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/kvstate"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
)

// recording is a KV in memory that notes the keys written and deleted.
type recording struct {
	*kvstate.MemKV
	puts, dels []string
}

func (r *recording) Put(ctx context.Context, key string, value []byte, ttl time.Duration, metadata string) error {
	r.puts = append(r.puts, key)
	return r.MemKV.Put(ctx, key, value, ttl, metadata)
}

func (r *recording) Delete(ctx context.Context, key string) error {
	r.dels = append(r.dels, key)
	return r.MemKV.Delete(ctx, key)
}

// A run that finds nothing to do writes one value, the schedule, which holds it as the site's
// latest run: no lease, no start, no history. The run with work after it gets a later id, and
// takes the quiet run into the history before its own.
func TestAQuietRun(t *testing.T) {
	dir := t.TempDir()
	writeSitemap(dir, 50, "2026-01-01")
	cfg, err := config.Parse([]byte("sites:\n  - {id: s, sitemaps: [sitemap.xml], baseUrl: https://a.example}\n"), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	kv := &recording{MemKV: &kvstate.MemKV{}}
	at := time.Now()
	invocation := func() (*model.Record, *flaky) {
		t.Helper()
		at = at.Add(time.Hour)
		kv.puts, kv.dels = nil, nil
		s := kvstate.New(kv, kvstate.Options{Now: func() time.Time { return at }})
		ch := &flaky{}
		rec, err := runner.New(s).Run(context.Background(), &cfg.Sites[0], runner.Options{Trigger: "schedule", Channels: []channel.Channel{ch}, NoWait: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		return rec, ch
	}
	first, _ := invocation()
	if !slices.Contains(kv.puts, "lease:s") || !slices.Contains(kv.dels, "lease:s") {
		t.Errorf("a run with work wrote %v and deleted %v; want its lease among them", kv.puts, kv.dels)
	}
	quiet, ch := invocation()
	if len(ch.sent) != 0 || !slices.Equal(kv.puts, []string{kvstate.ScheduleKey}) || len(kv.dels) != 0 {
		t.Errorf("a run with nothing to do sent %d URLs, wrote %v and deleted %v; want the schedule written alone", len(ch.sent), kv.puts, kv.dels)
	}
	s := kvstate.New(kv, kvstate.Options{})
	runs, err := s.Runs(context.Background(), "s", 10)
	if err != nil || len(runs) != 2 || runs[0].ID != quiet.ID || runs[1].ID != first.ID || quiet.ID <= first.ID {
		t.Errorf("runs after the quiet one: %+v, %v; want it (id %d) first, then the first (id %d)", runs, err, quiet.ID, first.ID)
	}
	if last, err := s.LastStarted(context.Background(), "s"); err != nil || !last.Equal(quiet.StartedAt) {
		t.Errorf("last started %v, %v; want the quiet run's start %v", last, err, quiet.StartedAt)
	}

	writeSitemap(dir, 50, "2026-02-01")
	changed, ch := invocation()
	if len(ch.sent) != 50 || changed.ID <= quiet.ID {
		t.Errorf("the run after: %d sent, id %d after the quiet run's %d", len(ch.sent), changed.ID, quiet.ID)
	}
	runs, err = kvstate.New(kv, kvstate.Options{}).Runs(context.Background(), "s", 10)
	var ids []int64
	for _, r := range runs {
		ids = append(ids, r.ID)
	}
	if err != nil || !slices.Equal(ids, []int64{changed.ID, quiet.ID, first.ID}) {
		t.Errorf("the history: %v, %v; want %v", ids, err, []int64{changed.ID, quiet.ID, first.ID})
	}
}

// Two invocations run a site at once: the one that finds work after the other wrote the site's
// lease sends nothing, and writes nothing of what it found.
func TestALeaseTakenMeanwhile(t *testing.T) {
	ctx := context.Background()
	kv := &recording{MemKV: &kvstate.MemKV{}}
	now := time.Now()
	a, b := kvstate.New(kv, kvstate.Options{}), kvstate.New(kv, kvstate.Options{})
	start := func(s *kvstate.State, holder string) *model.Record {
		t.Helper()
		if _, err := s.AcquireLease(ctx, "s", holder, now, time.Minute); err != nil {
			t.Fatalf("%s: %v", holder, err)
		}
		rec := &model.Record{Site: "s", StartedAt: now, Status: model.StatusRunning}
		if err := s.SaveRun(ctx, rec); err != nil {
			t.Fatal(err)
		}
		return rec
	}
	ra, rb := start(a, "a"), start(b, "b") // neither is written: both read the site as free
	if len(kv.puts) != 0 {
		t.Fatalf("runs that have no work yet wrote %v", kv.puts)
	}
	page := []channel.Page{{Hash: 1, URL: "https://a.example/new"}}
	for _, s := range []*kvstate.State{a, b} {
		if _, err := s.SyncCatalog(ctx, "s", now, page, []string{"indexnow"}, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Working(ctx, "s"); err != nil {
		t.Fatalf("the first run with work: %v", err)
	}
	var held *model.LeaseHeld
	if err := a.Working(ctx, "s"); !errors.As(err, &held) || held.Holder != "b" {
		t.Fatalf("the second run with work: %v; want the lease held by b", err)
	}
	kv.puts = nil
	ra.FinishedAt, ra.Status, ra.Channels = now, model.StatusOK, map[string]*model.ChannelStats{}
	if err := a.SaveRun(ctx, ra); !errors.Is(err, model.ErrLeaseLost) {
		t.Errorf("the end of the run that lost the site: %v; want the lease lost", err)
	}
	if err := a.Flush(ctx); err != nil || len(kv.puts) != 0 {
		t.Errorf("the run that lost the site wrote %v (%v)", kv.puts, err)
	}
	rb.FinishedAt, rb.Status, rb.Channels = now, model.StatusOK, map[string]*model.ChannelStats{}
	if err := b.SaveRun(ctx, rb); err != nil || !slices.Contains(kv.puts, "cat:s:0") {
		t.Errorf("the run that holds the site wrote %v (%v); want its catalogue", kv.puts, err)
	}
}

// Two invocations write a site's lease at once, as KV lets them (it has no atomic operation): b,
// which reads the lease as it was before a wrote it, writes its own between a's write and a's
// read-back. The read-back catches it: a, whose write b's overwrote, sends nothing and writes
// nothing; b runs.
func TestALeaseWrittenBetweenTheWriteAndTheReadBack(t *testing.T) {
	ctx := context.Background()
	mem := &kvstate.MemKV{}
	now := time.Now()
	bView := &staleLease{MemKV: mem}
	b := kvstate.New(bView, kvstate.Options{})
	var bWorking error
	aView := &writeThen{recording: recording{MemKV: mem}, then: func() { bWorking = b.Working(ctx, "s") }}
	a := kvstate.New(aView, kvstate.Options{})
	page := []channel.Page{{Hash: 1, URL: "https://a.example/new"}}
	records := map[string]*model.Record{}
	for holder, s := range map[string]*kvstate.State{"a": a, "b": b} {
		if _, err := s.AcquireLease(ctx, "s", holder, now, time.Minute); err != nil {
			t.Fatalf("%s: %v", holder, err)
		}
		records[holder] = &model.Record{Site: "s", StartedAt: now, Status: model.StatusRunning}
		if err := s.SaveRun(ctx, records[holder]); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SyncCatalog(ctx, "s", now, page, []string{"indexnow"}, false); err != nil {
			t.Fatal(err)
		}
	}
	bView.hide = 1 // b's check before its write does not see a's
	var held *model.LeaseHeld
	if err := a.Working(ctx, "s"); !errors.As(err, &held) || held.Holder != "b" {
		t.Fatalf("the run whose lease was overwritten before its read-back: %v; want the lease held by b", err)
	}
	if bWorking != nil {
		t.Fatalf("the run that wrote the lease last: %v", bWorking)
	}
	aView.puts = nil
	ra := records["a"]
	ra.FinishedAt, ra.Status, ra.Channels = now, model.StatusOK, map[string]*model.ChannelStats{}
	if err := a.SaveRun(ctx, ra); !errors.Is(err, model.ErrLeaseLost) {
		t.Errorf("the end of the run that lost the site: %v; want the lease lost", err)
	}
	if err := a.Flush(ctx); err != nil || len(aView.puts) != 0 {
		t.Errorf("the run that lost the site wrote %v (%v)", aView.puts, err)
	}
	rb := records["b"]
	rb.FinishedAt, rb.Status, rb.Channels = now, model.StatusOK, map[string]*model.ChannelStats{}
	if err := b.SaveRun(ctx, rb); err != nil {
		t.Errorf("the end of the run that holds the site: %v", err)
	}
}

// writeThen is a KV where, right after this invocation's first write of a lease, another
// invocation's work happens (then).
type writeThen struct {
	recording
	then func()
}

func (w *writeThen) Put(ctx context.Context, key string, value []byte, ttl time.Duration, metadata string) error {
	err := w.recording.Put(ctx, key, value, ttl, metadata)
	if then := w.then; then != nil && strings.HasPrefix(key, "lease:") {
		w.then = nil
		then()
	}
	return err
}

// staleLease is a KV seen from a location where the leases written elsewhere do not show yet for
// the next hide reads.
type staleLease struct {
	*kvstate.MemKV
	hide int
}

func (s *staleLease) Get(ctx context.Context, key string) ([]byte, bool, error) {
	if strings.HasPrefix(key, "lease:") && s.hide > 0 {
		s.hide--
		return nil, false, nil
	}
	return s.MemKV.Get(ctx, key)
}
