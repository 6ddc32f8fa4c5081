package store_test

import (
	"errors"
	"testing"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/store"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

func feedURLs(t *testing.T, s *store.Store, site string, limit int) []string {
	t.Helper()
	items, err := s.FeedItems(ctx, site, limit)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, it := range items {
		out = append(out, it.URL)
	}
	return out
}

func TestResetFeedStateKeepsItemsAndPages(t *testing.T) {
	s, db := openRaw(t)
	due := []channel.Due{{Hash: 7, URL: "https://a/p"}}
	s.SaveFeedItems(ctx, "a", []model.FeedItem{{Hash: 7, URL: "https://a/p", Published: t0, FirstSeen: t0}}, t0)
	s.MarkFeedBuilt(ctx, "a", t0)
	if err := s.RecordOutcome(ctx, "a", t0, channel.Outcome{Channel: "feed", URLs: due, Delivered: true}); err != nil {
		t.Fatal(err)
	}
	if err := s.ResetFeedState(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if built, _, _ := s.FeedState(ctx, "a"); built {
		t.Error("a reset feed is built again")
	}
	if got := feedURLs(t, s, "a", 10); len(got) != 1 {
		t.Errorf("items after a reset: %v", got)
	}
	if d := delivery(t, db, 7, "feed"); !d.deliveredAt.Valid {
		t.Errorf("the reset forgot that the page was delivered: %+v", d)
	}
}

func TestUnusableFeedState(t *testing.T) {
	if storetest.Postgres() {
		t.Skip("PostgreSQL's typed columns cannot hold text where a time goes")
	}
	s, db := openRaw(t)
	s.MarkFeedBuilt(ctx, "a", t0)
	if _, err := db.Exec(`UPDATE feed_state SET built_at = 'yesterday'`); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.FeedState(ctx, "a"); !errors.Is(err, model.ErrUnusableFeed) {
		t.Errorf("a row that holds text: %v", err)
	}
}
