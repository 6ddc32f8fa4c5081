package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// TestSeenSince: what a site's page tells of the engines over some days — the URLs submitted, the
// share Bing crawled and its median time, Google's indexed share, the URLs held back by reason,
// the removal notices — counts only that site, since the time asked.
func TestSeenSince(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var pages []channel.Page
	for h := int64(1); h <= 6; h++ {
		pages = append(pages, channel.Page{Hash: h, URL: "https://a.example/" + string(rune('0'+h))})
	}
	for _, site := range []string{"a", "b"} {
		if _, err := s.SyncCatalog(ctx, site, t0, pages, []string{"indexnow", "bing"}, false); err != nil {
			t.Fatal(err)
		}
		sent := []channel.Due{{Hash: 1}, {Hash: 2}, {Hash: 3}, {Hash: 4}}
		must(t, s.RecordOutcome(ctx, site, t0.Add(time.Hour), channel.Outcome{Channel: "indexnow", URLs: sent, Delivered: true}))
	}
	held := channel.Outcome{Channel: "bing", URLs: []channel.Due{{Hash: 5}, {Hash: 6}}, Preflight: &channel.Preflight{Reason: "noindex", Detail: "meta robots"}}
	must(t, s.RecordOutcome(ctx, "a", t0.Add(time.Hour), held))
	sub := t0.Add(time.Hour)
	for h, took := range map[int64]time.Duration{1: 2 * time.Hour, 2: 4 * time.Hour, 3: 9 * time.Hour} {
		must(t, s.RecordBingCrawl(ctx, "a", model.BingCrawl{Hash: h, LastCrawled: sub.Add(took), HTTPStatus: 200, CheckedAt: sub.Add(10 * time.Hour), Submitted: sub}))
	}
	must(t, s.RecordBingCrawl(ctx, "a", model.BingCrawl{Hash: 4, CheckedAt: sub.Add(10 * time.Hour), Submitted: sub})) // never crawled
	must(t, s.RecordInspection(ctx, "a", 1, model.Inspection{CoverageState: "Submitted and indexed", CheckedAt: sub.Add(time.Hour)}))
	must(t, s.RecordInspection(ctx, "a", 2, model.Inspection{CoverageState: "Crawled - currently not indexed", CheckedAt: sub.Add(time.Hour)}))
	must(t, s.MarkLeft(ctx, "a", []int64{6}, sub))
	must(t, s.RecordAnnounced(ctx, "a", []int64{6}, sub.Add(time.Hour)))

	got, err := s.SeenSince(ctx, "a", t0)
	if err != nil {
		t.Fatal(err)
	}
	if got.Submitted != 4 || got.CrawledByBing != 3 || got.MedianHours != 4 || got.Inspected != 2 || got.Indexed != 1 ||
		len(got.Ineligible) != 1 || got.Ineligible["noindex"] != 2 || got.Removed != 1 {
		t.Errorf("SeenSince = %+v", got)
	}
	if later, _ := s.SeenSince(ctx, "a", t0.Add(48*time.Hour)); later.Submitted != 0 || later.CrawledByBing != 0 || later.Removed != 0 || len(later.Ineligible) != 0 {
		t.Errorf("SeenSince two days on = %+v", later)
	}
}
