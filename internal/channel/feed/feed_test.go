package feed_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/config"
)

func TestBaselineThenIncremental(t *testing.T) {
	b := newBlog(t, func(s *config.Site) { s.Feed.BaselineItems, s.Feed.Out = 10, "feed.xml" })
	b.publish(posts30()...)
	res := b.run(b.store)
	links, titles := b.items()
	var want []string
	for i := 29; i >= 20; i-- {
		want = append(want, fmt.Sprintf("/blog/post-%d", i))
	}
	if !slices.Equal(links, want) || titles[0] != "Title of post 29" {
		t.Fatalf("baseline items %v %v", links, titles[:1])
	}
	if got := b.takeFetched(); len(got) != 10 {
		t.Errorf("the baseline fetched %d pages, want only the 10 that became items: %v", len(got), got)
	}
	if res.rep.Submitted() != 10 || res.skipped() != 20 || res.due() != 10 || len(res.rep.Errors()) != 0 {
		t.Errorf("first run: %v", res)
	}
	b.publish("/blog/fresh-a 2026-04-01T08:00:00Z", "/blog/fresh-b 2026-04-02T08:00:00Z", "/blog/fresh-c")
	b.run(b.store)
	links, _ = b.items()
	// A page without lastmod is dated by when it was first seen: now, the newest.
	if len(links) != 13 || !slices.Equal(links[:3], []string{"/blog/fresh-c", "/blog/fresh-b", "/blog/fresh-a"}) {
		t.Errorf("after three new posts: %v", links)
	}
	if got := b.takeFetched(); !slices.Equal(got, []string{"/blog/fresh-a", "/blog/fresh-b", "/blog/fresh-c"}) {
		t.Errorf("the incremental run fetched %v, want only the three new pages", got)
	}
	// A changed post is no new item, and nothing is fetched.
	b.sitemaps["sitemap.xml"][0] = "/blog/post-0 2026-05-01T00:00:00Z"
	if res := b.run(b.store); res.due() != 0 || len(b.takeFetched()) != 0 {
		t.Errorf("a changed page came back: %v", res)
	}
	parsed := parse(t, filepath.Join(b.dir, "feed.xml"))
	if len(parsed.Items) != 13 || parsed.Items[0].Title != "Title of fresh c" {
		t.Errorf("feed.out has %d items, first %q", len(parsed.Items), parsed.Items[0].Title)
	}
}

// TestOnlyPagesAnEngineWouldIndex: a noindex draft, a 404, a redirect and a page that fails for
// now become no item, neither in the feed's first run nor after, and the run notes why; the draft
// becomes an item once it is public (its lastmod changed), the failing page once it answers,
// while the 404 and the redirect, unchanged, are not fetched again.
func TestOnlyPagesAnEngineWouldIndex(t *testing.T) {
	b := newBlog(t, func(s *config.Site) { s.Feed.BaselineItems = 10 })
	for path, answer := range map[string]string{"/p/draft": "noindex", "/p/gone": "404", "/p/moved": "moved", "/p/down": "500"} {
		b.set(path, answer)
	}
	b.publish("/p/ok-1 2026-11-01", "/p/draft 2026-11-02", "/p/gone 2026-11-03", "/p/moved 2026-11-04", "/p/down 2026-11-05", "/p/ok-2 2026-11-06")
	res := b.run(b.store)
	links, titles := b.items()
	notes := strings.Join(res.rep.Notes(), "\n")
	if !slices.Equal(links, []string{"/p/ok-2", "/p/ok-1"}) || slices.Contains(titles, "Secret draft") ||
		res.rep.Submitted() != 2 || res.rep.Ineligible() != 4 || len(res.rep.Errors()) != 0 ||
		!strings.Contains(notes, "3 new pages left out of the feed, as no engine would index them (1 HTTP 404, 1 noindex, 1 redirect)") ||
		!strings.Contains(notes, "1 new page left out of the feed for now, as the site did not answer (HTTP 500 Internal Server Error)") {
		t.Fatalf("the feed's first run: items %v, %v", links, res)
	}
	b.set("/p/draft", "")
	b.set("/p/down", "")
	b.sitemaps["sitemap.xml"][1] = "/p/draft 2026-11-10"
	b.takeFetched()
	b.run(b.store)
	if links, _ := b.items(); !slices.Equal(links, []string{"/p/draft", "/p/ok-2", "/p/down", "/p/ok-1"}) {
		t.Errorf("once the draft is public and the failing page answers: items %v", links)
	}
	if got := b.takeFetched(); !slices.Equal(got, []string{"/p/down", "/p/draft"}) {
		t.Errorf("the run after fetched %v; want only the draft made public and the page that failed", got)
	}
}

