package feed_test

import (
	"context"
	"fmt"
	"hash/fnv"
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
	"github.com/sitepush/sitepush/internal/enginetest"
	"github.com/sitepush/sitepush/internal/store"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// blog is a website of posts whose pages say their titles, its site, a real store for the feed,
// and what its sitemaps list: the feed is run over a queue in memory, built as a run of the site
// builds it, without the runner.
type blog struct {
	t       *testing.T
	srv     *httptest.Server
	dir     string
	site    *config.Site
	store   *store.Store
	now     time.Time // when the last run started
	mu      sync.Mutex
	fetched []string
	answer  map[string]string // paths answering otherwise: "500", "404", "empty", "pdf", "slow", "noindex", "moved"
	// sitemaps holds the posts ("path lastmod") of each sitemap published; a sitemap of the site
	// that is not there cannot be read.
	sitemaps map[string][]string
	// known is what the feed reported of each page, by hash, as the state keeps it for the next
	// run.
	known map[int64]delivery
}

// delivery is what the state keeps of a page the feed reported.
type delivery struct {
	lastmod    time.Time // as last delivered, or checked
	failures   int       // the attempts that failed in a row, 0 when the last one did not
	ineligible bool      // a preflight left it out: due again when its lastmod changes
}

// newBlog starts a blog whose site has the built-in settings, the feed enabled and a single
// sitemap, sitemap.xml, with what set changes. A relative feed.out is in the blog's directory, as
// Load resolves it against the configuration file's.
func newBlog(t *testing.T, set func(s *config.Site)) *blog {
	b := &blog{t: t, dir: t.TempDir(), answer: map[string]string{}, store: storetest.Open(t), now: time.Now(),
		sitemaps: map[string][]string{}, known: map[int64]delivery{}}
	b.srv = httptest.NewServer(http.HandlerFunc(b.serve))
	t.Cleanup(b.srv.Close)
	b.site = &config.Site{ID: "blog", BaseURL: b.srv.URL, Sitemaps: []string{"sitemap.xml"}, Settings: config.Builtin()}
	b.site.Sitemap.Retries, b.site.Sitemap.RetryInterval = 1, config.Duration(time.Millisecond)
	b.site.Feed.Enabled = true
	if set != nil {
		set(b.site)
	}
	if out := b.site.Feed.Out; out != "" && !filepath.IsAbs(out) {
		b.site.Feed.Out = filepath.Join(b.dir, out)
	}
	if err := b.site.Validate(); err != nil {
		t.Fatal(err)
	}
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
	case "noindex":
		fmt.Fprint(w, `<html><head><meta name="robots" content="noindex"><title>Secret draft</title></head><body>…</body></html>`)
		return
	case "moved":
		http.Redirect(w, r, "/", http.StatusMovedPermanently)
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

// publish adds posts ("path lastmod") to sitemap.xml.
func (b *blog) publish(posts ...string) { b.publishIn("sitemap.xml", posts...) }

// publishIn adds posts to a sitemap, which can be read from then on.
func (b *blog) publishIn(sitemap string, posts ...string) {
	b.sitemaps[sitemap] = append(b.sitemaps[sitemap], posts...)
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

// result is what one run of the feed reported, and what a run's record counts of it
// (docs/runs.md, "The execution record").
type result struct {
	rep    *enginetest.Reporter
	queued int // the pages due when the run began
	notDue int // the pages present that were not due
}

// due counts the pages due as the record does: those a first run skips were not due after all.
func (r *result) due() int { return r.queued - r.rep.Unsent() }

// skipped counts, as the record does, the pages that were not due and those the feed skipped.
func (r *result) skipped() int { return r.notDue + r.rep.Unsent() }

// left counts the due pages the feed did not answer: they stay due for the next run.
func (r *result) left() int { return r.due() - r.rep.Submitted() - r.rep.FailedURLs() }

func (r *result) String() string {
	return fmt.Sprintf("due %d, submitted %d, failed %d, skipped %d, left %d, errors %q, notes %q",
		r.due(), r.rep.Submitted(), r.rep.FailedURLs(), r.skipped(), r.left(), r.rep.Errors(), r.rep.Notes())
}

// run runs the feed once, with st as its store, over what the sitemaps list now, as a run of the
// site does: it asks the feed's Selection once, queues the pages due on it (those it never had,
// and those that failed), hands it the newest pages it asked for and whether every sitemap was
// read, lets it deliver within the site's runBudget, and keeps what it reported for the next run.
// It calls Deliver directly, not through enginetest.Deliver, which would ask the Selection again:
// the feed reads its state once a run, in Selection. Unlike a run, it calls Deliver even when
// nothing is due: a feed with nothing to do must change nothing.
func (b *blog) run(st feed.Store) *result {
	b.t.Helper()
	b.now = b.now.Add(time.Minute) // runs never share a millisecond, which pruning compares
	ch := feed.New(b.site, b.srv.Client(), "sitepush-test", st, b.now)
	sel := ch.Selection(context.Background())
	pages, complete := b.read()
	urls := channel.URLMap{}
	q := channel.NewQueue(b.site.ID, urls)
	res := &result{rep: &enginetest.Reporter{}}
	for _, p := range pages {
		urls[p.Hash] = p.URL
		d, known := b.known[p.Hash]
		due := channel.Due{Hash: p.Hash, URL: p.URL, Lastmod: p.Lastmod}
		switch {
		case !known:
			q.Add(due)
		case d.failures > 0:
			due.Retry, due.Failures = true, d.failures
			q.Add(due)
		case d.ineligible && !p.Lastmod.Equal(d.lastmod):
			q.Add(due)
		case d.ineligible:
			res.notDue++
		case !sel.OnlyNew && p.Lastmod.After(d.lastmod):
			q.Add(due)
		default:
			res.notDue++
		}
	}
	res.queued = q.Len()
	q.Read(newest(pages, sel.Newest), complete)
	ctx, cancel := context.WithTimeout(context.Background(), b.site.RunBudget.D())
	defer cancel()
	if err := ch.Deliver(ctx, q, res.rep); err != nil {
		b.t.Fatalf("Deliver: %v", err)
	}
	b.keep(res.rep.Outcomes())
	return res
}

// read returns the pages the site's sitemaps list, in their order, and whether every sitemap
// could be read.
func (b *blog) read() ([]channel.Page, bool) {
	var pages []channel.Page
	complete := true
	for _, sm := range b.site.Sitemaps {
		posts, ok := b.sitemaps[sm]
		complete = complete && ok
		for _, post := range posts {
			path, lm, _ := strings.Cut(post, " ")
			u := b.srv.URL + path
			h := fnv.New64a()
			h.Write([]byte(u))
			pages = append(pages, channel.Page{Hash: int64(h.Sum64()), URL: u, Lastmod: b.lastmod(lm)})
		}
	}
	return pages, complete
}

// lastmod reads a post's lastmod, a date or a date and time; "" is none.
func (b *blog) lastmod(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	for _, layout := range []string{time.RFC3339, time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	b.t.Fatalf("lastmod %q is neither a date nor a date and time", s)
	return time.Time{}
}

// newest returns the n newest pages as a run hands them to a channel that asks for them
// (docs/runs.md, "The feed"): by lastmod, newest first, then the undated; equal ones in sitemap
// order.
func newest(pages []channel.Page, n int) []channel.Page {
	sorted := slices.Clone(pages)
	slices.SortStableFunc(sorted, func(a, b channel.Page) int {
		if a.Lastmod.IsZero() != b.Lastmod.IsZero() {
			if a.Lastmod.IsZero() {
				return 1
			}
			return -1
		}
		return b.Lastmod.Compare(a.Lastmod)
	})
	return sorted[:min(n, len(sorted))]
}

// keep records outcomes as the state does: a page delivered, skipped or rejected is known with
// its lastmod; a page a preflight left out is known with the lastmod checked, due again when it
// changes (preflightAfter is not modelled: the runner's tests cover it); a page that failed — one
// that did not answer the preflight too — is due again, its failures in a row counted.
func (b *blog) keep(outcomes []channel.Outcome) {
	for _, o := range outcomes {
		for _, d := range o.URLs {
			switch {
			case o.Delivered || o.Unsent != "" || o.Rejected:
				b.known[d.Hash] = delivery{lastmod: d.Lastmod}
				continue
			case o.Ineligible() && !o.Preflight.Again:
				b.known[d.Hash] = delivery{lastmod: d.Lastmod, ineligible: true}
				continue
			}
			known := b.known[d.Hash]
			known.failures++
			b.known[d.Hash] = known
		}
	}
}

// takeFetched returns the pages fetched since the last take, sorted; robots.txt, read once a run
// for the preflight's verdicts, is no page.
func (b *blog) takeFetched() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	f := slices.DeleteFunc(b.fetched, func(p string) bool { return p == "/robots.txt" })
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
