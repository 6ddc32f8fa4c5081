package feed_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mmcdole/gofeed"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/channel/feed"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/store"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// blog is a website of posts whose pages say their titles, a configuration for it, a real store
// and a runner.
type blog struct {
	t       *testing.T
	srv     *httptest.Server
	dir     string
	site    *config.Site
	store   *store.Store
	runner  *runner.Runner
	mu      sync.Mutex
	fetched []string
	answer  map[string]string // paths answering otherwise: "500", "404", "empty", "pdf", "slow"
	posts   []string          // "path lastmod"
}

// newBlog starts a blog whose site has feed settings feedYAML, and siteYAML lines at the site's level.
func newBlog(t *testing.T, feedYAML string, siteYAML ...string) *blog {
	b := &blog{t: t, dir: t.TempDir(), answer: map[string]string{}, store: storetest.Open(t)}
	b.srv = httptest.NewServer(http.HandlerFunc(b.serve))
	t.Cleanup(b.srv.Close)
	cfg := fmt.Sprintf("sites:\n  - id: blog\n    baseUrl: %s\n    sitemap: {retries: 1, retryInterval: 1ms}\n    feed: {enabled: true, %s}\n", b.srv.URL, feedYAML)
	sitemaps := "sitemaps: [sitemap.xml]"
	for _, line := range siteYAML {
		if strings.HasPrefix(line, "sitemaps:") {
			sitemaps = line
		} else {
			cfg += "    " + line + "\n"
		}
	}
	cfg += "    " + sitemaps + "\n"
	os.WriteFile(filepath.Join(b.dir, "c.yaml"), []byte(cfg), 0o644)
	c, err := config.Load(filepath.Join(b.dir, "c.yaml"), func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	b.site = &c.Sites[0]
	b.runner = runner.New(b.store)
	return b
}

func (b *blog) serve(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	b.fetched = append(b.fetched, r.URL.Path)
	answer := b.answer[r.URL.Path]
	b.mu.Unlock()
	switch answer {
	case "500":
		http.Error(w, "down", http.StatusInternalServerError)
		return
	case "404":
		http.NotFound(w, r)
		return
	case "empty":
		w.Header().Set("Content-Type", "text/html")
		return
	case "pdf":
		w.Header().Set("Content-Type", "application/pdf")
		w.Write([]byte("%PDF-1.7"))
		return
	case "slow":
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
		return
	}
	slug := filepath.Base(r.URL.Path)
	fmt.Fprintf(w, `<!doctype html><html><head><title>Title of %s</title><meta name="description" content="About %s"></head><body>…</body></html>`,
		strings.ReplaceAll(slug, "-", " "), slug)
}

// publish adds posts ("path lastmod") and writes the sitemap.
func (b *blog) publish(posts ...string) {
	b.posts = append(b.posts, posts...)
	var s strings.Builder
	s.WriteString("<urlset>")
	for _, p := range b.posts {
		path, lm, _ := strings.Cut(p, " ")
		fmt.Fprintf(&s, "<url><loc>%s%s</loc>", b.srv.URL, path)
		if lm != "" {
			fmt.Fprintf(&s, "<lastmod>%s</lastmod>", lm)
		}
		s.WriteString("</url>")
	}
	s.WriteString("</urlset>")
	os.WriteFile(filepath.Join(b.dir, "sitemap.xml"), []byte(s.String()), 0o644)
}

// posts30 are thirty posts, one a day in March 2026.
func posts30() []string {
	var out []string
	for i := range 30 {
		out = append(out, fmt.Sprintf("/blog/post-%d 2026-03-%02dT08:00:00Z", i, i+1))
	}
	return out
}

func (b *blog) set(path, answer string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.answer[path] = answer
}

func (b *blog) run(st feed.Store) *model.Record {
	return b.runWith(st, false)
}

func (b *blog) runWith(st feed.Store, dryRun bool) *model.Record {
	b.t.Helper()
	rec, err := b.runner.Run(context.Background(), b.site, runner.Options{Trigger: "cli", DryRun: dryRun,
		Channels: []channel.Channel{feed.New(b.site, b.srv.Client(), "sitepush-test", st, time.Now())}})
	if err != nil {
		b.t.Fatal(err)
	}
	return rec
}

func (b *blog) takeFetched() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	f := b.fetched
	b.fetched = nil
	slices.Sort(f)
	return f
}

