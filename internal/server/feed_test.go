package server

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestResubmitKeepsTheFeedsItems checks that the dashboard's Resubmit and retry and POST
// /api/sites/{id}/urls, forced or not, leave the feed's items as they are for a page it has — an
// item, or a page known without one — while a page never seen becomes an item.
func TestResubmitKeepsTheFeedsItems(t *testing.T) {
	w := newWorld(t)
	b := w.signIn()
	b.runOnce("run", url.Values{})
	items := func() string {
		t.Helper()
		code, body := w.call("GET", "/feeds/filesite.xml", "", "")
		if code != http.StatusOK {
			t.Fatalf("GET /feeds/filesite.xml: %d", code)
		}
		return regexp.MustCompile(`<lastBuildDate>[^<]*</lastBuildDate>`).ReplaceAllString(body, "")
	}
	before := items()
	// The newest 10 of the 25 posts are items; post-0 is known without one.
	if strings.Count(before, "<item>") != 10 || !strings.Contains(before, "/blog/post-24</link>") || strings.Contains(before, "/blog/post-0</link>") {
		t.Fatalf("the first run's feed:\n%s", before)
	}
	for _, u := range []string{w.site.URL + "/blog/post-24", w.site.URL + "/blog/post-0"} {
		b.runOnce("resubmit", url.Values{"url": {u}})
		for _, force := range []bool{false, true} {
			code, body := w.call("POST", "/api/sites/filesite/urls", fmt.Sprintf(`{"urls": [%q], "force": %v}`, u, force))
			if code != http.StatusAccepted {
				t.Fatalf("POST /api/sites/filesite/urls: %d %s", code, body)
			}
			w.waitFinished("filesite")
		}
		if after := items(); after != before {
			t.Errorf("after Resubmit and the API's submits of %s, the feed changed:\n%s", u, after)
		}
	}
	b.runOnce("retry", url.Values{})
	if after := items(); after != before {
		t.Errorf("after retry, the feed changed:\n%s", after)
	}
	page := w.site.URL + "/landing/from-cms"
	w.call("POST", "/api/sites/filesite/urls", fmt.Sprintf(`{"urls": [%q]}`, page))
	w.waitFinished("filesite")
	if after := items(); strings.Count(after, "<item>") != 11 || !strings.Contains(after, page+"</link>") {
		t.Errorf("a page never seen, submitted: want it an item:\n%s", after)
	}
}
