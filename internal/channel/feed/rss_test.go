package feed_test

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mmcdole/gofeed"

	"github.com/sitepush/sitepush/internal/channel/feed"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/model"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func testSite() *config.Site {
	return &config.Site{ID: "blog", BaseURL: "https://blog.example.com", Settings: config.Settings{Feed: config.Feed{
		Title: "Blog & friends — new pages", Description: "New <pages> on blog.example.com", URL: "https://blog.example.com/feed.xml", MaxItems: 50}}}
}

func testItems(n int) []model.FeedItem {
	var items []model.FeedItem
	for i := range n {
		items = append(items, model.FeedItem{URL: fmt.Sprintf("https://blog.example.com/posts/%d?a=1&b=2", n-i),
			Title: fmt.Sprintf("Post %d: <fish> & chips", n-i), Description: "About post “" + fmt.Sprint(n-i) + "”",
			Published: time.Date(2026, 3, 1+n-i, 8, 0, 0, 0, time.FixedZone("", 3600))})
	}
	items[len(items)-1].Description = ""
	return items
}

func TestRenderGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := feed.Render(&buf, testSite(), testItems(3), time.Date(2026, 3, 5, 9, 30, 0, 0, time.UTC), "sitepush test"); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "feed.golden.xml")
	if *update {
		os.WriteFile(golden, buf.Bytes(), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("the rendered feed differs from %s (go test -update rewrites it):\n%s", golden, buf.String())
	}
}

// TestRenderIsReadByFeedReaders parses the output with gofeed, as a feed reader would, and finds
// every field.
func TestRenderIsReadByFeedReaders(t *testing.T) {
	var buf bytes.Buffer
	feed.Render(&buf, testSite(), testItems(3), time.Date(2026, 3, 5, 9, 30, 0, 0, time.UTC), "sitepush test")
	f, err := gofeed.NewParser().Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if f.FeedType != "rss" || f.FeedVersion != "2.0" || f.Title != "Blog & friends — new pages" || f.Link != "https://blog.example.com/" ||
		f.Description != "New <pages> on blog.example.com" || f.UpdatedParsed == nil || !f.UpdatedParsed.Equal(time.Date(2026, 3, 5, 9, 30, 0, 0, time.UTC)) {
		t.Errorf("channel: %q %q %q %q %v", f.FeedType+f.FeedVersion, f.Title, f.Link, f.Description, f.UpdatedParsed)
	}
	if self := f.FeedLink; self != "https://blog.example.com/feed.xml" {
		t.Errorf("atom:link rel=self = %q", self)
	}
	if len(f.Items) != 3 {
		t.Fatalf("%d items", len(f.Items))
	}
	first := f.Items[0]
	if first.Title != "Post 3: <fish> & chips" || first.Link != "https://blog.example.com/posts/3?a=1&b=2" || first.GUID != first.Link ||
		first.Description != "About post “3”" || first.PublishedParsed == nil || !first.PublishedParsed.Equal(time.Date(2026, 3, 4, 7, 0, 0, 0, time.UTC)) {
		t.Errorf("first item: %+v", first)
	}
	if last := f.Items[2]; last.Description != last.Title {
		t.Errorf("an item without a description has its title as one: %q", last.Description)
	}
}

// BenchmarkRender renders a feed of 50 items.
func BenchmarkRender(b *testing.B) {
	site, items, now := testSite(), testItems(50), time.Now()
	b.ReportAllocs()
	for b.Loop() {
		if err := feed.Render(io.Discard, site, items, now, "sitepush"); err != nil {
			b.Fatal(err)
		}
	}
}