// items returns the feed's links and titles, newest first.
func (b *blog) items() ([]string, []string) {
	items, err := b.store.FeedItems(context.Background(), "blog", 1000)
	if err != nil {
		b.t.Fatal(err)
	}
	var links, titles []string
	for _, it := range items {
		links = append(links, strings.TrimPrefix(it.URL, b.srv.URL))
		titles = append(titles, it.Title)
	}
	return links, titles
}

func TestBaselineThenIncremental(t *testing.T) {
	b := newBlog(t, "baselineItems: 10, out: feed.xml")
	b.publish(posts30()...)
	rec := b.run(b.store)
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
	if st := rec.Channels["feed"]; st.Submitted != 10 || st.Skipped != 20 || st.Due != 10 || rec.Status != model.StatusOK {
		t.Errorf("record %s %+v", rec.Status, st)
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
	b.posts[0] = "/blog/post-0 2026-05-01T00:00:00Z"
	b.publish()
	if rec := b.run(b.store); rec.Channels["feed"].Due != 0 || len(b.takeFetched()) != 0 {
		t.Errorf("a changed page came back: %+v", rec.Channels["feed"])
	}
	parsed := parse(t, filepath.Join(b.dir, "feed.xml"))
	if len(parsed.Items) != 13 || parsed.Items[0].Title != "Title of fresh c" {
		t.Errorf("feed.out has %d items, first %q", len(parsed.Items), parsed.Items[0].Title)
	}
}

func TestADryRunShowsWhatTheFirstRunWouldDo(t *testing.T) {
	b := newBlog(t, "baselineItems: 3")
	b.publish(posts30()...)
	rec := b.runWith(b.store, true)
	st := rec.Channels["feed"]
	want := []string{b.srv.URL + "/blog/post-29", b.srv.URL + "/blog/post-28", b.srv.URL + "/blog/post-27"}
	if st.Due != 3 || st.Skipped != 27 || !slices.Equal(st.Sample, want) {
		t.Errorf("dry run of the first run: due %d, skipped %d, sample %v", st.Due, st.Skipped, st.Sample)
	}
	if links, _ := b.items(); len(links) != 0 || len(b.takeFetched()) != 0 {
		t.Errorf("a dry run made items %v or fetched pages", links)
	}
	b.run(b.store)
	b.publish("/blog/new 2026-04-01")
	if st := b.runWith(b.store, true).Channels["feed"]; st.Due != 1 || st.Skipped != 30 || len(st.Sample) != 1 {
		t.Errorf("dry run after the first: due %d, skipped %d, sample %v", st.Due, st.Skipped, st.Sample)
	}
}

func TestWithoutFetchingTitles(t *testing.T) {
	b := newBlog(t, "fetchTitles: false, baselineItems: 2")
	b.publish("/blog/my-first-post 2026-01-01", "/blog/second_post 2026-01-02", "/blog/third 2026-01-03")
	b.run(b.store)
	if _, titles := b.items(); !slices.Equal(titles, []string{"Third", "Second post"}) || len(b.takeFetched()) != 0 {
		t.Errorf("titles %v", titles)
	}
}

func TestAPageThatFailsIsTitledByItsURLUntilItAnswers(t *testing.T) {
	b := newBlog(t, "baselineItems: 0")
	b.publish("/blog/old 2026-01-01")
	b.run(b.store) // the baseline: nothing becomes an item
	b.set("/blog/new-post", "500")
	b.publish("/blog/new-post 2026-02-01")
	rec := b.run(b.store)
	if _, titles := b.items(); !slices.Equal(titles, []string{"New post"}) || rec.Channels["feed"].Failed != 1 ||
		!strings.Contains(rec.Errors[0], "reading the title of "+b.srv.URL+"/blog/new-post: HTTP 500") {
		t.Fatalf("titles %v, record %+v %q", titles, rec.Channels["feed"], rec.Errors)
	}
	b.set("/blog/new-post", "")
	b.takeFetched()
	rec = b.run(b.store)
	if _, titles := b.items(); !slices.Equal(titles, []string{"Title of new post"}) || rec.Channels["feed"].Submitted != 1 {
		t.Errorf("after the page answers: %v, %+v", titles, rec.Channels["feed"])
	}
}

func TestPruning(t *testing.T) {
	b := newBlog(t, "fetchTitles: false, maxItems: 5, baselineItems: 5, keepDays: 0")
	b.publish(posts30()...)
	b.run(b.store)
	b.publish("/blog/new 2026-04-01")
	b.run(b.store)
	links, _ := b.items()
	if len(links) != 5 || links[0] != "/blog/new" {
		t.Errorf("items after pruning: %v", links)
	}
}

// failingState is a store whose feed state cannot be read once.
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
	b := newBlog(t, "fetchTitles: false, baselineItems: 3")
	b.publish(posts30()[:5]...)
	b.run(b.store)
	b.publish("/blog/new 2026-04-01")
	rec := b.run(&failingState{Store: b.store, err: fmt.Errorf("%w: feed_state holds text", model.ErrUnusableFeed)})
	links, _ := b.items()
	st := rec.Channels["feed"]
	if !slices.Equal(links, []string{"/blog/new", "/blog/post-4", "/blog/post-3", "/blog/post-2"}) || rec.Status != model.StatusOK ||
		len(rec.Notes) != 1 || !strings.Contains(rec.Notes[0], "it was built again from the sitemaps") {
		t.Errorf("items %v, %s, notes %q, errors %q", links, rec.Status, rec.Notes, rec.Errors)
	}
	if st.Due != 1 || st.Submitted != 1 || st.Left != 0 || st.Skipped != 5 {
		t.Errorf("the rebuild counts only the new page as delivered: %+v", st)
	}
}

