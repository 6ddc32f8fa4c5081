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

	"github.com/sitepush/sitepush/internal/channel/feed"
	"github.com/sitepush/sitepush/internal/config"
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
	broken  map[string]bool // paths answering 500
	posts   []string        // "path lastmod"
}

func newBlog(t *testing.T, feedYAML string) *blog {
	b := &blog{t: t, dir: t.TempDir(), broken: map[string]bool{}, store: storetest.Open(t)}
	b.srv = httptest.NewServer(http.HandlerFunc(b.serve))
	t.Cleanup(b.srv.Close)
	cfg := fmt.Sprintf("sites:\n  - id: blog\n    sitemaps: [sitemap.xml]\n    baseUrl: %s\n    sitemap: {retries: 1, retryInterval: 1ms}\n    feed: {enabled: true, %s}\n", b.srv.URL, feedYAML)
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
	broken := b.broken[r.URL.Path]
	b.mu.Unlock()
	if broken {
		http.Error(w, "down", http.StatusInternalServerError)
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

func (b *blog) run(st feed.Store) *runner.Record {
	return b.runWith(st, false)
}

func (b *blog) runWith(st feed.Store, dryRun bool) *runner.Record {
	b.t.Helper()
	rec, err := b.runner.Run(context.Background(), b.site, runner.Options{Trigger: "cli", DryRun: dryRun,
		Channels: []runner.Channel{feed.New(b.site, b.srv.Client(), "sitepush-test", st, time.Now())}})
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
	if st := rec.Channels["feed"]; st.Submitted != 10 || st.Skipped != 20 || st.Due != 10 || rec.Status != runner.StatusOK {
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
	b.broken["/blog/new-post"] = true
	b.publish("/blog/new-post 2026-02-01")
	rec := b.run(b.store)
	if _, titles := b.items(); !slices.Equal(titles, []string{"New post"}) || rec.Channels["feed"].Failed != 1 ||
		!strings.Contains(rec.Errors[0], "reading the title of "+b.srv.URL+"/blog/new-post: HTTP 500") {
		t.Fatalf("titles %v, record %+v %q", titles, rec.Channels["feed"], rec.Errors)
	}
	b.broken["/blog/new-post"] = false
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
	failed bool
}

func (f *failingState) FeedState(ctx context.Context, site string) (bool, time.Time, error) {
	if !f.failed {
		f.failed = true
		return false, time.Time{}, errors.New("feed_state: malformed row")
	}
	return f.Store.FeedState(ctx, site)
}

func TestAnUnusableStateIsRebuilt(t *testing.T) {
	b := newBlog(t, "fetchTitles: false, baselineItems: 3")
	b.publish(posts30()[:5]...)
	b.run(b.store)
	b.publish("/blog/new 2026-04-01")
	rec := b.run(&failingState{Store: b.store})
	links, _ := b.items()
	if !slices.Equal(links, []string{"/blog/new", "/blog/post-4", "/blog/post-3"}) || rec.Status != runner.StatusOK ||
		len(rec.Notes) != 1 || !strings.Contains(rec.Notes[0], "it was rebuilt from the sitemaps") {
		t.Errorf("items %v, %s, notes %q, errors %q", links, rec.Status, rec.Notes, rec.Errors)
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
	if rec.Status != runner.StatusPartial || !strings.Contains(strings.Join(rec.Errors, ""), "check that "+filepath.Join(b.dir, "nowhere")+" exists and is writable") {
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
