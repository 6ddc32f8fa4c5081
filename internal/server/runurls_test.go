package server

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/model"
)

// TestRunPageNamesItsURLs checks that a run's page names, per channel, the URLs the run sent, each
// one a preflight held back with its reason, each one that failed with the engine's answer; that
// it lists them 200 a page; and that it says how many the run answered beyond those it names.
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
		"indexnow": {Due: 1302, Submitted: 1300, Failed: 1, Ineligible: 1},
		"bing":     {Due: 1, Submitted: 1},
	}
	rec.URLs = []model.RunURL{
		{Channel: "indexnow", URL: "https://s.example/bad", Outcome: model.URLFailed, Detail: "HTTP 403 Forbidden from https://api.indexnow.org/indexnow: key not valid"},
		{Channel: "indexnow", URL: "https://s.example/hidden", Outcome: model.URLIneligible, Detail: "noindex"},
	}
	for i := range 250 {
		rec.URLs = append(rec.URLs, model.RunURL{Channel: "indexnow", URL: fmt.Sprintf("https://s.example/p%d", i), Outcome: model.URLSubmitted})
	}
	rec.URLs = append(rec.URLs, model.RunURL{Channel: "bing", URL: "https://s.example/b", Outcome: model.URLSubmitted})
	if err := w.store.SaveRun(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	page := fmt.Sprintf("/runs/%d", rec.ID)
	_, first := b.get(page)
	_, second := b.get(page + "?page=2")
	for _, c := range []struct{ html, want string }{
		{first, `https://s.example/bad</a><div class="small">HTTP 403 Forbidden from https://api.indexnow.org/indexnow: key not valid</div></td><td><span class="st-failed">✖ failed</span></td>`},
		{first, `https://s.example/hidden</a><div class="small">noindex</div></td><td><span class="st-partial">held back by a preflight</span></td>`},
		{first, `https://s.example/p0</a></td><td><span class="st-ok">✓ sent</span>`},
		{first, `https://s.example/p197</a>`},
		{first, `indexnow: <strong>and 1,050 more not listed</strong>, of the 1,302 URLs it answered`},
		{first, `page 1 of 2`},
		{first, fmt.Sprintf(`href="/runs/%d?page=2#urls">next ›</a>`, rec.ID)},
		{second, `https://s.example/p198</a>`},
		{second, `<th scope="rowgroup" colspan="2">bing</th>`},
		{second, `https://s.example/b</a>`},
	} {
		if !strings.Contains(c.html, c.want) {
			t.Errorf("the run's page lacks %q", c.want)
		}
	}
	if strings.Contains(first, "https://s.example/p198<") || strings.Contains(second, "https://s.example/p197<") || strings.Contains(first, "bing: <strong>") {
		t.Error("a URL shows on the wrong page, or bing, which names every URL it answered, says more are not listed")
	}
}
