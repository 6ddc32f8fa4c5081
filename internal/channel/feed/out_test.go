package feed_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/config"
)

func TestTheBudgetKeepsWhatWasRead(t *testing.T) {
	b := newBlog(t, func(s *config.Site) {
		s.Feed.BaselineItems, s.Feed.Out = 0, "feed.xml"
		s.RunBudget = config.Duration(500 * time.Millisecond)
	})
	b.publish("/blog/old 2026-01-01")
	b.run(b.store)
	b.set("/blog/slow", "slow")
	b.publish("/blog/fast 2026-02-01", "/blog/slow 2026-02-02")
	res := b.run(b.store)
	// The budget ran out: no error, and the page cut short is left due.
	if len(res.rep.Errors()) != 0 || res.rep.Submitted() != 1 || res.rep.FailedURLs() != 0 || res.left() != 1 {
		t.Fatalf("%v", res)
	}
	// The page the budget cut short before its preflight is no item yet: it might be a draft.
	if parsed := parse(t, filepath.Join(b.dir, "feed.xml")); len(parsed.Items) != 1 || parsed.Items[0].Title != "Title of fast" {
		t.Errorf("feed.out after the budget ran out: %d items", len(parsed.Items))
	}
	b.set("/blog/slow", "")
	b.run(b.store)
	if _, titles := b.items(); titles[0] != "Title of slow" {
		t.Errorf("the page the budget cut is read by the next run: %v", titles)
	}
}

func TestFeedOutIsWrittenWhenTheFeedChangedOrTheFileIsGone(t *testing.T) {
	b := newBlog(t, func(s *config.Site) { s.Feed.FetchTitles, s.Feed.Out = false, "public/feed.xml" })
	os.Mkdir(filepath.Join(b.dir, "public"), 0o755)
	out := filepath.Join(b.dir, "public", "feed.xml")
	b.publish(posts30()[:3]...)
	b.run(b.store)
	first, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	os.Chtimes(out, time.Unix(0, 0), time.Unix(0, 0))
	b.run(b.store)
	if again, _ := os.Stat(out); !again.ModTime().Equal(time.Unix(0, 0)) || again.Size() != first.Size() {
		t.Error("feed.out was rewritten by a run that changed nothing")
	}
	if leftovers, _ := filepath.Glob(filepath.Join(b.dir, "public", ".feed.xml.*")); len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
	// A static site's build cleaned public/: the next run writes the file again, feed unchanged.
	os.Remove(out)
	b.run(b.store)
	if again, err := os.Stat(out); err != nil || again.Size() != first.Size() {
		t.Errorf("feed.out removed and a run that changed nothing: %v", err)
	}
}

func TestFeedOutInAMissingDirectoryIsAnError(t *testing.T) {
	b := newBlog(t, func(s *config.Site) { s.Feed.FetchTitles, s.Feed.Out = false, "nowhere/feed.xml" })
	b.publish(posts30()[:3]...)
	res := b.run(b.store)
	if !strings.Contains(strings.Join(res.rep.Errors(), ""), "check that "+filepath.Join(b.dir, "nowhere")+" exists and is writable") {
		t.Errorf("%v", res)
	}
	if links, _ := b.items(); len(links) != 3 {
		t.Error("the items must be kept even when the file cannot be written")
	}
}
