package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

func hashOf(u string) int64 { return int64(xxhash.Sum64String(u)) }

func TestDashboardReads(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	urls := []string{"https://a.example/x/1", "https://a.example/x/2", "https://a.example/y/1"}
	var pages []channel.Page
	for _, u := range urls {
		pages = append(pages, channel.Page{URL: u, Hash: hashOf(u), Lastmod: t0.Add(-time.Hour)})
	}
	if _, err := s.SyncCatalog(ctx, "a", t0, pages, []string{"indexnow"}, false); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for i := range 3 {
		start := t0.Add(time.Duration(i) * time.Minute)
		id := startRun(t, s, "a", "manual", start)
		ids = append(ids, id)
		if i == 1 { // the second run: one URL delivered, two failed
			s.RecordOutcome(ctx, "a", start.Add(time.Second), channel.Outcome{Channel: "indexnow", URLs: []channel.Due{{Hash: hashOf(urls[0])}}, Delivered: true})
			s.RecordOutcome(ctx, "a", start.Add(time.Second), channel.Outcome{Channel: "indexnow",
				URLs: []channel.Due{{Hash: hashOf(urls[1])}, {Hash: hashOf(urls[2])}}, Err: "HTTP 503 from e"})
		}
		if i < 2 {
			status := []string{model.StatusOK, model.StatusFailed}[i]
			if err := s.SaveRun(ctx, &model.Record{ID: id, Site: "a", Trigger: "manual", StartedAt: start, FinishedAt: start.Add(2 * time.Second),
				Status: status, Channels: map[string]*model.ChannelStats{}, Errors: []string{}}); err != nil {
				t.Fatal(err)
			}
		}
	}

	rec, ok, err := s.Run(ctx, ids[1])
	if err != nil || !ok || rec.Site != "a" || rec.Status != model.StatusFailed {
		t.Errorf("Run(%d) = %+v, %v, %v", ids[1], rec, ok, err)
	}
	if _, ok, err := s.Run(ctx, 999); ok || err != nil {
		t.Errorf("Run(999): ok %v, err %v; want none", ok, err)
	}
	page, total, err := s.RunsPage(ctx, "a", 1, 1)
	if err != nil || total != 3 || len(page) != 1 || page[0].ID != ids[1] {
		t.Errorf("RunsPage(offset 1, limit 1) = %v, %d, %v; want run %d of 3", page, total, err, ids[1])
	}
	if st, err := s.RecentStatuses(ctx, "a", 5); err != nil || len(st) != 3 || st[0] != model.StatusRunning || st[1] != model.StatusFailed {
		t.Errorf("RecentStatuses = %v, %v", st, err)
	}
	since, err := s.RunsSince(ctx, "a", t0.Add(time.Minute))
	if err != nil || len(since) != 2 || since[0].ID != ids[1] {
		t.Errorf("RunsSince = %v, %v", since, err)
	}

	failed, err := s.FailedURLs(ctx, "a", rec.StartedAt, rec.FinishedAt, 10)
	if err != nil || len(failed) != 2 || failed[0].URL != urls[1] || failed[0].Error != "HTTP 503 from e" || failed[0].Outcome != "failed" {
		t.Errorf("FailedURLs of the second run = %+v, %v", failed, err)
	}
	if f, _ := s.FailedURLs(ctx, "a", t0, t0.Add(time.Second), 10); len(f) != 0 {
		t.Errorf("FailedURLs of the first run = %+v, want none", f)
	}
	causes, err := s.FailureCauses(ctx, "a", t0, 5)
	if err != nil || len(causes) != 1 || causes[0].URLs != 2 || causes[0].Error != "HTTP 503 from e" {
		t.Errorf("FailureCauses = %+v, %v", causes, err)
	}
	if n, err := s.FailedCounts(ctx, "a"); err != nil || n["indexnow"] != 2 {
		t.Errorf("FailedCounts = %v, %v", n, err)
	}

	hash := func(u string) int64 { return hashOf(u) }
	one, err := s.URLStory(ctx, "a", urls[1], hash, 10)
	if err != nil || len(one) != 1 || one[0].URL != urls[1] {
		t.Fatalf("URLStory(%s) = %+v, %v", urls[1], one, err)
	}
	if d := one[0].Channels["indexnow"]; d.Outcome != "failed" || d.Attempts != 1 || d.LastError != "HTTP 503 from e" || !d.State.Failed {
		t.Errorf("the story of %s on indexnow: %+v", urls[1], d)
	}
	if prefix, err := s.URLStory(ctx, "a", "https://a.example/x/", hash, 10); err != nil || len(prefix) != 2 || prefix[0].URL != urls[0] {
		t.Errorf("URLStory(prefix …/x/) = %+v, %v", prefix, err)
	}
	if none, err := s.URLStory(ctx, "a", "https://b.example/", hash, 10); err != nil || len(none) != 0 {
		t.Errorf("URLStory(another host) = %+v, %v", none, err)
	}
}

// TestAURLKeepsItsLastFailures: a URL's story keeps its newest failed attempts, three per
// channel, and drops them after 90 days.
func TestAURLKeepsItsLastFailures(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	u := "https://a.example/flaky"
	if _, err := s.SyncCatalog(ctx, "a", t0, []channel.Page{{URL: u, Hash: hashOf(u)}}, []string{"indexnow", "bing"}, false); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		err := s.RecordOutcome(ctx, "a", t0.Add(time.Duration(i)*time.Minute), channel.Outcome{Channel: "indexnow",
			URLs: []channel.Due{{Hash: hashOf(u), Retry: i > 0, Failures: i}}, Err: fmt.Sprintf("HTTP 503, try %d", i)})
		if err != nil {
			t.Fatal(err)
		}
	}
	s.RecordOutcome(ctx, "a", t0.Add(time.Hour), channel.Outcome{Channel: "bing", URLs: []channel.Due{{Hash: hashOf(u)}}, Rejected: true, Err: "InvalidUrl"})
	s.RecordOutcome(ctx, "a", t0.Add(2*time.Hour), channel.Outcome{Channel: "indexnow", URLs: []channel.Due{{Hash: hashOf(u)}}, Delivered: true})
	story, err := s.URLStory(ctx, "a", u, hashOf, 10)
	if err != nil || len(story) != 1 {
		t.Fatalf("%v %v", story, err)
	}
	in := story[0].Channels["indexnow"]
	if len(in.Failures) != 3 || in.Failures[0].Error != "HTTP 503, try 4" || in.Failures[2].Error != "HTTP 503, try 2" || in.Outcome != "ok" {
		t.Errorf("indexnow: %+v", in)
	}
	if b := story[0].Channels["bing"]; len(b.Failures) != 1 || b.Failures[0].Outcome != "rejected" {
		t.Errorf("bing: %+v", b)
	}
	id := startRun(t, s, "a", "cli", t0.Add(91*24*time.Hour))
	if err := s.SaveRun(ctx, &model.Record{ID: id, Site: "a", Status: model.StatusOK, FinishedAt: t0.Add(91 * 24 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if story, _ = s.URLStory(ctx, "a", u, hashOf, 10); len(story[0].Channels["indexnow"].Failures)+len(story[0].Channels["bing"].Failures) != 0 {
		t.Errorf("failures older than 90 days are kept: %+v", story[0].Channels)
	}
}
