package server

import (
	"context"
	"encoding/json"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
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

// checkedPages puts in w's state six pages of its site, their content checked as a run's checks
// record it, and returns their URLs by name — each delivered on IndexNow (with lastmod lm) at
// sent, and never attempted elsewhere:
//
//   - trusted: of a sitemap whose lastmods are trusted, never checked;
//   - new: of a sitemap checked by content, sent before its first check;
//   - suspect: checked the same as sent, then its lastmod moved (a build's stamp), not checked
//     since;
//   - same: as suspect, then checked again, the same;
//   - changed: checked, then found changed (keeping its place in line, from its first check);
//   - left: checked, then its sitemap's lastmods were trusted.
func checkedPages(t *testing.T, w *world, lm, sent time.Time) map[string]string {
	t.Helper()
	ctx := context.Background()
	urls := map[string]string{}
	var first, moved, trusted []channel.Page
	var due []channel.Due
	for _, name := range []string{"trusted", "new", "suspect", "same", "changed", "left"} {
		u := w.site.URL + "/content/" + name
		urls[name] = u
		p := channel.Page{URL: u, Hash: runner.URLHash([]byte(u)), Lastmod: lm, Check: name != "trusted"}
		first = append(first, p)
		due = append(due, channel.Due{Hash: p.Hash, Lastmod: lm})
		switch name {
		case "suspect", "same":
			p.Lastmod = lm.Add(time.Hour)
			moved = append(moved, p)
		case "left":
			p.Check = false
			trusted = append(trusted, p)
		}
	}
	check := func(at time.Time, content uint64, changed bool, names ...string) {
		t.Helper()
		var checks []model.PageCheck
		for _, n := range names {
			checks = append(checks, model.PageCheck{Hash: runner.URLHash([]byte(urls[n])), At: at, Content: content, Changed: changed})
		}
		if err := w.store.RecordChecks(ctx, "filesite", checks); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.store.SyncCatalog(ctx, "filesite", sent, first, nil, false); err != nil {
		t.Fatal(err)
	}
	if err := w.store.RecordOutcome(ctx, "filesite", sent, channel.Outcome{Channel: "indexnow", URLs: due, Delivered: true}); err != nil {
		t.Fatal(err)
	}
	check(sent.Add(time.Minute), 7, false, "suspect", "same", "changed", "left")
	if _, err := w.store.SyncCatalog(ctx, "filesite", sent.Add(2*time.Minute), append(moved, trusted...), nil, false); err != nil {
		t.Fatal(err)
	}
	check(sent.Add(3*time.Minute), 7, false, "same")
	check(sent.Add(3*time.Minute), 8, true, "changed")
	return urls
}

// TestAStoryTellsWhatContentChecksFound: a URL's story says where its page stands in the content
// checks and whether its content is what each channel was sent, and whether it is due by the
// one rule: a page whose lastmod moved on a sitemap checked by content is a suspect, due nowhere
// until its check finds it changed; one found the same is not due; one found changed is, as
// changed.
func TestAStoryTellsWhatContentChecksFound(t *testing.T) {
	w := newWorld(t)
	site := &w.config.Sites[0]
	lm, sent := time.Now().Add(-3*time.Hour).Truncate(time.Millisecond).UTC(), time.Now().Add(-2*time.Hour).Truncate(time.Millisecond).UTC()
	urls := checkedPages(t, w, lm, sent)
	checkedAt := sent.Add(3 * time.Minute)
	yes, no := true, false
	rfc := func(t time.Time) string { return t.Format(time.RFC3339) }
	for _, tc := range []struct {
		name    string
		content *ContentStory
		same    *bool
		why     string // IndexNow's
		line    string
	}{
		{"trusted", nil, nil, "", "its sitemap's lastmods are trusted: not checked"},
		{"new", &ContentStory{InRotation: true, Suspect: true}, nil, "", "new to the checks, not checked yet (a suspect: checked first next run)"},
		{"suspect", &ContentStory{InRotation: true, Suspect: true, Checked: true}, &yes, "",
			"lastmod moved on " + rfc(lm.Add(time.Hour)) + ", not checked since (a suspect: checked first next run)"},
		{"same", &ContentStory{InRotation: true, Checked: true, CheckedAt: &checkedAt}, &yes, "",
			"checked (its place in line from " + rfc(checkedAt) + "): content the same as sent to indexnow on " + rfc(sent)},
		{"changed", &ContentStory{InRotation: true, Checked: true, CheckedAt: &[]time.Time{sent.Add(time.Minute)}[0]}, &no, runner.DueChanged,
			"checked (its place in line from " + rfc(sent.Add(time.Minute)) + "): content changed since indexnow was sent it: due"},
		{"left", &ContentStory{Checked: true}, nil, "", "its sitemap's lastmods are trusted now: not checked"},
	} {
		doc, err := StoryOf(context.Background(), w.store, site, urls[tc.name], time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(doc.Content, tc.content) {
			t.Errorf("%s: content %s, want %s", tc.name, show(doc.Content), show(tc.content))
		}
		in := doc.Channels["indexnow"]
		if !reflect.DeepEqual(in.SameAsSent, tc.same) || in.Due != (tc.why != "") || (in.Why != nil) != (tc.why != "") || in.Why != nil && *in.Why != tc.why {
			t.Errorf("%s on indexnow: %s; want sameAsSent %s, due %q", tc.name, show(in), show(tc.same), tc.why)
		}
		if b := doc.Channels["bing"]; b.SameAsSent != nil || b.Why == nil || *b.Why != runner.DueNew {
			t.Errorf("%s on bing, never attempted: %s; want nothing to compare, due as new", tc.name, show(b))
		}
		if got := doc.ContentLine(rfc); got != tc.line {
			t.Errorf("%s: content line %q\nwant %q", tc.name, got, tc.line)
		}
	}

	// The API tells it: content and sameAsSent are null when there is nothing to compare.
	_, body := w.call("GET", "/api/sites/filesite/urls?url="+url.QueryEscape(urls["trusted"]), "")
	for _, want := range []string{`"content":null`, `"sameAsSent":null`} {
		if !strings.Contains(body, want) {
			t.Errorf("the story of a page never checked lacks %s: %s", want, body)
		}
	}
	_, body = w.call("GET", "/api/sites/filesite/urls?url="+url.QueryEscape(urls["same"]), "")
	want := `"content":{"inRotation":true,"suspect":false,"checked":true,"checkedAt":"` + checkedAt.Format(time.RFC3339Nano) + `"}`
	if !strings.Contains(body, want) || !strings.Contains(body, `"sameAsSent":true`) {
		t.Errorf("the story of a page checked the same as sent: %s\nwant %s and sameAsSent true", body, want)
	}
}

// show is v in JSON, for a test's message.
func show(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestAStoryOfAURLNeverSent: a URL a first run's backlog, or a run's baseline, took as known was
// never sent: its story — the API's and the URL page's — says so in words, with no delivery
// time and no attempt, not ⚠ of an outcome.
func TestAStoryOfAURLNeverSent(t *testing.T) {
	w := newWorld(t)
	w.run("indexnow")
	b := w.signIn()
	for _, tc := range []struct{ path, unsent, want string }{
		{"/blog/post-3", model.UnsentBacklog, "never sent: older than the first run's backlog"},
		{"/blog/post-4", model.UnsentBaseline, "never sent: unchanged since the baseline (run --baseline)"},
	} {
		u := w.site.URL + tc.path
		o := channel.Outcome{Channel: "bing", URLs: []channel.Due{{Hash: runner.URLHash([]byte(u))}}, Unsent: tc.unsent}
		if err := w.store.RecordOutcome(context.Background(), "filesite", time.Now(), o); err != nil {
			t.Fatal(err)
		}
		_, body := w.call("GET", "/api/sites/filesite/urls?url="+url.QueryEscape(u), "")
		var doc URLStory
		decode(t, body, &doc)
		if bing := doc.Channels["bing"]; bing.LastOutcome == nil || *bing.LastOutcome != tc.unsent || bing.NotSent != tc.want ||
			bing.LastDelivery != nil || bing.LastAttempt != nil || bing.TakenAt == nil {
			t.Errorf("the story of a URL never sent (%s): %s", tc.unsent, body)
		}
		_, html := b.get("/sites/filesite/urls?q=" + url.QueryEscape(u))
		if !strings.Contains(html, strings.ReplaceAll(tc.want, "'", "&#39;")) || strings.Contains(html, "⚠ "+tc.unsent) {
			t.Errorf("the URL page of a URL never sent (%s) lacks %q", tc.unsent, tc.want)
		}
	}
}

// TestARunPageCountsURLsNeverSentApart: the run page calls skipped URLs already known, and tells
// those a first run's backlog or a baseline took as known, never sent, in the summary's words.
func TestARunPageCountsURLsNeverSentApart(t *testing.T) {
	w := newWorld(t)
	b := w.signIn()
	start := time.Now().UTC().Add(-time.Minute)
	rec := &model.Record{Site: "filesite", Trigger: "cli", StartedAt: start, Status: model.StatusRunning}
	if err := w.store.SaveRun(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	rec.FinishedAt, rec.Status, rec.Errors = start.Add(time.Second), model.StatusOK, []string{}
	rec.Channels = map[string]*model.ChannelStats{"indexnow": {Due: 7, Submitted: 7, Backlog: 13, Baseline: 2, Endpoints: map[string]*model.EndpointStats{}}}
	if err := w.store.SaveRun(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	_, html := b.get("/runs/" + strconv.FormatInt(rec.ID, 10))
	for _, want := range []string{"already known", "13 older than the first run&#39;s backlog, not sent", "2 unchanged since the baseline, not sent"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page of a run with a backlog lacks %q", want)
		}
	}
}

// TestContentOfAPageNeverSent: a page a channel never sent (a backlog's, one a preflight held
// back) is compared with its content when the channel took it as known; the line never says it
// was sent.
func TestContentOfAPageNeverSent(t *testing.T) {
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	yes, no := true, false
	rfc := func(t time.Time) string { return t.Format(time.RFC3339) }
	checked := &ContentStory{InRotation: true, Checked: true}
	for _, tc := range []struct {
		sent sentStory
		want string
	}{
		{sentStory{name: "indexnow", same: &yes}, "checked: content unchanged for indexnow, which was never sent it"},
		{sentStory{name: "indexnow", same: &no, due: true}, "checked: content changed for indexnow, which was never sent it: due"},
		{sentStory{name: "indexnow", same: &yes, sentAt: &at}, "checked: content the same as sent to indexnow on " + rfc(at)},
		{sentStory{name: "indexnow", same: &no, sentAt: &at}, "checked: content changed since indexnow was sent it: not due"},
	} {
		if got := sayContent(checked, nil, []sentStory{tc.sent}, rfc); got != tc.want {
			t.Errorf("%q, want %q", got, tc.want)
		}
	}
}
