package worker

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/model"
)

// lastRun returns site's last run, as /status gives it.
func (w *world) lastRun(site string) model.Record {
	w.t.Helper()
	code, body := w.call("GET", "/status?site="+site, testToken)
	var status struct{ LastExecution *model.Record }
	if err := json.Unmarshal([]byte(body), &status); code != 200 || err != nil || status.LastExecution == nil {
		w.t.Fatalf("/status?site=%s: %d %v %s", site, code, err, body)
	}
	return *status.LastExecution
}

// stampedSite is the configuration of one site, "demo", of the world's sitemap, sending to
// IndexNow alone, due at every tick: with a stamped sitemap, checked by content (auto).
func (w *world) stampedSite() string {
	return fmt.Sprintf(`{"adminToken": "${SITEPUSH_ADMIN_TOKEN}", "defaults": {"schedule": "* * * * *"}, "sites": [{"id": "demo",
		"sitemaps": ["%s/sitemap.xml"], "indexnow": {"enabled": true, "key": "%s", "endpoints": ["%s"], "interval": "1ms"}}]}`,
		w.site.URL, testKey, w.indexnow)
}

// TestContentChecksWithinThePageFetches: under SITEPUSH_SUBREQUESTS=20, a stamped site of 40
// pages is checked as far as the invocation's page fetches go — they stop where its last
// requests are kept for the engines — and the checks not made are left, never failed: the
// suspects not checked are counted left and are the next tick's first, and the IndexNow POST of
// what the tick found due still goes. The tick after the first build sends the 40 pages (new)
// over a third of them checked; the ticks after a build that edited 30 check the rest and send
// each of the 30 once, in the tick that found it changed.
func TestContentChecksWithinThePageFetches(t *testing.T) {
	const n, budget = 40, 20
	w := newWorld(t)
	w.vars[SubrequestsVar] = fmt.Sprint(budget)
	w.vars[ConfigVar] = w.stampedSite()
	at := t0
	tick := func() model.Record {
		t.Helper()
		at = at.Add(time.Minute)
		before, sent := w.requests.Load(), len(w.engine.Accepted())
		w.tick(at)
		if made := w.requests.Load() - before; made > budget {
			t.Fatalf("the tick at %s made %d requests with %s=%d", at, made, SubrequestsVar, budget)
		}
		rec := w.lastRun("demo")
		c := rec.Changes
		if c == nil || c.Failed != 0 || strings.Contains(strings.Join(rec.Notes, " "), "could not be read") {
			t.Fatalf("the tick at %s: changes %+v, notes %q; want checks, none failed\n%s", at, c, rec.Notes, w.log.String())
		}
		if got := len(w.engine.Accepted()) - sent; got != rec.Channels["indexnow"].Submitted {
			t.Errorf("the tick at %s: IndexNow got %d URLs, its record says %d", at, got, rec.Channels["indexnow"].Submitted)
		}
		t.Logf("tick at %s: %d requests; checked %d: %d first, %d changed, %d the same; %d left; IndexNow %d", at.Format(time.TimeOnly),
			w.requests.Load()-before, c.Checked, c.First, c.Changed, c.Same, c.Left, rec.Channels["indexnow"].Submitted)
		return rec
	}

	stampedBuild(w.host, w.site.URL, n, 0, nil)
	rec := tick()
	if c := rec.Changes; c.Checked == 0 || c.Left == 0 || c.Checked+c.Left != n || c.First != c.Checked {
		t.Errorf("the first tick's checks: %+v; want some of the %d new pages checked (first checks), the rest left", c, n)
	}
	if got := len(w.engine.Accepted()); got != n {
		t.Fatalf("the first tick sent %d URLs, want the %d new pages, checked or not", got, n)
	}
	// The suspects left go first: the next ticks check them, and send nothing (a first check is
	// no change). Pages are read 8 at a time, so that of the fetches in flight when the page
	// fetches run out, up to 7 may be of pages after a suspect refused.
	for i := 0; rec.Changes.Left > 0; i++ {
		if i == 3 {
			t.Fatalf("3 ticks after the first, %d pages are still left unchecked", rec.Changes.Left)
		}
		left := rec.Changes.Left
		rec = tick()
		if c := rec.Changes; c.First+c.Left != left || c.First < min(left, c.Checked)-7 || c.Changed != 0 {
			t.Errorf("a tick after one that left %d pages unchecked: %+v; want each of them checked (a first check) or left again, "+
				"those checked first, none changed", left, c)
		}
	}
	if got := len(w.engine.Accepted()); got != n {
		t.Fatalf("the ticks that checked the pages the first one left sent %d URLs", got-n)
	}

	edits := map[int]int{}
	for i := range 30 { // of any 11 pages checked, one at least was edited
		edits[i] = 1
	}
	stampedBuild(w.host, w.site.URL, n, 1, edits)
	rec = tick()
	if c := rec.Changes; c.Left == 0 || c.Changed == 0 || c.Checked+c.Left != n {
		t.Errorf("the tick after a build that edited 30 of %d pages: %+v; want some checked, some found changed and sent, the rest left", n, c)
	}
	for i := 0; rec.Changes.Left > 0; i++ {
		if i == 3 {
			t.Fatalf("3 ticks after the build, %d pages are still left unchecked", rec.Changes.Left)
		}
		rec = tick()
	}
	got := w.engine.Accepted()[n:]
	seen := map[string]bool{}
	for _, u := range got {
		seen[u] = true
	}
	if len(got) != len(edits) || len(seen) != len(edits) {
		t.Errorf("after a build that edited %d pages, IndexNow got %d URLs, %d distinct; want each edited page once", len(edits), len(got), len(seen))
	}
	for i := range edits {
		if u := fmt.Sprintf("%s/s/%d", w.site.URL, i); !seen[u] {
			t.Errorf("%s, edited, was not sent", u)
		}
	}
}
