package worker

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/kvstate"
)

// TestASiteTooBigForTheWorker: a site larger than the Worker holds fails its run with one message,
// "too many URLs" once, that says what to do — in the log of the tick and in /status — and sends
// nothing, however many channels it has.
func TestASiteTooBigForTheWorker(t *testing.T) {
	w := newWorld(t)
	var ps []string
	for i := range kvstate.DefaultEntries + 50 {
		ps = append(ps, fmt.Sprintf("/p/%d 2026-01-01", i))
	}
	w.publish(ps...)
	w.tick(t0)
	_, status := w.call("GET", "/status?site=demo", testToken)
	for what, text := range map[string]string{"the log": w.log.String(), "/status": status} {
		if n := strings.Count(text, "too many URLs"); n != 1 || !strings.Contains(text, "run the site with sitepush serve, or split its sitemaps among sites") {
			t.Errorf("%s says \"too many URLs\" %d times, want once with what to do: %s", what, n, text)
		}
	}
	if got := len(w.engine.Accepted()); got != 0 {
		t.Errorf("IndexNow got %d URLs of a site too big to run", got)
	}
}

// TestABigSitemapOnTheWorker: a sitemap of 100,000 URLs — twice the sitemaps.org limit, as many
// as the Worker holds of a site — is remembered as a small one: a tick that finds it unchanged
// (read again: the website gives no validators) makes the KV reads of one that finds a
// 10,000-URL sitemap unchanged, and sends nothing.
func TestABigSitemapOnTheWorker(t *testing.T) {
	reads := map[int]int{}
	for _, n := range []int{10_000, kvstate.DefaultEntries} {
		w := newWorld(t)
		w.vars[ConfigVar] = strings.Replace(w.vars[ConfigVar], `"bing": {"enabled": true`, `"bing": {"enabled": false`, 1)
		w.vars[ConfigVar] = strings.Replace(w.vars[ConfigVar], `"feed": {"enabled": true`, `"feed": {"enabled": false`, 1)
		w.publish(pages(n, "2026-01-01")...)
		// From the wall clock on: memos are stamped with it, and used from two minutes after.
		at := time.Now().UTC()
		w.tick(at)
		if got := len(w.engine.Accepted()); got != n {
			t.Fatalf("%d URLs: the first tick sent %d\n%s", n, got, w.log.String())
		}
		before := w.kv.Ops()
		w.tick(at.Add(time.Hour))
		reads[n] = w.kv.Ops().Reads - before.Reads
		if got := len(w.engine.Accepted()); got != n {
			t.Errorf("%d URLs: the tick that found the sitemap unchanged sent %d", n, got-n)
		}
	}
	if reads[kvstate.DefaultEntries] != reads[10_000] {
		t.Errorf("a tick that found the sitemap unchanged made %d KV reads for %d URLs, %d for 10,000; want as many",
			reads[kvstate.DefaultEntries], kvstate.DefaultEntries, reads[10_000])
	}
}
