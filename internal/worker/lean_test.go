package worker

import (
	"fmt"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/kvstate"
)

// TestKVOperationsPerTick counts the KV operations of a site's ticks, natively over a KV in
// memory (under workerd, the JS module reads the schedule once more at each tick): a tick with
// nothing due reads the schedule alone and writes nothing, a due tick whose sitemap did not
// change writes one value, and a tick where 100 pages changed stays well within an invocation's
// 1,000 operations. -v logs each tick's operations, as docs/cloudflare.md gives them.
func TestKVOperationsPerTick(t *testing.T) {
	for _, size := range []int{10_000, 50_000} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			w := newWorld(t)
			w.vars[ConfigVar] = fmt.Sprintf(`{"defaults": {"schedule": "0 * * * *", "indexnow": {"endpoints": ["%s"], "interval": "1ms"}},
				"sites": [{"id": "big", "sitemaps": ["%s/sitemap.xml"], "indexnow": {"enabled": true, "key": "%s"}}]}`,
				w.indexnow, w.site.URL, testKey)
			list := pages(size, "2026-01-01")
			w.publish(list...)
			tick := func(name string, at time.Time) kvstate.Ops {
				t.Helper()
				before := w.kv.Ops()
				w.tick(at)
				after := w.kv.Ops()
				ops := kvstate.Ops{Reads: after.Reads - before.Reads, Writes: after.Writes - before.Writes,
					Deletes: after.Deletes - before.Deletes, Lists: after.Lists - before.Lists}
				t.Logf("%d URLs, %s: %+v", size, name, ops)
				return ops
			}
			// Ticks after the wall clock: memos are stamped with the later of the tick's clock and
			// the wall clock, and used once two minutes old.
			t0 := time.Now().UTC().Truncate(time.Hour).Add(time.Hour)
			tick("first", t0)
			if got := len(w.engine.Accepted()); got != size {
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
			if got := len(w.engine.Accepted()); got != size+100 {
				t.Errorf("IndexNow got %d URLs, want %d", got, size+100)
			}
		})
	}
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
