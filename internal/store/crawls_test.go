package store_test

import (
	"slices"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// TestBingToTrack: the URLs to ask Bing about are those whose newest submission, through IndexNow
// or Bing, falls in the window and was not followed by a crawl Bing told of — the oldest first.
func TestBingToTrack(t *testing.T) {
	s := storetest.Open(t)
	pages := []channel.Page{{Hash: 1, URL: "https://a.example/1"}, {Hash: 2, URL: "https://a.example/2"},
		{Hash: 3, URL: "https://a.example/3"}, {Hash: 4, URL: "https://a.example/4"}, {Hash: 5, URL: "https://a.example/5"}}
	if err := s.AddPages(ctx, "a", t0, pages, false); err != nil {
		t.Fatal(err)
	}
	record := func(at time.Time, ch string, o channel.Outcome, hashes ...int64) {
		t.Helper()
		o.Channel = ch
		for _, h := range hashes {
			o.URLs = append(o.URLs, channel.Due{Hash: h})
		}
		if err := s.RecordOutcome(ctx, "a", at, o); err != nil {
			t.Fatal(err)
		}
	}
	ok := channel.Outcome{Delivered: true}
	record(t0.Add(-20*24*time.Hour), "bing", ok, 1)                                       // too old
	record(t0.Add(-3*time.Hour), "indexnow", ok, 2)                                       // the oldest in the window…
	record(t0.Add(-time.Hour), "bing", ok, 2)                                             // …but its newest submission is Bing's
	record(t0.Add(-2*time.Hour), "indexnow", ok, 3)                                       // the oldest
	record(t0.Add(-2*time.Hour), "feed", ok, 4)                                           // the feed submits nothing
	record(t0.Add(-2*time.Hour), "bing", channel.Outcome{Unsent: model.UnsentBacklog}, 4) // known, not sent
	record(t0.Add(time.Minute), "indexnow", ok, 5)                                        // in this run: not yet
	since, before := t0.Add(-14*24*time.Hour), t0

	track := func() []model.Submission {
		t.Helper()
		got, err := s.BingToTrack(ctx, "a", since, before, 10)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	want := []model.Submission{{Hash: 3, URL: "https://a.example/3", Submitted: t0.Add(-2 * time.Hour)},
		{Hash: 2, URL: "https://a.example/2", Submitted: t0.Add(-time.Hour)}}
	if got := track(); !slices.Equal(got, want) {
		t.Fatalf("to track: %+v, want %+v", got, want)
	}
	if got, err := s.BingToTrack(ctx, "a", since, before, 1); err != nil || len(got) != 1 || got[0].Hash != 3 {
		t.Errorf("at most 1: %+v, %v", got, err)
	}

	// Not crawled yet: asked again. Crawled after the submission: never again, until it is
	// submitted anew.
	never := model.BingCrawl{Hash: 3, HTTPStatus: 0, CheckedAt: t0, Submitted: t0.Add(-2 * time.Hour)}
	crawled := model.BingCrawl{Hash: 2, LastCrawled: t0.Add(-30 * time.Minute), HTTPStatus: 200,
		Discovered: t0.Add(-50 * time.Minute), CheckedAt: t0, Submitted: t0.Add(-time.Hour)}
	for _, c := range []model.BingCrawl{never, crawled} {
		if err := s.RecordBingCrawl(ctx, "a", c); err != nil {
			t.Fatal(err)
		}
	}
	if got := track(); len(got) != 1 || got[0].Hash != 3 {
		t.Errorf("after the answers: %+v, want only 3", got)
	}
	got, ok2, err := s.BingCrawl(ctx, "a", 2)
	if err != nil || !ok2 || got != crawled {
		t.Errorf("BingCrawl(2) = %+v, %v, %v; want %+v", got, ok2, err, crawled)
	}
	if d, ok := got.ToCrawl(); !ok || d != 30*time.Minute {
		t.Errorf("ToCrawl = %v, %v", d, ok)
	}
	if _, ok, err := s.BingCrawl(ctx, "a", 4); ok || err != nil {
		t.Errorf("a URL never asked about: %v, %v", ok, err)
	}
	record(t0.Add(-10*time.Minute), "indexnow", ok, 2)
	if got := track(); len(got) != 2 || got[1].Hash != 2 {
		t.Errorf("submitted again after the crawl: %+v, want 3 and 2", got)
	}
}
