package server

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/answer"
	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/enginetest"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/store"
)

// TestStatusesReadAtOnce: every site's status read for all sites at once (store.SiteReads) is
// the status read site by site.
func TestStatusesReadAtOnce(t *testing.T) {
	w := newWorld(t)
	w.call("POST", "/api/sites", `{"id": "second", "sitemaps": ["`+w.site.URL+`/sitemap.xml"], "feed": {"enabled": true}}`)
	w.call("POST", "/api/sites", `{"id": "idle", "sitemaps": ["`+w.site.URL+`/sitemap.xml"], "feed": {"enabled": true}}`)
	w.call("POST", "/trigger?site=filesite", "")
	w.waitFinished("filesite")
	w.engine.Fail(enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503})
	w.files["/sitemap.xml"] += "<!-- changed -->"
	w.call("POST", "/trigger?site=second", "")
	w.waitFinished("second")
	ctx, now := context.Background(), time.Now()
	reads, err := w.store.SiteReads(ctx, now)
	if err != nil {
		t.Fatal(err)
	}
	w.api.sites.Load(ctx)
	for _, e := range w.api.sites.All() {
		one, err := answer.Status(ctx, w.store, e.Site, e.Source, now, answer.Live{})
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(one)
		b, _ := json.Marshal(answer.FromReads(reads, e.Site, e.Source, now, answer.Live{}))
		if string(a) != string(b) {
			t.Errorf("site %s:\nread alone %s\nread at once %s", e.Site.ID, a, b)
		}
	}
}

// TestAnswersFollowAnotherProcess: answers are kept while the state does not change, and what
// another process writes to it (a `sitepush run` on the same file, another instance) shows in
// /status and /api/stats/daily within 3 s.
func TestAnswersFollowAnotherProcess(t *testing.T) {
	w := newWorld(t)
	other, err := store.Open(context.Background(), w.state)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	get := func(path string) string {
		t.Helper()
		code, body := w.call("GET", path, "")
		if code != 200 {
			t.Fatalf("%s: %d %s", path, code, body)
		}
		return body
	}
	status, stats := get("/status?site=filesite"), get("/api/stats/daily?days=7")
	time.Sleep(1500 * time.Millisecond)
	if s := get("/status?site=filesite"); s != status {
		t.Fatalf("the state did not change, the status did:\n%s\n%s", status, s)
	}
	now := time.Now()
	rec := &model.Record{Site: "filesite", Trigger: "manual", StartedAt: now, Status: model.StatusRunning}
	if err := other.SaveRun(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	id := rec.ID
	rec.FinishedAt, rec.Status = now, model.StatusOK
	rec.Channels, rec.Errors = map[string]*model.ChannelStats{"indexnow": {Due: 1, Submitted: 1}}, []string{}
	if err := other.SaveRun(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	due := []channel.Due{{Hash: 42, Lastmod: now}}
	if err := other.RecordOutcome(context.Background(), "filesite", now, channel.Outcome{Channel: "indexnow", URLs: due, Delivered: true}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for {
		s, d := get("/status?site=filesite"), get("/api/stats/daily?days=7")
		if strings.Contains(s, `"lastExecution":{"id":`+strconv.FormatInt(id, 10)) && d != stats {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("3 s after another process wrote a run and an outcome:\nstatus %s\nstats %s", s, d)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