// Without fetchTitles the feed fetches no page: every new page is an item, titled by its URL.
func TestWithoutFetchingTitles(t *testing.T) {
	b := newBlog(t, func(s *config.Site) { s.Feed.FetchTitles, s.Feed.BaselineItems = false, 2 })
	b.publish("/blog/my-first-post 2026-01-01", "/blog/second_post 2026-01-02", "/blog/third 2026-01-03")
	b.run(b.store)
	if _, titles := b.items(); !slices.Equal(titles, []string{"Third", "Second post"}) || len(b.takeFetched()) != 0 {
		t.Errorf("titles %v", titles)
	}
}

// A page that fails for now (HTTP 500), run after run, is no item — it might be a draft — nor is
// it given up: each run reads it again, until it answers and becomes an item, with its title.
func TestAPageThatFailsIsLeftOutUntilItAnswers(t *testing.T) {
	b := newBlog(t, func(s *config.Site) { s.Feed.BaselineItems = 0 })
	b.publish("/blog/old 2026-01-01")
	b.run(b.store) // the baseline: nothing becomes an item
	b.set("/blog/new-post", "500")
	b.publish("/blog/new-post 2026-02-01")
	for run := 1; run <= 4; run++ {
		res := b.run(b.store)
		links, _ := b.items()
		if len(links) != 0 || res.rep.Ineligible() != 1 || len(res.rep.Errors()) != 0 || !slices.Contains(b.takeFetched(), "/blog/new-post") ||
			!strings.Contains(strings.Join(res.rep.Notes(), ""), "feed: 1 new page left out of the feed for now, as the site did not answer (HTTP 500 Internal Server Error)") {
			t.Fatalf("run %d with the page failing: items %v, %v", run, links, res)
		}
	}
	b.set("/blog/new-post", "")
	res := b.run(b.store)
	if _, titles := b.items(); !slices.Equal(titles, []string{"Title of new post"}) || res.rep.Submitted() != 1 {
		t.Errorf("after the page answers: %v, %v", titles, res)
	}
}

func TestPruning(t *testing.T) {
	b := newBlog(t, func(s *config.Site) {
		s.Feed.FetchTitles, s.Feed.MaxItems, s.Feed.BaselineItems, s.Feed.KeepDays = false, 5, 5, 0
	})
	b.publish(posts30()...)
	b.run(b.store)
	b.publish("/blog/new 2026-04-01")
	b.run(b.store)
	links, _ := b.items()
	if len(links) != 5 || links[0] != "/blog/new" {
		t.Errorf("items after pruning: %v", links)
	}
}

