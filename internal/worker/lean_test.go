package worker

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/kvstate"
	"github.com/sitepush/sitepush/internal/model"
)

// TestKVOperationsPerTick counts the KV operations of a site's ticks, natively over a KV in
// memory (under workerd, the JS module reads the schedule once more at each tick): a tick with
// nothing due reads the schedule alone and writes nothing, a due tick whose sitemap did not
// change writes one value, and a tick where 100 pages changed stays well within an invocation's
// 1,000 operations. The site's lastmods tell its pages apart, so content checks (changes.detect
// auto) trust them and cost it nothing: each tick makes the operations it makes with
// changes.detect: lastmod, which never checks a page, and its shards take the same bytes. -v logs
// each tick's operations, as docs/cloudflare.md gives them.
func TestKVOperationsPerTick(t *testing.T) {
	for _, size := range []int{10_000, 50_000} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			w := newWorld(t)
			auto, autoBytes := leanTicks(w, size, "")
			w.kv = &kvstate.MemKV{Now: w.now} // the same site, its URLs the same, from a state of nothing
			lastmod, lastmodBytes := leanTicks(w, size, `"changes": {"detect": "lastmod"}, `)
			if !slices.Equal(auto, lastmod) || autoBytes != lastmodBytes {
				t.Errorf("the ticks of a site whose lastmods are trusted: %+v, its shards %d bytes; with changes.detect lastmod: %+v, %d bytes; "+
					"want the same", auto, autoBytes, lastmod, lastmodBytes)
			}
		})
	}
}

// leanTicks runs the ticks of TestKVOperationsPerTick in w on a site of size pages with the
// defaults' settings changes (a JSON member and a comma, or nothing), and returns their KV
// operations and the bytes of the site's shards after them.
func leanTicks(w *world, size int, changes string) ([]kvstate.Ops, int) {
	t := w.t
	sent := len(w.engine.Accepted())
	w.vars[ConfigVar] = fmt.Sprintf(`{"defaults": {%s"schedule": "0 * * * *", "indexnow": {"endpoints": ["%s"], "interval": "1ms"}},
		"sites": [{"id": "big", "sitemaps": ["%s/sitemap.xml"], "indexnow": {"enabled": true, "key": "%s"}}]}`,
		changes, w.indexnow, w.site.URL, testKey)
	list := pages(size, "2026-01-01")
	w.publish(list...)
	var all []kvstate.Ops
	tick := func(name string, at time.Time) kvstate.Ops {
		t.Helper()
		ops := w.tickOps(at)
		t.Logf("%d URLs, %s%s: %+v", size, changes, name, ops)
		all = append(all, ops)
		return ops
	}
	// Ticks after the wall clock: memos are stamped with the later of the tick's clock and
	// the wall clock, and used once two minutes old.
	t0 := time.Now().UTC().Truncate(time.Hour).Add(time.Hour)
	tick("first", t0)
	if got := len(w.engine.Accepted()) - sent; got != size {
		t.Fatalf("the first tick sent %d URLs, want %d", got, size)
	}
	if ops := tick("nothing due", t0.Add(5*time.Minute)); ops != (kvstate.Ops{Reads: 1}) {
		t.Errorf("a tick with nothing due: %+v; want the schedule read, nothing else", ops)
	}
	if ops := tick("due, unchanged", t0.Add(time.Hour)); ops.Writes > 1 || ops.Deletes != 0 || ops.Total() > 10 {
		t.Errorf("a due tick, nothing changed: %+v; want one write at most, no delete, a few reads", ops)
	}
	for k := range 100 {
		list[k*(size/100)] = fmt.Sprintf("/p/%d 2027-01-01", k*(size/100))
	}
	w.publish(list...)
	if ops := tick("100 changed", t0.Add(2*time.Hour)); ops.Writes > 25 || ops.Total() > 100 {
		t.Errorf("a due tick, 100 pages changed: %+v; want at most 25 writes, and 100 operations", ops)
	}
	if got := len(w.engine.Accepted()) - sent; got != size+100 {
		t.Errorf("IndexNow got %d URLs, want %d", got, size+100)
	}
	b := w.shardBytes("big")
	t.Logf("%d URLs, %sits shards: %d bytes, %.1f a URL", size, changes, b, float64(b)/float64(size))
	return all, b
}

// shardBytes returns the bytes of site's catalogue shards in w's KV.
func (w *world) shardBytes(site string) int {
	w.t.Helper()
	ctx := context.Background()
	keys, err := w.kv.List(ctx, "cat:"+site+":")
	n := 0
	for _, k := range keys {
		v, _, err := w.kv.Get(ctx, k.Name)
		if err != nil {
			w.t.Fatal(err)
		}
		n += len(v)
	}
	if err != nil || n == 0 {
		w.t.Fatalf("the shards of %s: %v, %d bytes", site, err, n)
	}
	return n
}

// tickOps runs a tick at at and returns the KV operations it made.
func (w *world) tickOps(at time.Time) kvstate.Ops {
	w.t.Helper()
	before := w.kv.Ops()
	w.tick(at)
	after := w.kv.Ops()
	return kvstate.Ops{Reads: after.Reads - before.Reads, Writes: after.Writes - before.Writes,
		Deletes: after.Deletes - before.Deletes, Lists: after.Lists - before.Lists}
}

