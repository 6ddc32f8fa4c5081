package feed_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/channel/feed"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/store"
)

// TestTheFirstRunAsksForTheNewestPages checks what the feed asks of a run, which is what a dry
// run shows of it: on its first run only the newest baselineItems pages, on later runs every new
// page; and asking makes no item and fetches nothing.
func TestTheFirstRunAsksForTheNewestPages(t *testing.T) {
	b := newBlog(t, func(s *config.Site) { s.Feed.BaselineItems = 3 })
	b.publish(posts30()...)
	ask := func() channel.Selection {
		return feed.New(b.site, b.srv.Client(), "sitepush-test", b.store, time.Now()).Selection(context.Background())
	}
	if got, want := ask(), (channel.Selection{OnlyNew: true, Newest: 3, FirstRun: true}); got != want {
		t.Errorf("before the first run: %+v, want %+v", got, want)
	}
	if links, _ := b.items(); len(links) != 0 || len(b.takeFetched()) != 0 {
		t.Errorf("asking made items %v or fetched pages", links)
	}
	b.run(b.store)
	if got, want := ask(), (channel.Selection{OnlyNew: true}); got != want {
		t.Errorf("after the first run: %+v, want %+v", got, want)
	}
}

// failingState is the store, whose feed state cannot be read once.
type failingState struct {
	*store.Store
	err    error
	failed bool
}

func (f *failingState) FeedState(ctx context.Context, site string) (bool, time.Time, error) {
	if !f.failed {
		f.failed = true
		return false, time.Time{}, f.err
	}
	return f.Store.FeedState(ctx, site)
}

func TestAnUnusableStateIsBuiltAgain(t *testing.T) {
	b := newBlog(t, func(s *config.Site) { s.Feed.FetchTitles, s.Feed.BaselineItems = false, 3 })
	b.publish(posts30()[:5]...)
	b.run(b.store)
	// post-0, known without an item, is changed to be the newest page: an incremental run makes
	// no item of a changed page; only building the feed again takes the newest pages, whatever
	// they are.
	posts := posts30()[:5]
	posts[0] = "/blog/post-0 2026-05-01"
	b.sitemaps["sitemap.xml"] = append(posts, "/blog/new 2026-04-01")
	res := b.run(&failingState{Store: b.store, err: fmt.Errorf("%w: feed_state holds text", model.ErrUnusableFeed)})
	links, _ := b.items()
	if notes := res.rep.Notes(); !slices.Equal(links, []string{"/blog/post-0", "/blog/new", "/blog/post-4", "/blog/post-3", "/blog/post-2"}) ||
		len(res.rep.Errors()) != 0 || len(notes) != 1 || !strings.Contains(notes[0], "feed: ") || !strings.Contains(notes[0], "it was built again from the sitemaps") {
		t.Errorf("items %v, %v", links, res)
	}
	if res.due() != 1 || res.rep.Submitted() != 1 || res.left() != 0 || res.skipped() != 5 {
		t.Errorf("the rebuild counts only the new page as delivered: %v", res)
	}
}

// A feed built again gives the newest pages it knows an item without a title read — but not a
// page its preflight left out before (a draft, still noindex): known is no licence to publish.
func TestARebuiltFeedLeavesItsDraftsOut(t *testing.T) {
	b := newBlog(t, func(s *config.Site) { s.Feed.BaselineItems = 3 })
	b.set("/blog/post-4", "noindex")
	b.publish(posts30()[:5]...)
	b.run(b.store)
	if links, _ := b.items(); !slices.Equal(links, []string{"/blog/post-3", "/blog/post-2"}) {
		t.Fatalf("the first run: items %v", links)
	}
	b.publish("/blog/new 2026-04-01")
	b.run(&failingState{Store: b.store, err: fmt.Errorf("%w: feed_state holds text", model.ErrUnusableFeed)})
	if links, _ := b.items(); !slices.Equal(links, []string{"/blog/new", "/blog/post-3", "/blog/post-2"}) {
		t.Errorf("the feed built again: items %v; want the draft, known, still out", links)
	}
}

func TestAStateThatCannotBeReadNowWaits(t *testing.T) {
	b := newBlog(t, func(s *config.Site) { s.Feed.FetchTitles, s.Feed.BaselineItems = false, 3 })
	b.publish(posts30()[:5]...)
	b.run(b.store)
	b.publish("/blog/new 2026-04-01")
	res := b.run(&failingState{Store: b.store, err: errors.New("database is locked")})
	// The run fails in part, not wholly: the new page does not fail.
	if links, _ := b.items(); len(links) != 3 || res.rep.FailedURLs() != 0 ||
		!strings.Contains(strings.Join(res.rep.Errors(), ""), "feed: database is locked; the new pages are added by the next run") {
		t.Fatalf("items %v, %v", links, res)
	}
	b.run(b.store)
	if links, _ := b.items(); len(links) != 4 || links[0] != "/blog/new" {
		t.Errorf("the next run: %v", links)
	}
}

func TestAFirstRunWaitsForEverySitemap(t *testing.T) {
	b := newBlog(t, func(s *config.Site) {
		s.Feed.FetchTitles, s.Feed.BaselineItems = false, 3
		s.Sitemaps = []string{"sitemap.xml", "more.xml"}
	})
	b.publish(posts30()[:5]...)
	res := b.run(b.store)
	if links, _ := b.items(); len(links) != 0 ||
		!strings.Contains(strings.Join(res.rep.Notes(), ""), "feed: the feed's first run waits for a run that reads every sitemap whole") {
		t.Fatalf("a first run with a sitemap missing: items %v, %v", links, res)
	}
	b.publishIn("more.xml", "/blog/newest 2026-05-01")
	b.run(b.store)
	if links, _ := b.items(); !slices.Equal(links, []string{"/blog/newest", "/blog/post-4", "/blog/post-3"}) {
		t.Errorf("the first complete run: %v", links)
	}
}