// A page that answers 200 without a title to read (empty, a PDF) is an item titled by its URL,
// for good; a 404 is no item at all (TestOnlyPagesAnEngineWouldIndex). Neither is fetched again.
func TestPagesWithoutATitleForGood(t *testing.T) {
	b := newBlog(t, func(s *config.Site) { s.Feed.BaselineItems = 0 })
	b.publish("/blog/old 2026-01-01")
	b.run(b.store)
	for path, answer := range map[string]string{"/gone": "404", "/empty": "empty", "/doc.pdf": "pdf"} {
		b.set(path, answer)
	}
	b.publish("/gone 2026-02-01", "/empty 2026-02-02", "/doc.pdf 2026-02-03")
	res := b.run(b.store)
	_, titles := b.items()
	if res.rep.Submitted() != 2 || res.rep.Ineligible() != 1 || res.rep.FailedURLs() != 0 || len(res.rep.Errors()) != 0 ||
		len(res.rep.Notes()) != 3 || !slices.Equal(titles, []string{"Doc", "Empty"}) {
		t.Fatalf("%v, titles %v", res, titles)
	}
	// One page of each cause: the notes count it in the singular.
	for _, n := range res.rep.Notes() {
		if strings.Contains(n, "title") && !strings.Contains(n, "1 new page gave no title (") {
			t.Errorf("note %q; want it to count 1 new page", n)
		}
	}
	b.takeFetched()
	b.run(b.store)
	if got := b.takeFetched(); len(got) != 0 {
		t.Errorf("pages that answered for good were fetched again: %v", got)
	}
}

// A page that failed and answers at last, older than the feed's newest maxItems items, is not
// added: the feed would not show it, and an item pruned meanwhile is never added back.
func TestARetriedPageThatWasPrunedIsNotAddedAgain(t *testing.T) {
	b := newBlog(t, func(s *config.Site) { s.Feed.BaselineItems, s.Feed.MaxItems, s.Feed.KeepDays = 0, 1, 0 })
	b.publish("/blog/old 2026-01-01")
	b.run(b.store)
	b.set("/blog/down", "500")
	b.publish("/blog/down 2026-02-01")
	b.run(b.store)
	b.publish("/blog/newer 2026-03-01")
	b.run(b.store) // /blog/down is pruned: beyond maxItems, first seen long enough ago
	b.set("/blog/down", "")
	b.run(b.store)
	if links, _ := b.items(); !slices.Equal(links, []string{"/blog/newer"}) {
		t.Errorf("items %v", links)
	}
}

func TestManyNewPagesAtOnce(t *testing.T) {
	b := newBlog(t, func(s *config.Site) { s.Feed.BaselineItems, s.Feed.MaxItems = 0, 5 })
	b.publish("/blog/old 2026-01-01")
	b.run(b.store)
	b.takeFetched()
	var moved []string
	for i := range 12 {
		moved = append(moved, fmt.Sprintf("/new/p%02d 2026-02-%02d", i, i+1))
	}
	b.publish(append(moved, "/new/undated")...)
	res := b.run(b.store)
	links, _ := b.items()
	if !slices.Equal(links, []string{"/new/undated", "/new/p11", "/new/p10", "/new/p09", "/new/p08"}) || len(b.takeFetched()) != 5 ||
		res.skipped() != 9 || !strings.Contains(strings.Join(res.rep.Notes(), ""), "feed: 13 pages are new at once") {
		t.Errorf("items %v, %v", links, res)
	}
}

// The target of the feed channel: on a big site, only the pages that are new are fetched.
func TestABigSiteFetchesOnlyItsNewPages(t *testing.T) {
	b := newBlog(t, func(s *config.Site) { s.Feed.BaselineItems = 20 })
	posts := make([]string, 50_000)
	for i := range posts {
		posts[i] = fmt.Sprintf("/p/%d %s", i, time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i)*time.Minute).Format(time.RFC3339))
	}
	b.publish(posts...)
	b.run(b.store)
	if got := b.takeFetched(); len(got) != 20 {
		t.Fatalf("the baseline of 50,000 pages fetched %d", len(got))
	}
	b.publish("/new/1", "/new/2", "/new/3", "/new/4", "/new/5")
	res := b.run(b.store)
	if got := b.takeFetched(); !slices.Equal(got, []string{"/new/1", "/new/2", "/new/3", "/new/4", "/new/5"}) {
		t.Errorf("a run with 5 new pages among 50,005 fetched %d: %v", len(got), got[:min(len(got), 10)])
	}
	if res.due() != 5 || res.rep.Submitted() != 5 {
		t.Errorf("second run: %v", res)
	}
}