func TestAStateThatCannotBeReadNowWaits(t *testing.T) {
	b := newBlog(t, "fetchTitles: false, baselineItems: 3")
	b.publish(posts30()[:5]...)
	b.run(b.store)
	b.publish("/blog/new 2026-04-01")
	rec := b.run(&failingState{Store: b.store, err: errors.New("database is locked")})
	if links, _ := b.items(); len(links) != 3 || rec.Status != model.StatusPartial ||
		!strings.Contains(strings.Join(rec.Errors, ""), "database is locked; the new pages are added by the next run") {
		t.Fatalf("items %v, %s, errors %q", links, rec.Status, rec.Errors)
	}
	b.run(b.store)
	if links, _ := b.items(); len(links) != 4 || links[0] != "/blog/new" {
		t.Errorf("the next run: %v", links)
	}
}

func TestAFirstRunWaitsForEverySitemap(t *testing.T) {
	b := newBlog(t, "fetchTitles: false, baselineItems: 3", "sitemaps: [sitemap.xml, more.xml]")
	b.publish(posts30()[:5]...)
	rec := b.run(b.store)
	if links, _ := b.items(); len(links) != 0 || rec.Status != model.StatusPartial ||
		!strings.Contains(strings.Join(rec.Notes, ""), "waits for a run that reads every sitemap whole") {
		t.Fatalf("a first run with a sitemap missing: items %v, %s, notes %q", links, rec.Status, rec.Notes)
	}
	os.WriteFile(filepath.Join(b.dir, "more.xml"), fmt.Appendf(nil, "<urlset><url><loc>%s/blog/newest</loc><lastmod>2026-05-01</lastmod></url></urlset>", b.srv.URL), 0o644)
	b.run(b.store)
	if links, _ := b.items(); !slices.Equal(links, []string{"/blog/newest", "/blog/post-4", "/blog/post-3"}) {
		t.Errorf("the first complete run: %v", links)
	}
}

func TestPagesWithoutATitleForGood(t *testing.T) {
	b := newBlog(t, "baselineItems: 0")
	b.publish("/blog/old 2026-01-01")
	b.run(b.store)
	for path, answer := range map[string]string{"/gone": "404", "/empty": "empty", "/doc.pdf": "pdf"} {
		b.set(path, answer)
	}
	b.publish("/gone 2026-02-01", "/empty 2026-02-02", "/doc.pdf 2026-02-03")
	rec := b.run(b.store)
	_, titles := b.items()
	if st := rec.Channels["feed"]; st.Submitted != 3 || st.Failed != 0 || rec.Status != model.StatusOK || len(rec.Notes) != 3 ||
		!slices.Equal(titles, []string{"Doc", "Empty", "Gone"}) {
		t.Fatalf("%s %+v, titles %v, notes %q", rec.Status, st, titles, rec.Notes)
	}
	b.takeFetched()
	b.run(b.store)
	if got := b.takeFetched(); len(got) != 0 {
		t.Errorf("pages that answered for good were fetched again: %v", got)
	}
}

