package server

import (
	"net/url"
	"strings"
	"testing"
)

// TestURLStoryAPI: GET /api/sites/{id}/urls?url=U answers the URL's story — the document
// `sitepush inspect --json` prints — behind the token, and says what is wrong with a request.
func TestURLStoryAPI(t *testing.T) {
	w := newWorld(t)
	w.run("indexnow")
	u := w.site.URL + "/blog/post-3"
	path := "/api/sites/filesite/urls?url=" + url.QueryEscape(u)
	if code, _ := w.call("GET", path, "", ""); code != 401 {
		t.Errorf("without the token: %d", code)
	}
	code, body := w.call("GET", path, "")
	var doc URLStory
	decode(t, body, &doc)
	in, bing := doc.Channels["indexnow"], doc.Channels["bing"]
	if code != 200 || doc.URL != u || doc.InSitemaps == nil || !*doc.InSitemaps || doc.Lastmod == nil || doc.Lastmod.Format("2006-01-02") != "2026-05-04" ||
		in.LastOutcome == nil || *in.LastOutcome != "ok" || in.Due || bing.LastOutcome != nil || !bing.Due || bing.Why == nil || *bing.Why != "new" {
		t.Errorf("the story of a URL sent on IndexNow, not yet on Bing: %d %s", code, body)
	}
	if _, ok := doc.Channels["feed"]; !ok || len(doc.Channels) != 3 {
		t.Errorf("the story has %d channels, want the site's 3: %s", len(doc.Channels), body)
	}
	for _, tc := range []struct {
		path string
		code int
		want string
	}{
		{"/api/sites/filesite/urls", 400, "say which URL"},
		{"/api/sites/filesite/urls?url=" + url.QueryEscape(w.site.URL+"/blog/"), 404, `has no URL ` + w.site.URL + `/blog/ in its catalogue`},
		{"/api/sites/nope/urls?url=x", 404, `no site \"nope\"`},
	} {
		if code, body := w.call("GET", tc.path, ""); code != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("GET %s: %d %s; want %d with %q", tc.path, code, body, tc.code, tc.want)
		}
	}
}
