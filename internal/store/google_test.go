package store_test

import (
	"slices"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// TestURLsToInspect: a URL a channel sent before the run is inspected once, and again after it is
// sent again; one sent by the run itself, one skipped and one never sent are not.
func TestURLsToInspect(t *testing.T) {
	s := storetest.Open(t)
	pages := []channel.Page{{Hash: 1, URL: "https://a.example/1"}, {Hash: 2, URL: "https://a.example/2"},
		{Hash: 3, URL: "https://a.example/3"}, {Hash: 4, URL: "https://a.example/4"}}
	if _, err := s.SyncCatalog(ctx, "a", t0, pages, nil, false); err != nil {
		t.Fatal(err)
	}
	record := func(at time.Time, o channel.Outcome) {
		if err := s.RecordOutcome(ctx, "a", at, o); err != nil {
			t.Fatal(err)
		}
	}
	record(t0, channel.Outcome{Channel: "indexnow", URLs: []channel.Due{{Hash: 2}}, Delivered: true})
	record(t0.Add(time.Minute), channel.Outcome{Channel: "bing", URLs: []channel.Due{{Hash: 1}}, Delivered: true})
	record(t0, channel.Outcome{Channel: "bing", URLs: []channel.Due{{Hash: 3}}, Unsent: model.UnsentBacklog})
	record(t0.Add(time.Hour), channel.Outcome{Channel: "indexnow", URLs: []channel.Due{{Hash: 4}}, Delivered: true})
	run := t0.Add(30 * time.Minute)
	hashes := func() []int64 {
		t.Helper()
		got, err := s.URLsToInspect(ctx, "a", run, 10)
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, g := range got {
			out = append(out, g.Hash)
		}
		return out
	}
	if got := hashes(); !slices.Equal(got, []int64{2, 1}) {
		t.Fatalf("to inspect: %v; want 2 then 1 (sent longest ago first)", got)
	}
	crawl := t0.Add(-time.Hour)
	in := model.Inspection{CoverageState: "Submitted and indexed", IndexingState: "INDEXING_ALLOWED", LastCrawl: crawl, CheckedAt: run}
	if err := s.RecordInspection(ctx, "a", 2, in); err != nil {
		t.Fatal(err)
	}
	if got := hashes(); !slices.Equal(got, []int64{1}) {
		t.Errorf("after 2 was inspected, to inspect: %v; want 1", got)
	}
	got, err := s.Inspection(ctx, "a", 2)
	if err != nil || got == nil || *got != (model.Inspection{CoverageState: in.CoverageState, IndexingState: in.IndexingState,
		LastCrawl: crawl.UTC(), CheckedAt: run.UTC()}) {
		t.Errorf("Inspection: %+v, %v", got, err)
	}
	if got, err := s.Inspection(ctx, "a", 1); got != nil || err != nil {
		t.Errorf("a URL never inspected: %+v, %v; want nil", got, err)
	}
	record(t0.Add(40*time.Minute), channel.Outcome{Channel: "indexnow", URLs: []channel.Due{{Hash: 2}}, Delivered: true})
	run = t0.Add(50 * time.Minute)
	if got := hashes(); !slices.Equal(got, []int64{1, 2}) {
		t.Errorf("after 2 was sent again, to inspect: %v; want 1 and 2", got)
	}
}

// TestInspectionsPerPropertyAndDay: the day's inspections of a property never pass the limit,
// and those given back are taken again.
func TestInspectionsPerPropertyAndDay(t *testing.T) {
	s := storetest.Open(t)
	take := func(prop, day string, n int) int {
		t.Helper()
		g, err := s.ReserveInspections(ctx, prop, day, n, 5)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	if a, b, c := take("sc-domain:a.example", "2026-03-01", 3), take("sc-domain:a.example", "2026-03-01", 3), take("sc-domain:a.example", "2026-03-01", 1); a != 3 || b != 2 || c != 0 {
		t.Errorf("granted %d, %d, %d of 5; want 3, 2, 0", a, b, c)
	}
	if err := s.ReleaseInspections(ctx, "sc-domain:a.example", "2026-03-01", 2); err != nil {
		t.Fatal(err)
	}
	if g := take("sc-domain:a.example", "2026-03-01", 4); g != 2 {
		t.Errorf("after 2 given back, granted %d; want 2", g)
	}
	if g := take("sc-domain:b.example", "2026-03-01", 4); g != 4 {
		t.Errorf("another property: granted %d; want 4", g)
	}
	if g := take("sc-domain:a.example", "2026-03-02", 4); g != 4 {
		t.Errorf("the next day: granted %d; want 4", g)
	}
}
