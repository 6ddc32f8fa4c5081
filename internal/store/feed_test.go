package store_test

import (
	"errors"
	"slices"
	"testing"
	"time"

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

func TestFeedItems(t *testing.T) {
	s := storetest.Open(t)
	if built, changed, err := s.FeedState(ctx, "a"); built || !changed.IsZero() || err != nil {
		t.Fatalf("a feed never built: %v %v %v", built, changed, err)
	}
	item := func(hash int64, url string, published time.Time, title string, titled bool) model.FeedItem {
		return model.FeedItem{Hash: hash, URL: url, Title: title, Published: published, FirstSeen: t0, Titled: titled}
	}
	err := s.SaveFeedItems(ctx, "a", []model.FeedItem{
		item(1, "https://a/old", t0.Add(-48*time.Hour), "Old", true),
		item(2, "https://a/new", t0, "New", false),
		item(3, "https://a/mid", t0.Add(-24*time.Hour), "Title of mid", true),
	}, t0)
	if err != nil {
		t.Fatal(err)
	}
	s.SaveFeedItems(ctx, "b", []model.FeedItem{item(1, "https://b/x", t0, "X", true)}, t0)
	if got := feedURLs(t, s, "a", 10); !slices.Equal(got, []string{"https://a/new", "https://a/mid", "https://a/old"}) {
		t.Errorf("newest first: %v", got)
	}
	if got := feedURLs(t, s, "a", 2); len(got) != 2 {
		t.Errorf("limit 2: %v", got)
	}

	// A title read from the page replaces one made of the URL, never the other way round, and an
	// item's dates stay.
	later := t0.Add(time.Hour)
	s.SaveFeedItems(ctx, "a", []model.FeedItem{
		{Hash: 2, URL: "https://a/new", Title: "The new page", Published: later, FirstSeen: later, Titled: true},
		{Hash: 3, URL: "https://a/mid", Title: "Mid", Published: later, FirstSeen: later},
	}, later)
	items, _ := s.FeedItems(ctx, "a", 10)
	if items[0].Title != "The new page" || !items[0].Titled || !items[0].Published.Equal(t0) || items[1].Title != "Title of mid" {
		t.Errorf("after retitling: %+v", items)
	}
	if _, changed, _ := s.FeedState(ctx, "a"); !changed.Equal(later) {
		t.Errorf("changed at %v, want %v", changed, later)
	}

	if err := s.MarkFeedBuilt(ctx, "a", later); err != nil {
		t.Fatal(err)
	}
	if built, _, _ := s.FeedState(ctx, "a"); !built {
		t.Error("the feed is built")
	}
}

func TestPruneFeed(t *testing.T) {
	s := storetest.Open(t)
	var items []model.FeedItem
	for i := range 6 {
		seen := t0.AddDate(0, 0, -i)
		items = append(items, model.FeedItem{Hash: int64(i), URL: "https://a/" + string(rune('a'+i)), Published: seen, FirstSeen: seen})
	}
	s.SaveFeedItems(ctx, "a", items, t0)
	// Beyond the newest 2 and first seen more than 3 days ago: d (3 days is not more), e, f go.
	n, err := s.PruneFeed(ctx, "a", 2, t0.AddDate(0, 0, -3), t0.Add(time.Minute))
	if err != nil || n != 2 {
		t.Fatalf("pruned %d, %v; want 2", n, err)
	}
	if got := feedURLs(t, s, "a", 10); !slices.Equal(got, []string{"https://a/a", "https://a/b", "https://a/c", "https://a/d"}) {
		t.Errorf("kept %v", got)
	}
	if _, changed, _ := s.FeedState(ctx, "a"); !changed.Equal(t0.Add(time.Minute)) {
		t.Errorf("pruning changes the feed: changed at %v", changed)
	}
	if n, _ := s.PruneFeed(ctx, "a", 2, t0.AddDate(0, 0, -3), t0.Add(time.Hour)); n != 0 {
		t.Errorf("pruned %d again", n)
	}
	if _, changed, _ := s.FeedState(ctx, "a"); !changed.Equal(t0.Add(time.Minute)) {
		t.Error("a prune that dropped nothing changed the feed")
	}
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

func TestRetitleAndChanges(t *testing.T) {
	s := storetest.Open(t)
	it := model.FeedItem{Hash: 1, URL: "https://a/p", Title: "P", Published: t0, FirstSeen: t0}
	s.SaveFeedItems(ctx, "a", []model.FeedItem{it}, t0)
	// The same item again changes nothing, so the feed did not change.
	s.SaveFeedItems(ctx, "a", []model.FeedItem{it}, t0.Add(time.Hour))
	if _, changed, _ := s.FeedState(ctx, "a"); !changed.Equal(t0) {
		t.Errorf("saving the same item changed the feed at %v", changed)
	}
	// A retitle of an item the feed no longer has adds nothing.
	gone := model.FeedItem{Hash: 2, URL: "https://a/gone", Title: "Gone", Titled: true, Retitle: true, Published: t0, FirstSeen: t0}
	retitled := it
	retitled.Title, retitled.Titled, retitled.Retitle = "The page", true, true
	if err := s.SaveFeedItems(ctx, "a", []model.FeedItem{gone, retitled}, t0.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	items, _ := s.FeedItems(ctx, "a", 10)
	if len(items) != 1 || items[0].Title != "The page" || !items[0].Titled {
		t.Errorf("after retitling: %+v", items)
	}
	if _, changed, _ := s.FeedState(ctx, "a"); !changed.Equal(t0.Add(2 * time.Hour)) {
		t.Errorf("a retitle changes the feed: %v", changed)
	}
}
