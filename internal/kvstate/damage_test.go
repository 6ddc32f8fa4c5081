package kvstate_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/kvstate"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
)

// damaged runs two sites, a and b, each of a local sitemap, on one KV: each call is an
// invocation of its own, an hour after the last.
type damaged struct {
	t      *testing.T
	kv     *kvstate.MemKV
	cfg    *config.Config
	dirs   map[string]string
	at     time.Time
	warned []string
}

func newDamaged(t *testing.T) *damaged {
	d := &damaged{t: t, kv: &kvstate.MemKV{}, dirs: map[string]string{}, at: time.Now()}
	root := t.TempDir()
	var yaml strings.Builder
	yaml.WriteString("sites:\n")
	for _, id := range []string{"a", "b"} {
		d.dirs[id] = filepath.Join(root, id)
		os.MkdirAll(d.dirs[id], 0o755)
		writeSitemap(d.dirs[id], 20, "2026-01-01")
		yaml.WriteString("  - {id: " + id + ", sitemaps: [" + filepath.Join(d.dirs[id], "sitemap.xml") + "], baseUrl: https://a.example}\n")
	}
	cfg, err := config.Parse([]byte(yaml.String()), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	d.cfg = cfg
	return d
}

// tick runs both sites in one invocation and returns each one's record and what it sent.
func (d *damaged) tick() (map[string]*model.Record, map[string][]string) {
	d.t.Helper()
	d.at = d.at.Add(time.Hour)
	at := d.at
	s := kvstate.New(d.kv, kvstate.Options{Now: func() time.Time { return at }, Warn: func(msg string) { d.warned = append(d.warned, msg) }})
	recs, sent := map[string]*model.Record{}, map[string][]string{}
	for i := range d.cfg.Sites {
		site := &d.cfg.Sites[i]
		ch := &flaky{}
		// A run that fails as a whole has its record, and says why in it too.
		rec, err := runner.New(s).Run(context.Background(), site, runner.Options{Trigger: "schedule", Channels: []channel.Channel{ch}, NoWait: true})
		if rec == nil {
			d.t.Fatalf("site %s: %v", site.ID, err)
		}
		recs[site.ID], sent[site.ID] = rec, ch.sent
	}
	if err := s.Flush(context.Background()); err != nil {
		d.t.Fatal(err)
	}
	return recs, sent
}

// TestADamagedMemoIsDropped: memos are a cache; one that does not decode is dropped with a
// warning, and the run reads the sitemap whole and sends what changed.
func TestADamagedMemoIsDropped(t *testing.T) {
	d := newDamaged(t)
	d.tick()
	d.tick() // memos are used from memosSettle after they were written
	d.kv.Put(context.Background(), "memos:a", []byte("{not json"), 0, "")
	writeSitemap(d.dirs["a"], 21, "2026-01-01")
	recs, sent := d.tick()
	if recs["a"].Status != model.StatusOK || len(sent["a"]) != 1 || sent["a"][0] != "https://a.example/p/20" {
		t.Errorf("with memos:a damaged: %s %q, sent %v; want the one new page", recs["a"].Status, recs["a"].Errors, sent["a"])
	}
	if len(d.warned) != 1 || !strings.Contains(d.warned[0], "memos:a") || !strings.Contains(d.warned[0], "dropped") {
		t.Errorf("warnings: %q", d.warned)
	}
	if _, sent := d.tick(); len(sent["a"]) != 0 || len(d.warned) != 1 {
		t.Errorf("the run after: sent %v, warnings %q; want the memo written again", sent["a"], d.warned)
	}
}

// TestADamagedShardStopsItsSiteOnly: a catalogue shard that does not decode fails its site's runs
// with the key and the command that deletes it; the other site runs on, and once the shard is
// deleted the site runs again, sending its URLs again rather than losing any.
func TestADamagedShardStopsItsSiteOnly(t *testing.T) {
	d := newDamaged(t)
	d.tick()
	keys, _ := d.kv.List(context.Background(), "cat:a:")
	if len(keys) == 0 {
		t.Fatal("no shard of site a")
	}
	for _, k := range keys {
		d.kv.Put(context.Background(), k.Name, []byte("\x01damaged"), 0, "")
	}
	writeSitemap(d.dirs["b"], 21, "2026-01-01")
	recs, sent := d.tick()
	a := strings.Join(recs["a"].Errors, " ")
	if recs["a"].Status != model.StatusFailed || !strings.Contains(a, "cat:a:") ||
		!strings.Contains(a, `npx wrangler kv key delete --binding STATE "cat:a:`) || !strings.Contains(a, "none is lost") {
		t.Errorf("site a with its shards damaged: %s %q", recs["a"].Status, recs["a"].Errors)
	}
	if recs["b"].Status != model.StatusOK || len(sent["b"]) != 1 {
		t.Errorf("site b beside it: %s, sent %v", recs["b"].Status, sent["b"])
	}
	for _, k := range keys {
		d.kv.Delete(context.Background(), k.Name)
	}
	if recs, sent := d.tick(); recs["a"].Status != model.StatusOK || len(sent["a"]) != 20 {
		t.Errorf("once the shards are deleted: %s, sent %d; want the 20 URLs again", recs["a"].Status, len(sent["a"]))
	}
}

// TestADamagedHistoryIsDropped: a site's history of runs that does not decode is dropped with a
// warning, and begins again with the next run.
func TestADamagedHistoryIsDropped(t *testing.T) {
	d := newDamaged(t)
	d.tick()
	d.kv.Put(context.Background(), "runs:a", []byte("[{"), 0, "")
	s := kvstate.New(d.kv, kvstate.Options{Warn: func(msg string) { d.warned = append(d.warned, msg) }})
	if runs, err := s.Runs(context.Background(), "a", 5); err != nil || len(runs) != 0 {
		t.Errorf("the history of a, damaged: %v, %v", runs, err)
	}
	if len(d.warned) != 1 || !strings.Contains(d.warned[0], "runs:a") {
		t.Errorf("warnings: %q", d.warned)
	}
	recs, _ := d.tick()
	s = kvstate.New(d.kv, kvstate.Options{})
	if runs, err := s.Runs(context.Background(), "a", 5); err != nil || len(runs) != 1 || runs[0].ID != recs["a"].ID {
		t.Errorf("the history after the next run: %+v, %v", runs, err)
	}
}

// TestAStalledRunIsNotResumed: a run its budget stopped is run again at the next tick, unless it
// got nowhere: then its site waits for its schedule.
func TestAStalledRunIsNotResumed(t *testing.T) {
	kv := &kvstate.MemKV{}
	for _, tc := range []struct {
		stalled int
		resume  bool
	}{{0, true}, {1, false}} {
		s := kvstate.New(kv, kvstate.Options{})
		rec := &model.Record{Site: "a", Trigger: "schedule", StartedAt: time.Now(), Status: model.StatusRunning}
		if err := s.SaveRun(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
		rec.FinishedAt, rec.Status = time.Now(), model.StatusBudgetExhausted
		rec.Channels, rec.Stopped, rec.Stalled = map[string]*model.ChannelStats{}, true, tc.stalled
		if err := s.SaveRun(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
		if resume, err := kvstate.New(kv, kvstate.Options{}).Resume(context.Background(), "a"); err != nil || resume != tc.resume {
			t.Errorf("a stopped run, stalled %d: resume %v, %v; want %v", tc.stalled, resume, err, tc.resume)
		}
	}
}

// TestADamagedLeftIsDroppedOnce: a site's `left:{id}` (the URLs that left its sitemaps) that does
// not decode is dropped with a warning, once: deleted, and counted out of the site's meta, so
// that the invocations after neither read it nor warn again.
func TestADamagedLeftIsDroppedOnce(t *testing.T) {
	ctx := context.Background()
	kv := &kvstate.MemKV{}
	var warned []string
	open := func() *kvstate.State {
		return kvstate.New(kv, kvstate.Options{Warn: func(msg string) { warned = append(warned, msg) }})
	}
	s := open()
	if err := s.MarkLeft(ctx, "a", []int64{1, 2}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	kv.Put(ctx, "left:a", []byte("{not json"), 0, "")
	for i := range 3 {
		s := open()
		if left, err := s.LeftToProbe(ctx, "a", 10); err != nil || len(left) != 0 {
			t.Fatalf("invocation %d: left %v, %v; want none", i, left, err)
		}
		if err := s.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "left:a") || !strings.Contains(warned[0], "dropped") {
		t.Errorf("three invocations with left:a damaged warned %d times: %q; want once", len(warned), warned)
	}
	if _, ok, _ := kv.Get(ctx, "left:a"); ok {
		t.Error("left:a is still there after it was dropped")
	}
}

// TestAForgedSummaryIsRepaired: a shard's summary (its metadata) is a cache of the shard. One
// that lies — well formed, written by hand or by another tool — is found out by the first read
// of its shard after the shards were listed: the shard is written again with its true summary,
// so that a failed URL the lie hid is asked for again, and a shard the lie made read at every
// run is read no more. A summary that tells the truth costs no write.
func TestAForgedSummaryIsRepaired(t *testing.T) {
	ctx := context.Background()
	const failing, beside, other = int64(1), int64(2), int64(1)<<60 | 3 // shards 0, 0 and 1
	page := func(h int64) channel.Page { return channel.Page{Hash: h, URL: fmt.Sprintf("https://a.example/%d", h)} }
	now := time.Now()
	q := model.PendingQuery{Failed: []string{"indexnow"}, Now: now}
	for _, tc := range []struct {
		name   string
		forged map[string]string // metadata written over each shard's, by key
		writes int               // by the run that read the shard after the list
	}{
		{"true", nil, 0},
		{"a failure hidden", map[string]string{"cat:a:0": `sum1 {}`}, 1},
		{"a failure made up", map[string]string{"cat:a:1": `sum1 {"indexnow":[4,0,0]}`}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kv := &kvstate.MemKV{}
			s := kvstate.New(kv, kvstate.Options{})
			if _, err := s.SyncCatalog(ctx, "a", now, []channel.Page{page(failing), page(beside), page(other)}, []string{"indexnow"}, false); err != nil {
				t.Fatal(err)
			}
			s.RecordOutcome(ctx, "a", now, channel.Outcome{Channel: "indexnow", URLs: []channel.Due{{Hash: failing}}, Err: "HTTP 503"})
			s.RecordOutcome(ctx, "a", now, channel.Outcome{Channel: "indexnow", URLs: []channel.Due{{Hash: beside}, {Hash: other}}, Delivered: true})
			if err := s.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			for key, meta := range tc.forged {
				v, _, _ := kv.Get(ctx, key)
				kv.Put(ctx, key, v, 0, meta)
			}

			// A run lists the shards, then reads shard 0 anyway: a page beside the failed one is
			// looked up. The made-up failure has shard 1 read too.
			s = kvstate.New(kv, kvstate.Options{})
			pending, err := s.PendingDeliveries(ctx, "a", q)
			if err != nil {
				t.Fatal(err)
			}
			if hidden := tc.forged["cat:a:0"] != ""; hidden != (len(pending) == 0) {
				t.Fatalf("pending before the repair: %v", pending)
			}
			if _, err := s.SyncCatalog(ctx, "a", now, []channel.Page{page(beside)}, []string{"indexnow"}, false); err != nil {
				t.Fatal(err)
			}
			before := kv.Ops()
			if err := s.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			if writes := kv.Ops().Writes - before.Writes; writes != tc.writes {
				t.Errorf("the run that read the shard wrote %d values; want %d", writes, tc.writes)
			}

			s = kvstate.New(kv, kvstate.Options{})
			pending, err = s.PendingDeliveries(ctx, "a", q)
			if err != nil || len(pending) != 1 || pending[0].Hash != failing {
				t.Errorf("pending at the next run: %v, %v; want the failed URL", pending, err)
			}
			if reads := s.Ops().Reads; reads != 1 {
				t.Errorf("the next run read %d shards; want 1, the failed URL's", reads)
			}
		})
	}
}
