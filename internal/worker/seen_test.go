package worker

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestFromSentToSeenOnTheWorker: on the Worker, under a small subrequest budget, Bing's
// preflight holds back a page that says noindex and one that answers 404, and sends every other
// — a few ticks' worth, each tick within its budget, the URLs checked always sent; a page changed
// to be indexable is sent once its lastmod changes; a page that leaves the sitemap and answers
// 404 is announced through IndexNow the tick after, never through Bing, and one that leaves but
// stays is not.
func TestFromSentToSeenOnTheWorker(t *testing.T) {
	w := newWorld(t)
	w.vars[SubrequestsVar] = "20"
	w.vars[ConfigVar] = strings.Replace(w.vars[ConfigVar], `"feed": {"enabled": true`, `"feed": {"enabled": false`, 1)
	w.publish(pages(30, "2026-01-01")...)
	w.files["/p/3"] = `<!doctype html><meta name="robots" content="noindex"><title>draft</title>`
	delete(w.files, "/p/5")
	url := func(path string) string { return w.site.URL + path }
	// Ticks 5 minutes apart, from now: a run uses the memos of the sitemaps once they are 2
	// minutes old (by the later of the tick's clock and the wall clock).
	start, ticks := time.Now().UTC().Truncate(time.Minute).Add(time.Hour), 0
	tick := func() {
		t.Helper()
		before := w.requests.Load()
		w.tick(start.Add(time.Duration(ticks) * 5 * time.Minute))
		ticks++
		if n := w.requests.Load() - before; n > 20 {
			t.Fatalf("tick %d made %d requests with %s=20", ticks, n, SubrequestsVar)
		}
	}
	for ticks < 8 && len(w.bing.Accepted()) < 28 {
		tick()
	}
	bing := w.bing.Accepted()
	if len(bing) != 28 || slices.Contains(bing, url("/p/3")) || slices.Contains(bing, url("/p/5")) || ticks < 2 {
		t.Fatalf("after %d ticks Bing got %d URLs; want the 28 eligible over 2 ticks at least, neither /p/3 (noindex) nor /p/5 (404)\n%s",
			ticks, len(bing), w.log.String())
	}
	held := 0
	for _, m := range regexp.MustCompile(`bing\.ineligible=(\d+)`).FindAllStringSubmatch(w.log.String(), -1) {
		n, _ := strconv.Atoi(m[1])
		held += n
	}
	if held != 2 || !strings.Contains(w.log.String(), "page fetches this run may make for preflight are spent") {
		t.Errorf("the runs' logs count %d held back, want 2, or do not say why a tick stopped checking:\n%s", held, w.log.String())
	}
	if got := w.engine.Accepted(); len(got) != 30 {
		t.Errorf("IndexNow, which does not preflight by default, got %d URLs; want all 30", len(got))
	}
	// Two more ticks check what the budget left unchecked, so that a read settles: only a
	// settled read is remembered, and tells the URLs that leave after it.
	tick()
	tick()
	if n := len(w.bing.Accepted()); n != 28 {
		t.Fatalf("Bing got %d URLs once every page was checked; want the 28 eligible", n)
	}

	// /p/3 is fixed and its lastmod changes; /p/7 is deleted, /p/8 leaves the sitemap but stays.
	now := pages(30, "2026-01-01")
	now[3] = "/p/3 2026-02-01"
	w.files["/p/3"] = "<!doctype html><title>published</title>"
	now = slices.DeleteFunc(now, func(p string) bool { return strings.HasPrefix(p, "/p/7 ") || strings.HasPrefix(p, "/p/8 ") })
	w.publish(now...)
	delete(w.files, "/p/7")
	delete(w.files, "/p/5") // publish wrote it again
	sentBefore := len(w.engine.Accepted())
	tick() // reads the sitemap whole: /p/7 and /p/8 are found gone
	tick() // asks the site what became of them
	if got := w.bing.Accepted()[28:]; !slices.Equal(got, []string{url("/p/3")}) {
		t.Errorf("after /p/3 was fixed and /p/7 deleted, Bing got %v; want /p/3 only: no removal notice goes through SubmitUrlbatch", got)
	}
	notices := w.engine.Accepted()[sentBefore:]
	if !slices.Contains(notices, url("/p/7")) || slices.Contains(notices, url("/p/8")) {
		t.Errorf("IndexNow got %v after /p/7 was deleted and /p/8 left the sitemap; want /p/7 (a removal notice), not /p/8", notices)
	}
	tick()
	again := w.engine.Accepted()[sentBefore:]
	if n := len(slices.DeleteFunc(slices.Clone(again), func(u string) bool { return u != url("/p/7") })); n != 1 {
		t.Errorf("the removal notice of /p/7 was sent %d times: %v", n, again)
	}
}
