package store_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// TestRunURLs checks that the URLs a run names are kept apart from its record — the lists of
// runs stay small — read a page at a time in the record's order, counted by channel, and dropped
// with the run once it is older than 90 days.
func TestRunURLs(t *testing.T) {
	s := storetest.Open(t)
	finish := func(id int64, at time.Time, urls []model.RunURL) {
		t.Helper()
		rec := &model.Record{ID: id, Site: "a", Trigger: "cli", StartedAt: at, FinishedAt: at.Add(time.Second),
			Status: model.StatusOK, Channels: map[string]*model.ChannelStats{}, URLs: urls}
		if err := s.SaveRun(ctx, rec); err != nil {
			t.Fatal(err)
		}
	}
	oldAt := t0.Add(-100 * 24 * time.Hour)
	old := startRun(t, s, "a", "schedule", oldAt)
	finish(old, oldAt, []model.RunURL{{Channel: "indexnow", URL: "https://a.example/old", Outcome: model.URLSubmitted}})
	if got, err := s.RunURLs(ctx, old, 0, 10); err != nil || len(got) != 1 || got[0].URL != "https://a.example/old" {
		t.Fatalf("the URLs of a run just finished: %+v, %v", got, err)
	}

	var urls []model.RunURL
	urls = append(urls, model.RunURL{Channel: "indexnow", URL: "https://a.example/bad", Outcome: model.URLFailed, Detail: "HTTP 403: key not valid"},
		model.RunURL{Channel: "indexnow", URL: "https://a.example/hidden", Outcome: model.URLIneligible, Detail: "noindex"})
	for i := range 1200 {
		urls = append(urls, model.RunURL{Channel: "indexnow", URL: fmt.Sprintf("https://a.example/p%d", i), Outcome: model.URLSubmitted})
	}
	urls = append(urls, model.RunURL{Channel: "bing", URL: "https://a.example/b", Outcome: model.URLSubmitted})
	id := startRun(t, s, "a", "cli", t0)
	finish(id, t0, urls)

	if got, _ := s.RunURLs(ctx, old, 0, 10); len(got) != 0 {
		t.Errorf("the URLs of a run older than 90 days were kept: %+v", got)
	}
	rec, ok, err := s.Run(ctx, id)
	if err != nil || !ok || rec.URLs != nil {
		t.Errorf("the record of the run holds %d URLs (%v, %v); want them apart", len(rec.URLs), ok, err)
	}
	if runs, _ := s.Runs(ctx, "a", 10); len(runs) != 1 || runs[0].URLs != nil {
		t.Errorf("the list of runs: %+v; want the one run, without its URLs", runs)
	}
	for _, c := range []struct{ offset, limit, want int }{{0, 200, 200}, {200, 200, 200}, {1000, 200, 200}, {1200, 200, 3}, {1300, 200, 0}} {
		got, err := s.RunURLs(ctx, id, c.offset, c.limit)
		if err != nil || !slices.Equal(got, urls[c.offset:c.offset+c.want]) {
			t.Errorf("URLs %d to %d: %d (%v); want %d, in the record's order", c.offset, c.offset+c.limit, len(got), err, c.want)
		}
	}
	want := map[model.URLKey]int{{Channel: "indexnow", Outcome: model.URLFailed}: 1, {Channel: "indexnow", Outcome: model.URLIneligible}: 1,
		{Channel: "indexnow", Outcome: model.URLSubmitted}: 1200, {Channel: "bing", Outcome: model.URLSubmitted}: 1}
	if got, err := s.RunURLCounts(ctx, id); err != nil || !maps.Equal(got, want) {
		t.Errorf("counts by channel and outcome: %v, %v", got, err)
	}
}