func TestAPageThatKeepsFailingIsGivenUp(t *testing.T) {
	b := newBlog(t, "baselineItems: 0")
	b.publish("/blog/old 2026-01-01")
	b.run(b.store)
	b.set("/blog/down", "500")
	b.publish("/blog/down 2026-02-01")
	for run := 1; run <= 3; run++ {
		rec := b.run(b.store)
		want := model.StatusFailed
		if run == 3 {
			want = model.StatusOK
		}
		if rec.Status != want {
			t.Errorf("run %d: %s, want %s (%q %q)", run, rec.Status, want, rec.Errors, rec.Notes)
		}
	}
	b.takeFetched()
	b.run(b.store)
	if got := b.takeFetched(); len(got) != 0 {
		t.Errorf("a page given up was fetched again: %v", got)
	}
	if _, titles := b.items(); !slices.Equal(titles, []string{"Down"}) {
		t.Errorf("titles %v", titles)
	}
}

func TestARetriedPageThatWasPrunedIsNotAddedAgain(t *testing.T) {
	b := newBlog(t, "baselineItems: 0, maxItems: 1, keepDays: 0")
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
	b := newBlog(t, "baselineItems: 0, maxItems: 5")
	b.publish("/blog/old 2026-01-01")
	b.run(b.store)
	b.takeFetched()
	var moved []string
	for i := range 12 {
		moved = append(moved, fmt.Sprintf("/new/p%02d 2026-02-%02d", i, i+1))
	}
	b.publish(append(moved, "/new/undated")...)
	rec := b.run(b.store)
	links, _ := b.items()
	if !slices.Equal(links, []string{"/new/undated", "/new/p11", "/new/p10", "/new/p09", "/new/p08"}) || len(b.takeFetched()) != 5 ||
		rec.Channels["feed"].Skipped != 9 || !strings.Contains(strings.Join(rec.Notes, ""), "13 pages are new at once") {
		t.Errorf("items %v, %+v, notes %q", links, rec.Channels["feed"], rec.Notes)
	}
}

func TestTheBudgetKeepsWhatWasRead(t *testing.T) {
	b := newBlog(t, "baselineItems: 0, out: feed.xml", "runBudget: 500ms")
	b.publish("/blog/old 2026-01-01")
	b.run(b.store)
	b.set("/blog/slow", "slow")
	b.publish("/blog/fast 2026-02-01", "/blog/slow 2026-02-02")
	rec := b.run(b.store)
	st := rec.Channels["feed"]
	if rec.Status != model.StatusBudgetExhausted || st.Submitted != 1 || st.Failed != 0 || st.Left != 1 {
		t.Fatalf("%s %+v %q", rec.Status, st, rec.Errors)
	}
	if parsed := parse(t, filepath.Join(b.dir, "feed.xml")); len(parsed.Items) != 2 || parsed.Items[1].Title != "Title of fast" {
		t.Errorf("feed.out after the budget ran out: %d items", len(parsed.Items))
	}
	b.set("/blog/slow", "")
	b.run(b.store)
	if _, titles := b.items(); titles[0] != "Title of slow" {
		t.Errorf("the page the budget cut is read by the next run: %v", titles)
	}
}

func TestFeedOutIsWrittenOnlyWhenTheFeedChanged(t *testing.T) {
	b := newBlog(t, "fetchTitles: false, out: public/feed.xml")
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
}

func TestFeedOutInAMissingDirectoryIsAnError(t *testing.T) {
	b := newBlog(t, "fetchTitles: false, out: nowhere/feed.xml")
	b.publish(posts30()[:3]...)
	rec := b.run(b.store)
	if rec.Status != model.StatusPartial || !strings.Contains(strings.Join(rec.Errors, ""), "check that "+filepath.Join(b.dir, "nowhere")+" exists and is writable") {
		t.Errorf("%s %q", rec.Status, rec.Errors)
	}
	if links, _ := b.items(); len(links) != 3 {
		t.Error("the items must be kept even when the file cannot be written")
	}
}

func parse(t *testing.T, path string) *gofeed.Feed {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	parsed, err := gofeed.NewParser().Parse(f)
	if err != nil {
		t.Fatalf("%s is not a feed gofeed reads: %v", path, err)
	}
	return parsed
}

// The target of the feed channel: on a big site, only the pages that are new are fetched.
func TestABigSiteFetchesOnlyItsNewPages(t *testing.T) {
	b := newBlog(t, "baselineItems: 20")
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
	rec := b.run(b.store)
	if got := b.takeFetched(); !slices.Equal(got, []string{"/new/1", "/new/2", "/new/3", "/new/4", "/new/5"}) {
		t.Errorf("a run with 5 new pages among 50,005 fetched %d: %v", len(got), got[:min(len(got), 10)])
	}
	if st := rec.Channels["feed"]; st.Due != 5 || st.Submitted != 5 {
		t.Errorf("record %+v", st)
	}
}