// TestATriggeredRunPlansItsSite: a triggered run that stops before its end (its subrequests)
// plans its site due at once, so that the next tick goes on with it, though the tick's plan said
// the site was not due before its next hour.
func TestATriggeredRunPlansItsSite(t *testing.T) {
	w := newWorld(t)
	w.vars[SubrequestsVar] = "5"
	w.vars[ConfigVar] = fmt.Sprintf(`{"adminToken": "${SITEPUSH_ADMIN_TOKEN}", "defaults": {"schedule": "0 * * * *"}, "sites": [{"id": "get",
		"sitemaps": ["%s/sitemap.xml"], "indexnow": {"enabled": true, "key": "%s", "method": "get", "endpoints": ["%s"], "interval": "1ms"}}]}`,
		w.site.URL, testKey, w.indexnow)
	w.publish(pages(3, "2026-01-01")...)
	w.tick(t0)
	if got := len(w.engine.Accepted()); got != 3 {
		t.Fatalf("the first tick sent %d URLs, want 3", got)
	}
	w.publish(pages(9, "2026-01-01")...)
	at := t0.Add(time.Minute)
	w.clock.Store(&at)
	if code, body := w.call("POST", "/trigger?site=get", testToken); code != 202 {
		t.Fatalf("/trigger: %d %s", code, body)
	}
	triggered := len(w.engine.Accepted())
	if triggered >= 9 {
		t.Fatalf("the triggered run sent %d URLs within 5 subrequests; want it stopped before the 9", triggered)
	}
	for i := 1; i <= 3 && len(w.engine.Accepted()) < 9; i++ {
		w.tick(t0.Add(time.Duration(5*i) * time.Minute))
	}
	if got := len(w.engine.Accepted()); got != 9 {
		t.Errorf("the ticks after the triggered run that stopped sent %d URLs in all, want the 9", got)
	}
}

// TestKVOperationsOfAStampedSite counts the KV operations of the due tick of a stamped site
// (every URL the build's lastmod: checked by content) that finds nothing changed: with no build
// since the last tick, its checks find the pages not modified (304s) and send nothing, but each
// page checked goes to the back of the rotation, its place in line written in its shard. So the
// tick writes the shards of the pages it checked, and with them the values of a run that wrote
// (its lease, its history, its site's value, the schedule) and deletes its lease, where a site
// whose lastmods are trusted writes the schedule alone (TestKVOperationsPerTick). The pages of a
// site checked all at once are in every shard; pages checked at the same time come round again
// in hash order, which is shard order, so the 991 pages a tick of a 10,000-page site checks
// fall in 2 or 3 of its 16 shards. -v logs the figures docs/cloudflare.md gives.
func TestKVOperationsOfAStampedSite(t *testing.T) {
	for _, size := range []int{40, 10_000} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			w := newWorld(t)
			w.vars[ConfigVar] = strings.Replace(w.stampedSite(), `"* * * * *"`, `"0 * * * *"`, 1)
			stampedBuild(w.host, w.site.URL, size, 0, nil)
			// Ticks after the wall clock, as in TestKVOperationsPerTick.
			at := time.Now().UTC().Truncate(time.Hour)
			tick := func() (kvstate.Ops, model.Record) {
				t.Helper()
				at = at.Add(time.Hour)
				ops := w.tickOps(at)
				rec := w.lastRun("demo")
				t.Logf("%d pages, tick at %s: %+v; changes %+v", size, at.Format(time.TimeOnly), ops, *rec.Changes)
				return ops, rec
			}
			_, rec := tick()
			for i := 0; rec.Changes.Left > 0; i++ {
				if i == size/500+1 {
					t.Fatalf("%d ticks after the first, %d pages are still left unchecked", i, rec.Changes.Left)
				}
				_, rec = tick()
			}
			if got := len(w.engine.Accepted()); got != size {
				t.Fatalf("the ticks of the first build sent %d URLs, want %d", got, size)
			}
			w.host.pagesNotModified()
			ops, rec := tick()
			c, notModified := rec.Changes, w.host.pagesNotModified()
			if c.Checked == 0 || c.Same != c.Checked || notModified != c.Checked || len(w.engine.Accepted()) != size {
				t.Errorf("a tick with no build since the last: changes %+v, %d pages answered 304, %d URLs sent; want pages checked, "+
					"each not modified, and none sent", c, notModified, len(w.engine.Accepted())-size)
			}
			b := w.shardBytes("demo")
			t.Logf("%d pages, each checked: its shards %d bytes, %.1f a URL", size, b, float64(b)/float64(size))
			if shards := min(16, c.Checked*16/size+2); ops.Writes > shards+4 || ops.Deletes > 1 || ops.Total() > 2*shards+16 {
				t.Errorf("a tick with no build since the last: %+v; want the shards of the %d pages checked written (%d at most), the run's 4 values, "+
					"its lease deleted, and the reads of those and of the run's 9 others", ops, c.Checked, shards)
			}
		})
	}
}
