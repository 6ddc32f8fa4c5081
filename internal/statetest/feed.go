package statetest

import (
	"slices"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
)

func feedURLs(t *testing.T, s State, site string, limit int) []string {
	t.Helper()
	items, err := s.FeedItems(ctx, site, limit)
	must(t, err)
	var out []string
	for _, it := range items {
		out = append(out, it.URL)
	}
	return out
}

func testFeedItems(t *testing.T, b Backend) {
	s := b.Open(t)
	if built, changed, err := s.FeedState(ctx, "a"); built || !changed.IsZero() || err != nil {
		t.Fatalf("a feed never built: %v %v %v", built, changed, err)
	}
	item := func(hash int64, url string, published time.Time, title string, titled bool) model.FeedItem {
		return model.FeedItem{Hash: hash, URL: url, Title: title, Published: published, FirstSeen: t0, Titled: titled}
	}
	must(t, s.SaveFeedItems(ctx, "a", []model.FeedItem{
		item(1, "https://a/old", t0.Add(-48*time.Hour), "Old", true),
		item(2, "https://a/new", t0, "New", false),
		item(3, "https://a/mid", t0.Add(-24*time.Hour), "Title of mid", true),
	}, t0))
	must(t, s.SaveFeedItems(ctx, "b", []model.FeedItem{item(1, "https://b/x", t0, "X", true)}, t0))
	s = b.Reopen(t, s)
	if got := feedURLs(t, s, "a", 10); !slices.Equal(got, []string{"https://a/new", "https://a/mid", "https://a/old"}) {
		t.Errorf("newest first: %v", got)
	}
	if got := feedURLs(t, s, "a", 2); len(got) != 2 {
		t.Errorf("limit 2: %v", got)
	}
	// A title read from the page replaces one made of the URL, never the other way round, and an
	// item's dates stay.
	later := t0.Add(time.Hour)
	must(t, s.SaveFeedItems(ctx, "a", []model.FeedItem{
		{Hash: 2, URL: "https://a/new", Title: "The new page", Published: later, FirstSeen: later, Titled: true},
		{Hash: 3, URL: "https://a/mid", Title: "Mid", Published: later, FirstSeen: later},
	}, later))
	must(t, s.MarkFeedBuilt(ctx, "a", later))
	s = b.Reopen(t, s)
	items, _ := s.FeedItems(ctx, "a", 10)
	if len(items) != 3 || items[0].Title != "The new page" || !items[0].Titled || !items[0].Published.Equal(t0) || items[1].Title != "Title of mid" {
		t.Errorf("after retitling: %+v", items)
	}
	if built, changed, _ := s.FeedState(ctx, "a"); !built || !changed.Equal(later) {
		t.Errorf("built %v, changed at %v; want built, changed at %v", built, changed, later)
	}
}

func testFeedPrune(t *testing.T, b Backend) {
	s := b.Open(t)
	var items []model.FeedItem
	for i := range 6 {
		seen := t0.AddDate(0, 0, -i)
		items = append(items, model.FeedItem{Hash: int64(i), URL: "https://a/" + string(rune('a'+i)), Published: seen, FirstSeen: seen})
	}
	must(t, s.SaveFeedItems(ctx, "a", items, t0))
	// Beyond the newest 2 and first seen more than 3 days ago: d (3 days is not more), e, f go.
	n, err := s.PruneFeed(ctx, "a", 2, t0.AddDate(0, 0, -3), t0.Add(time.Minute))
	if err != nil || n != 2 {
		t.Fatalf("pruned %d, %v; want 2", n, err)
	}
	s = b.Reopen(t, s)
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

func testFeedReset(t *testing.T, b Backend) {
	s := b.Open(t)
	p := page(7, time.Time{})
	sync(t, s, "a", t0, []channel.Page{p}, nil)
	must(t, s.SaveFeedItems(ctx, "a", []model.FeedItem{{Hash: 7, URL: p.URL, Published: t0, FirstSeen: t0}}, t0))
	must(t, s.MarkFeedBuilt(ctx, "a", t0))
	must(t, s.RecordOutcome(ctx, "a", t0, channel.Outcome{Channel: "feed", URLs: []channel.Due{{Hash: 7}}, Delivered: true}))
	must(t, s.ResetFeedState(ctx, "a"))
	s = b.Reopen(t, s)
	if built, _, _ := s.FeedState(ctx, "a"); built {
		t.Error("a reset feed is built again")
	}
	if got := feedURLs(t, s, "a", 10); len(got) != 1 {
		t.Errorf("items after a reset: %v", got)
	}
	if got := sync(t, s, "a", t0, []channel.Page{p}, []string{"feed"}); !got[0].Known {
		t.Error("the reset forgot that the page was delivered")
	}
}

func testFeedRetitle(t *testing.T, b Backend) {
	s := b.Open(t)
	it := model.FeedItem{Hash: 1, URL: "https://a/p", Title: "P", Published: t0, FirstSeen: t0}
	must(t, s.SaveFeedItems(ctx, "a", []model.FeedItem{it}, t0))
	// The same item again changes nothing, so the feed did not change.
	must(t, s.SaveFeedItems(ctx, "a", []model.FeedItem{it}, t0.Add(time.Hour)))
	if _, changed, _ := s.FeedState(ctx, "a"); !changed.Equal(t0) {
		t.Errorf("saving the same item changed the feed at %v", changed)
	}
	// A retitle of an item the feed no longer has adds nothing.
	gone := model.FeedItem{Hash: 2, URL: "https://a/gone", Title: "Gone", Titled: true, Retitle: true, Published: t0, FirstSeen: t0}
	retitled := it
	retitled.Title, retitled.Titled, retitled.Retitle = "The page", true, true
	must(t, s.SaveFeedItems(ctx, "a", []model.FeedItem{gone, retitled}, t0.Add(2*time.Hour)))
	s = b.Reopen(t, s)
	items, _ := s.FeedItems(ctx, "a", 10)
	if len(items) != 1 || items[0].Title != "The page" || !items[0].Titled {
		t.Errorf("after retitling: %+v", items)
	}
	if _, changed, _ := s.FeedState(ctx, "a"); !changed.Equal(t0.Add(2 * time.Hour)) {
		t.Errorf("a retitle changes the feed: %v", changed)
	}
}
