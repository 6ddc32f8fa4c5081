package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// TestRemovals: URLs that left the sitemaps wait to be probed, the first to leave first; a probe
// and a notice are recorded; a URL that leaves again starts afresh.
func TestRemovals(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	pages := []channel.Page{{Hash: 1, URL: "https://a.example/1"}, {Hash: 2, URL: "https://a.example/2"}, {Hash: 3, URL: "https://a.example/3"}}
	if _, err := s.SyncCatalog(ctx, "a", t0, pages, []string{"indexnow"}, false); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkLeft(ctx, "a", []int64{3}, t0); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkLeft(ctx, "a", []int64{1, 2}, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	left, err := s.LeftToProbe(ctx, "a", 2)
	if err != nil || len(left) != 2 || left[0].Hash != 3 || left[0].URL != "https://a.example/3" || left[1].Hash != 1 {
		t.Fatalf("LeftToProbe = %+v, %v", left, err)
	}
	if _, ok, _ := s.RemovalOf(ctx, "b", 3); ok {
		t.Error("a removal of another site")
	}
	must(t, s.RecordProbe(ctx, "a", 3, 404, t0.Add(2*time.Hour)))
	must(t, s.RecordAnnounced(ctx, "a", []int64{3}, t0.Add(3*time.Hour)))
	rm, ok, err := s.RemovalOf(ctx, "a", 3)
	if err != nil || !ok || !rm.Probed || rm.Status != 404 || !rm.AnnouncedAt.Equal(t0.Add(3*time.Hour)) || !rm.LeftAt.Equal(t0) {
		t.Errorf("RemovalOf = %+v %v %v", rm, ok, err)
	}
	if left, _ := s.LeftToProbe(ctx, "a", 10); len(left) != 2 {
		t.Errorf("after a probe, %d left to probe, want 2", len(left))
	}
	must(t, s.MarkLeft(ctx, "a", []int64{3}, t0.Add(24*time.Hour)))
	if rm, _, _ := s.RemovalOf(ctx, "a", 3); rm.Probed || !rm.AnnouncedAt.IsZero() {
		t.Errorf("a URL that left again: %+v", rm)
	}
}
