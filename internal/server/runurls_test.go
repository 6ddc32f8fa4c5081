package server

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/model"
)

// TestRunPageNamesItsURLs checks that a run's page names, per channel, the URLs the run sent, those
// a preflight held back under their reason, those that failed under the engine's answer — said
// once for the URLs it concerns; that it lists them 200 a page; that it says how many the run
// answered beyond those it names; and that the failures found from the deliveries, the account of
// a run that names none, are not told twice.
func TestRunPageNamesItsURLs(t *testing.T) {
	w := newWorld(t)
	b := w.signIn()
	at := time.Now().Add(-time.Hour).UTC()
	rec := &model.Record{Site: "filesite", Trigger: "cli", StartedAt: at}
	if err := w.store.SaveRun(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	rec.FinishedAt, rec.Status = at.Add(time.Second), model.StatusPartial
	rec.Channels = map[string]*model.ChannelStats{
		"indexnow": {Due: 1303, Submitted: 1300, Failed: 2, Ineligible: 1},
		"bing":     {Due: 1, Submitted: 1},
		"feed":     {Due: 1, Submitted: 1},
	}
	rec.URLs = []model.RunURL{
		{Channel: "indexnow", URL: "https://s.example/bad", Outcome: model.URLFailed, Detail: "HTTP 403 Forbidden from https://api.indexnow.org/indexnow: key not valid"},
		{Channel: "indexnow", URL: "https://s.example/bad2", Outcome: model.URLFailed, Detail: "HTTP 403 Forbidden from https://api.indexnow.org/indexnow: key not valid"},
		{Channel: "indexnow", URL: "https://s.example/hidden", Outcome: model.URLIneligible, Detail: "noindex"},
	}
	for i := range 250 {
		rec.URLs = append(rec.URLs, model.RunURL{Channel: "indexnow", URL: fmt.Sprintf("https://s.example/p%d", i), Outcome: model.URLSubmitted})
	}
	rec.URLs = append(rec.URLs, model.RunURL{Channel: "bing", URL: "https://s.example/b", Outcome: model.URLSubmitted},
		model.RunURL{Channel: "feed", URL: "https://s.example/f", Outcome: model.URLSubmitted})
	if err := w.store.SaveRun(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	page := fmt.Sprintf("/runs/%d", rec.ID)
	_, first := b.get(page)
	_, second := b.get(page + "?page=2")
	// A page past the end, however far, is the last; one before the first, the first.
	for _, far := range []string{"3", "9223372036854775807", "99999999999999999999"} {
		if st, html := b.get(page + "?page=" + far); st != 200 || !strings.Contains(html, "https://s.example/p197</a>") {
			t.Errorf("?page=%s: HTTP %d, not the last page", far, st)
		}
	}
	for _, before := range []string{"0", "-9223372036854775808", "x"} {
		if st, html := b.get(page + "?page=" + before); st != 200 || !strings.Contains(html, "https://s.example/p0</a>") {
			t.Errorf("?page=%s: HTTP %d, not the first page", before, st)
		}
	}
	for _, c := range []struct{ html, want string }{
		{first, `<span class="st-failed">✖ failed</span> <span class="muted">(2)</span></p>
<p class="detail small">HTTP 403 Forbidden from https://api.indexnow.org/indexnow: key not valid</p><ul class="urls"><li class="url"><a href="/sites/filesite/urls?q=https%3a%2f%2fs.example%2fbad">https://s.example/bad</a></li><li class="url"><a href="/sites/filesite/urls?q=https%3a%2f%2fs.example%2fbad2">https://s.example/bad2</a></li></ul>`},
		{first, `<span class="st-partial">– not eligible</span> <span class="muted">(1)</span></p>
<p class="detail small">noindex</p><ul class="urls"><li class="url"><a href="/sites/filesite/urls?q=https%3a%2f%2fs.example%2fhidden">https://s.example/hidden</a></li></ul>`},
		{first, `<span class="st-ok">✓ sent</span> <span class="muted">(250, 197 on this page)</span></p>
<ul class="urls"><li class="url"><a href="/sites/filesite/urls?q=https%3a%2f%2fs.example%2fp0">https://s.example/p0</a></li>`},
		{first, `https://s.example/p196</a>`},
		{first, `indexnow: <strong>and 1,050 more not listed</strong>, of the 1,303 URLs it answered`},
		{first, `page 1 of 2`},
		{first, fmt.Sprintf(`href="/runs/%d?page=2#urls">next ›</a>`, rec.ID)},
		{second, `<span class="st-ok">✓ sent</span> <span class="muted">(250, 53 on this page)</span>`},
		{second, `https://s.example/p197</a>`},
		{second, `<section class="runurls"><h3>bing</h3>`},
		{second, `https://s.example/b</a>`},
		{second, `<section class="runurls"><h3>feed</h3>
<p class="outcome"><span class="st-ok">✓ added</span>`},
	} {
		if !strings.Contains(c.html, c.want) {
			t.Errorf("the run's page lacks %q", c.want)
		}
	}
	if strings.Contains(first, "URLs that failed or were rejected") {
		t.Error("a run that names its URLs lists its failures a second time, from the deliveries")
	}
	if strings.Contains(first, "https://s.example/p197<") || strings.Contains(second, "https://s.example/p196<") || strings.Contains(first, "bing: <strong>") {
		t.Error("a URL shows on the wrong page, or bing, which names every URL it answered, says more are not listed")
	}
}

// TestALiveRunsURLsAreGrouped: the list of a run going, in the order its channels answered —
// at once, interleaved — is shown as a run's list is once it ended: one section a channel, one
// heading an outcome.
func TestALiveRunsURLsAreGrouped(t *testing.T) {
	rec := model.Record{URLs: []model.RunURL{
		{Channel: "bing", URL: "https://s.example/b1", Outcome: model.URLSubmitted},
		{Channel: "indexnow", URL: "https://s.example/i2", Outcome: model.URLSubmitted},
		{Channel: "bing", URL: "https://s.example/b0", Outcome: model.URLFailed, Detail: "HTTP 500"},
		{Channel: "indexnow", URL: "https://s.example/i1", Outcome: model.URLSubmitted},
	}}
	got, err := (&Server{}).runURLsOf(context.Background(), httptest.NewRequest("GET", "/runs/1", nil), rec, true)
	if err != nil {
		t.Fatal(err)
	}
	var said []string
	for _, g := range got.Groups {
		for _, o := range g.Outcomes {
			for _, d := range o.Details {
				said = append(said, fmt.Sprintf("%s %s %d/%d %q %v", g.Channel, o.Outcome, o.OnPage, o.Named, d.Detail, d.URLs))
			}
		}
	}
	want := []string{`indexnow submitted 2/2 "" [https://s.example/i1 https://s.example/i2]`,
		`bing failed 1/1 "HTTP 500" [https://s.example/b0]`, `bing submitted 1/1 "" [https://s.example/b1]`}
	if !slices.Equal(said, want) {
		t.Errorf("a live run's URLs: %q\nwant %q", said, want)
	}
}
