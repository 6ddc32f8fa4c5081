package kvstate_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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

// accepting is a channel an engine that accepts everything stands behind.
type accepting struct{ sent int }

func (c *accepting) Name() string { return "indexnow" }

func (c *accepting) Deliver(ctx context.Context, q *channel.Queue, rep channel.Reporter) error {
	for from := 0; from < q.Len(); from += 10_000 {
		due, err := q.Slice(ctx, from, from+10_000)
		if err != nil {
			return err
		}
		rep.Requested(channel.Request{Channel: "indexnow", Endpoint: "https://engine.example/indexnow", URLs: len(due), Accepted: true, Status: 202})
		if err := rep.Finished(channel.Outcome{Channel: "indexnow", URLs: due, Delivered: true}); err != nil {
			return err
		}
		c.sent += len(due)
	}
	return nil
}

// TestADailyRunOfABigSite runs a 50,000-URL site on a KV state, each run an invocation of its
// own, and counts what each costs of the namespace: a daily run where 100 pages changed must stay
// within Workers' 1,000 operations an invocation and make at most 100 writes, and a run where
// nothing changed at most one.
func TestADailyRunOfABigSite(t *testing.T) {
	dir := t.TempDir()
	publish := func(changed int) {
		var b strings.Builder
		b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		for i := range 50_000 {
			lm := "2026-01-01"
			if i < changed {
				lm = "2026-02-01"
			}
			fmt.Fprintf(&b, "<url><loc>https://a.example/p/%d</loc><lastmod>%s</lastmod></url>", i, lm)
		}
		b.WriteString("</urlset>")
		os.WriteFile(filepath.Join(dir, "sitemap.xml"), []byte(b.String()), 0o644)
	}
	cfg, err := config.Parse([]byte("sites:\n  - {id: big, sitemaps: [sitemap.xml], baseUrl: https://a.example}\n"), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	kv := &kvstate.MemKV{}
	at := time.Now()
	invocation := func() (*model.Record, kvstate.Ops, int) {
		t.Helper()
		before := kv.Ops()
		ch := &accepting{}
		at = at.Add(24 * time.Hour)
		s := kvstate.New(kv, kvstate.Options{Now: func() time.Time { return at }})
		rec, err := runner.New(s).Run(context.Background(), &cfg.Sites[0], runner.Options{Trigger: "schedule", Channels: []channel.Channel{ch}, NoWait: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		after := kv.Ops()
		return rec, kvstate.Ops{Reads: after.Reads - before.Reads, Writes: after.Writes - before.Writes,
			Deletes: after.Deletes - before.Deletes, Lists: after.Lists - before.Lists}, ch.sent
	}
	publish(0)
	rec, first, sent := invocation()
	if rec.Status != model.StatusOK || sent != 50_000 || first.Total() > kvstate.DefaultOps {
		t.Fatalf("first run: %s, %d sent, %+v", rec.Status, sent, first)
	}
	publish(100)
	rec, daily, sent := invocation()
	if rec.Status != model.StatusOK || sent != 100 || daily.Writes > 100 || daily.Total() > kvstate.DefaultOps {
		t.Errorf("a daily run, 100 changed: %s, %d sent, %+v; want 100 sent, at most 100 writes", rec.Status, sent, daily)
	}
	_, idle, sent := invocation()
	if sent != 0 || idle.Writes > 1 || idle.Deletes != 0 {
		t.Errorf("a run with nothing changed: %d sent, %+v; want at most one write (the schedule's quiet run)", sent, idle)
	}
	keys, bytes := kv.Size()
	t.Logf("50,000 URLs: first run %+v; daily run (100 changed) %+v; nothing changed %+v; %d keys, %.1f MB", first, daily, idle,
		keys, float64(bytes)/1e6)
}

// BenchmarkATick is an invocation of a Worker's tick for a 10,000-URL site where 10 pages
// changed: the sitemap read from a file, the catalogue read from a KV in memory, the changed
// pages delivered and written back.
//
//	go test -run - -bench ATick -benchmem ./internal/kvstate
func BenchmarkATick(b *testing.B) {
	const size = 10_000
	dir := b.TempDir()
	lastmods := make([]string, size)
	for i := range lastmods {
		lastmods[i] = "2026-01-01"
	}
	publish := func() {
		var s strings.Builder
		s.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		for i, lm := range lastmods {
			fmt.Fprintf(&s, "<url><loc>https://a.example/p/%d</loc><lastmod>%s</lastmod></url>", i, lm)
		}
		s.WriteString("</urlset>")
		os.WriteFile(filepath.Join(dir, "sitemap.xml"), []byte(s.String()), 0o644)
	}
	cfg, err := config.Parse([]byte("sites:\n  - {id: big, sitemaps: [sitemap.xml], baseUrl: https://a.example}\n"), dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	kv := &kvstate.MemKV{}
	at := time.Now()
	tick := func() int {
		ch := &accepting{}
		at = at.Add(time.Hour)
		if _, err := runner.New(kvstate.New(kv, kvstate.Options{Now: func() time.Time { return at }})).Run(context.Background(), &cfg.Sites[0],
			runner.Options{Trigger: "schedule", Channels: []channel.Channel{ch}, NoWait: true}); err != nil {
			b.Fatal(err)
		}
		return ch.sent
	}
	publish()
	tick()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		for j := range 10 {
			lastmods[(i*10+j)%size] = fmt.Sprintf("2026-02-%02d", 1+i%27)
		}
		publish()
		b.StartTimer()
		if sent := tick(); sent != 10 {
			b.Fatalf("tick %d sent %d, want 10", i, sent)
		}
	}
}

// TestASiteTooBig: a run of a site larger than the state holds fails once, saying what to do.
func TestASiteTooBig(t *testing.T) {
	dir := t.TempDir()
	writeSitemap(dir, 3000, "")
	cfg, err := config.Parse([]byte("sites:\n  - {id: big, sitemaps: [sitemap.xml], baseUrl: https://a.example}\n"), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	ch := &accepting{}
	rec, err := runner.New(kvstate.New(&kvstate.MemKV{}, kvstate.Options{Entries: 1000})).Run(context.Background(), &cfg.Sites[0],
		runner.Options{Trigger: "schedule", Channels: []channel.Channel{ch}, NoWait: true})
	if rec == nil || rec.Status != model.StatusFailed || len(rec.Errors) != 1 || strings.Count(err.Error(), "too many URLs") != 1 ||
		!strings.Contains(rec.Errors[0], "run the site with sitepush serve") || ch.sent != 0 {
		t.Errorf("run: %v; record %+v; %d sent", err, rec, ch.sent)
	}
}

// flaky is a channel whose engine refuses the URLs fail says, and accepts the others.
type flaky struct {
	fail func(channel.Due) bool
	sent []string
}

func (c *flaky) Name() string { return "indexnow" }

func (c *flaky) Deliver(ctx context.Context, q *channel.Queue, rep channel.Reporter) error {
	due, err := q.Slice(ctx, 0, q.Len())
	if err != nil {
		return err
	}
	var ok, bad []channel.Due
	for _, d := range due {
		c.sent = append(c.sent, d.URL)
		if c.fail != nil && c.fail(d) {
			bad = append(bad, d)
		} else {
			ok = append(ok, d)
		}
	}
	if err := rep.Finished(channel.Outcome{Channel: "indexnow", URLs: ok, Delivered: true}); err != nil || len(bad) == 0 {
		return err
	}
	return rep.Finished(channel.Outcome{Channel: "indexnow", URLs: bad, Err: "HTTP 503"})
}

// On KV too, a run remembers the sitemaps it settled: the next one with nothing changed reads
// none of the catalogue's shards but those where a URL failed, and sends those URLs again.
func TestUnchangedSitemapsOnKV(t *testing.T) {
	dir := t.TempDir()
	writeSitemap(dir, 2000, "2026-01-01")
	cfg, err := config.Parse([]byte("sites:\n  - {id: s, sitemaps: [sitemap.xml], baseUrl: https://a.example}\n"), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	kv := &kvstate.MemKV{}
	at := time.Now()
	invocation := func(ch *flaky) (*model.Record, kvstate.Ops) {
		t.Helper()
		at = at.Add(time.Hour)
		s := kvstate.New(kv, kvstate.Options{Now: func() time.Time { return at }})
		rec, err := runner.New(s).Run(context.Background(), &cfg.Sites[0], runner.Options{Trigger: "schedule", Channels: []channel.Channel{ch}, NoWait: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		return rec, s.Ops()
	}
	first := &flaky{fail: func(d channel.Due) bool { return d.URL == "https://a.example/p/7" }}
	if rec, _ := invocation(first); len(first.sent) != 2000 || rec.Channels["indexnow"].Failed != 1 {
		t.Fatalf("first run: %d sent, %+v", len(first.sent), rec.Channels["indexnow"])
	}
	again := &flaky{}
	rec, ops := invocation(again)
	if len(again.sent) != 1 || again.sent[0] != "https://a.example/p/7" || rec.TotalURLs != 2000 || ops.Lists != 1 || ops.Reads > 9 {
		t.Errorf("nothing changed, one URL failed before: sent %v, %d URLs, %+v", again.sent, rec.TotalURLs, ops)
	}
	// Nothing to do: no lease, no record but the schedule's quiet run.
	idle := &flaky{}
	rec, idleOps := invocation(idle)
	if len(idle.sent) != 0 || rec.TotalURLs != 2000 || idleOps.Reads > 6 || idleOps.Writes != 1 || idleOps.Deletes != 0 {
		t.Errorf("nothing changed, nothing failed: sent %v, %d URLs, %+v", idle.sent, rec.TotalURLs, idleOps)
	}
	t.Logf("2,000 URLs, nothing changed: one failed before %+v, none %+v", ops, idleOps)
}

// writeSitemap writes dir/sitemap.xml: n pages of https://a.example, each with lastmod unless it
// is empty.
func writeSitemap(dir string, n int, lastmod string) {
	var b strings.Builder
	b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for i := range n {
		fmt.Fprintf(&b, "<url><loc>https://a.example/p/%d</loc>", i)
		if lastmod != "" {
			fmt.Fprintf(&b, "<lastmod>%s</lastmod>", lastmod)
		}
		b.WriteString("</url>")
	}
	b.WriteString("</urlset>")
	os.WriteFile(filepath.Join(dir, "sitemap.xml"), []byte(b.String()), 0o644)
}

// staleShards is a KV seen from a location where the catalogue's shards are still as they were
// before (KV's propagation takes up to a minute), though the rest is as written.
type staleShards struct {
	*kvstate.MemKV
	old map[string][]byte
}

func (s *staleShards) Get(ctx context.Context, key string) ([]byte, bool, error) {
	if strings.HasPrefix(key, "cat:") {
		v, ok := s.old[key]
		return v, ok, nil
	}
	return s.MemKV.Get(ctx, key)
}

func (s *staleShards) List(ctx context.Context, prefix string) ([]kvstate.Key, error) {
	if strings.HasPrefix(prefix, "cat:") {
		return nil, nil
	}
	return s.MemKV.List(ctx, prefix)
}

// Memos are not used until KV has had time to show everywhere the shards written before them: a
// tick a minute later that reads the shards as they were diffs every page, sends again what
// looks new — and does not lose the URL that failed.
func TestAStaleShardUnderAMemo(t *testing.T) {
	dir := t.TempDir()
	cfg, err := config.Parse([]byte("sites:\n  - {id: s, sitemaps: [sitemap.xml], baseUrl: https://a.example}\n"), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	mem := &kvstate.MemKV{}
	start := time.Now()
	tick := func(after time.Duration, kv kvstate.KV, ch *flaky) {
		t.Helper()
		at := start.Add(after)
		s := kvstate.New(kv, kvstate.Options{Now: func() time.Time { return at }})
		if _, err := runner.New(s).Run(context.Background(), &cfg.Sites[0], runner.Options{Trigger: "schedule", Channels: []channel.Channel{ch}, NoWait: true}); err != nil {
			t.Fatal(err)
		}
	}
	writeSitemap(dir, 100, "2026-01-01")
	tick(0, mem, &flaky{fail: func(d channel.Due) bool { return d.URL == "https://a.example/p/7" }})
	writeSitemap(dir, 200, "2026-01-01")
	stale := &flaky{}
	tick(time.Minute, &staleShards{MemKV: mem, old: map[string][]byte{}}, stale)
	var later []string
	for _, after := range []time.Duration{3 * time.Minute, 5 * time.Minute} {
		ch := &flaky{}
		tick(after, mem, ch)
		later = append(later, ch.sent...)
	}
	if !slices.Contains(stale.sent, "https://a.example/p/7") || len(stale.sent) != 200 || len(later) != 0 {
		t.Errorf("the tick that read stale shards sent %d URLs (the failed /p/7: %t), later ticks %v; want all 200, then none",
			len(stale.sent), slices.Contains(stale.sent, "https://a.example/p/7"), later)
	}
}
