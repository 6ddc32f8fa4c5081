//go:build unix

package worker

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/model"
)

// TestAStampedSiteUnderWorkerd: under workerd, a site of 40 pages whose generator stamps every
// URL of its sitemap with the build's time, served as a static host serves its build (an ETag a
// file, the build's time as Last-Modified), every page's bytes changed by each build (a nonce,
// hashed asset names, a build id). Its sitemap is checked by content: the tick after the first
// build sends the 40 pages; a tick with no build between finds them not modified (304s) and sends
// none; the tick after a build that edited 3 pages sends those 3; the tick after a build that
// changed nothing, the edits kept, sends none — though each build moved every lastmod.
func TestAStampedSiteUnderWorkerd(t *testing.T) {
	const n = 40
	lb := newLoopback(t)
	build := func(b int, edits map[int]int) {
		lb.mu.Lock()
		defer lb.mu.Unlock()
		stampedBuild(lb.host, lb.site, n, b, edits)
	}
	build(0, nil)
	config := fmt.Sprintf(`{"adminToken": "${SITEPUSH_ADMIN_TOKEN}", "defaults": {"schedule": "* * * * *"}, "sites": [{"id": "demo",
		"sitemaps": ["%s/sitemap.xml"], "indexnow": {"enabled": true, "key": "%s", "endpoints": ["%s"], "interval": "1ms"}}]}`,
		lb.site, testKey, lb.indexnow)
	w := startWorkerd(t, map[string]string{ConfigVar: strings.Join(strings.Fields(config), " "), "SITEPUSH_ADMIN_TOKEN": testToken})
	// Ticks 5 minutes apart from now: a run uses the memos of the sitemaps once 2 minutes old.
	at := time.Now().UTC().Truncate(time.Minute)
	// A tick returns the URLs IndexNow got, the run's checks, and how many pages answered 304.
	tick := func(name string) ([]string, model.Changes, int) {
		t.Helper()
		at = at.Add(5 * time.Minute)
		lb.host.pagesNotModified()
		from, before := len(w.log.String()), len(lb.engine.Accepted())
		if code, body := w.tick(at); code != 200 {
			t.Fatalf("%s: tick at %s: %d %s", name, at, code, body)
		}
		line := w.doneLine(from)
		code, body := w.call("GET", "/status?site=demo", testToken)
		var status struct{ LastExecution *model.Record }
		if err := json.Unmarshal([]byte(body), &status); code != 200 || err != nil || status.LastExecution == nil {
			t.Fatalf("%s: /status: %d %v %s", name, code, err, body)
		}
		var c model.Changes // none when the run checked no page
		if status.LastExecution.Changes != nil {
			c = *status.LastExecution.Changes
		}
		notModified := lb.host.pagesNotModified()
		t.Logf("%s: checked %d: %d first, %d changed, %d the same, %d answered 304; %s", name, c.Checked, c.First, c.Changed, c.Same,
			notModified, line[strings.Index(line, "subrequests="):])
		sent := slices.Clone(lb.engine.Accepted()[before:])
		slices.Sort(sent)
		return sent, c, notModified
	}
	urls := func(pages ...int) []string {
		var out []string
		for _, i := range pages {
			out = append(out, fmt.Sprintf("%s/s/%d", lb.site, i))
		}
		slices.Sort(out)
		return out
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}

	sent, c, _ := tick("build 0")
	if want := urls(all...); !slices.Equal(sent, want) || c.Checked != n || c.First != n {
		t.Errorf("the tick after the first build: IndexNow got %d URLs, checks %+v; want the %d pages, each checked a first time", len(sent), c, n)
	}
	sent, c, notModified := tick("no build")
	if len(sent) != 0 || c.Checked != n || c.Same != n || notModified != n {
		t.Errorf("a tick with no build since the last: IndexNow got %v, checks %+v, %d pages answered 304; want none sent, "+
			"every page checked the same by a conditional GET (its validators kept in its shard)", sent, c, notModified)
	}
	edits := map[int]int{4: 1, 17: 1, 33: 1}
	build(1, edits)
	sent, c, _ = tick("build 1, 3 pages edited")
	if want := urls(4, 17, 33); !slices.Equal(sent, want) || c.Checked != n || c.Changed != 3 || c.Same != n-3 {
		t.Errorf("the tick after a build that edited 3 pages: IndexNow got %v, checks %+v; want %v, 3 pages changed", sent, c, want)
	}
	build(2, edits)
	sent, c, _ = tick("build 2, nothing edited")
	if len(sent) != 0 || c.Checked != n || c.Changed != 0 || c.Same != n {
		t.Errorf("the tick after a build that changed nothing: IndexNow got %v, checks %+v; want none sent, every page the same", sent, c)
	}
}
