package server

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
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
	if doc.Bing != nil || !strings.Contains(body, `"bing":null`) {
		t.Errorf("the story of a URL Bing was never asked about has bing %s; want null", body)
	}

	// What Bing's GetUrlInfo said is told: the crawl, and the hours from the submission to it.
	submitted := in.LastDelivery.Truncate(time.Millisecond)
	crawl := model.BingCrawl{Hash: runner.URLHash([]byte(u)), LastCrawled: submitted.Add(90 * time.Minute), HTTPStatus: 200,
		Discovered: submitted.Add(time.Minute), CheckedAt: submitted.Add(2 * time.Hour), Submitted: submitted}
	if err := w.store.RecordBingCrawl(context.Background(), "filesite", crawl); err != nil {
		t.Fatal(err)
	}
	_, body = w.call("GET", path, "")
	doc = URLStory{}
	decode(t, body, &doc)
	if b := doc.Bing; b == nil || b.LastCrawled == nil || !b.LastCrawled.Equal(crawl.LastCrawled) || b.HTTPStatus != 200 ||
		b.Discovered == nil || !b.CheckedAt.Equal(crawl.CheckedAt) || b.HoursToCrawl == nil || *b.HoursToCrawl != 1.5 {
		t.Errorf("the story of a URL Bing crawled 90 minutes after its submission: %s", body)
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

// TestAStoryIsDueByTheChannelsSelection: a URL's story says it is due on a channel by the rule the
// channel's runs follow, which its selection gives: once resubmitAfter has passed, a URL sent is
// due again on IndexNow, and never on the feed, which takes only new URLs.
func TestAStoryIsDueByTheChannelsSelection(t *testing.T) {
	w := newWorld(t)
	w.run("all")
	site := &w.config.Sites[0]
	u := w.site.URL + "/blog/post-24" // the newest page: an item of the feed's first run
	doc, err := StoryOf(context.Background(), w.store, site, u, time.Now().Add(site.ResubmitAfter.D()+time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	in, fd := doc.Channels["indexnow"], doc.Channels["feed"]
	why := func(c ChannelStory) string {
		if c.Why == nil {
			return ""
		}
		return *c.Why
	}
	if fd.LastOutcome == nil || !in.Due || why(in) != runner.DueResubmit || fd.Due {
		t.Errorf("after resubmitAfter, IndexNow: due %v (%q); the feed (sent: %v): due %v (%q); want IndexNow due to resubmit, the feed not due",
			in.Due, why(in), fd.LastOutcome != nil, fd.Due, why(fd))
	}
}
