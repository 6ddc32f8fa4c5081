package runner

import (
	"bytes"
	"context"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/sitemap"
)

const (
	// syncBatch is how many pages are looked up in the state at once: one query, one transaction.
	// Pages are looked up in hash order, so that a batch writes neighbouring rows of the
	// catalogue.
	syncBatch = 50_000
	// sampleSize is how many due URLs per channel a dry run shows.
	sampleSize = 20
)

// collector carries a run's pages through the steps of doc.go: it takes the pages the reader
// delivers, keeps those in scope, tells them apart, merges them with what the run remembers and
// what the state knows a batch at a time, and chooses what is due on each channel.
type collector struct {
	state    State
	site     *config.Site
	rec      *model.Record
	channels []string
	now      time.Time
	mode     mode
	host     string // baseUrl's host, lower case
	progress func()

	batch     []channel.Page
	file      file // the sitemap being read
	memo      *memos
	due       []*channel.Queue // per channel
	selection []channel.Selection
	newest    []newest // per channel, for those whose selection asks

	// seen holds every page taken, seenOut every URL the filter left out.
	seen, seenOut seen

	// known is set for a channel when a URL read is known on it: a channel with none known has
	// its first run for the site, where the backlog setting applies.
	known []bool
	// catalogue looks a batch of pages up in the state (syncWith).
	catalogue catalogue
	syncErr   error // why a sync failed: the read stops, the run ends with it
	// urls holds the text of the due URLs in a dry run, which writes nothing to the state: the
	// queues read their URLs from it.
	urls channel.URLMap
	// began is when the run's work began, and lastDone when the reader last told the end of a
	// sitemap's read; lastTook is how long that sitemap took, from the end of the one before:
	// the one the budget cut short is the last.
	began, lastDone time.Time
	lastTook        time.Duration
}

func newCollector(state State, site *config.Site, rec *model.Record, channels []string, selection []channel.Selection, now time.Time, m mode) *collector {
	c := &collector{state: state, site: site, rec: rec, channels: channels, now: now, mode: m,
		host: site.Host(), due: make([]*channel.Queue, len(channels)), file: file{whole: true},
		memo: &memos{state: state, site: site.ID, scope: scopeOf(site.Sitemaps, site.Host(), site.Include, site.Exclude, channels),
			on: m.useMemos, keep: m.keepMemos,
			settled: map[string]model.SitemapMemo{}, unfinished: map[string]model.SitemapMemo{}, known: map[string]model.SitemapMemo{}, met: map[string]bool{}, has: map[string]bool{}},
		selection: selection, newest: make([]newest, len(channels)), known: make([]bool, len(channels))}
	c.catalogue = c.syncCatalog
	if !m.writes {
		c.urls = channel.URLMap{}
	}
	for i, p := range selection {
		c.newest[i].n = p.Newest
		c.due[i] = c.newQueue()
	}
	for _, name := range channels {
		rec.Channels[name] = &model.ChannelStats{Endpoints: map[string]*model.EndpointStats{}}
	}
	return c
}

// add takes one page as the reader delivers it, into the file being read.
func (c *collector) add(ctx context.Context, e sitemap.Entry) error {
	if e.Sitemap != c.file.name {
		c.endFile(ctx, nil)
		c.file.name = e.Sitemap
	}
	if c.syncErr != nil {
		return c.syncErr
	}
	a := authorityOf(e.URL)
	if !inScope(c.site, c.host, e.URL, a) {
		c.rec.Filtered++
		c.file.filtered++
		c.file.out = append(c.file.out, filePage{hash: URLHash(canonical(e.URL, a))})
		if len(c.file.out) >= maxFilePages {
			c.tellApartOut()
		}
		return nil
	}
	c.rec.TotalURLs++
	c.file.add(canonical(e.URL, a), e.Lastmod)
	if len(c.file.pages) >= maxFilePages {
		// Too big to be held whole: synced in pieces, and not remembered.
		c.file.whole = false
		_, first := c.tellApart(c.file.pages)
		c.lookUp(ctx, first, c.file.arena)
		c.file.pages, c.file.arena = c.file.pages[:0], c.file.arena[:0]
	}
	return c.syncErr
}

// takeChosen takes chosen URLs instead of the sitemaps' pages: each once (tellApart), without a
// lastmod.
func (c *collector) takeChosen(ctx context.Context, urls []string) (*sitemap.Result, error) {
	for _, u := range urls {
		if err := c.add(ctx, sitemap.Entry{URL: []byte(u)}); err != nil {
			return nil, err
		}
	}
	c.endFile(ctx, nil)
	return &sitemap.Result{}, c.syncErr
}

// authority is where a URL's host is, and whether its scheme or host may have capitals: ASCII
// ones, or any letter outside ASCII. Most URLs have none, and are compared and kept as they are.
type authority struct {
	start, end int
	folded     bool
}

// authorityOf finds a URL's host in one pass over its scheme and host.
func authorityOf(u []byte) authority {
	a := authority{start: bytes.Index(u, []byte("://")) + 3, end: len(u)}
	for i, c := range u {
		if i >= a.start && (c == '/' || c == '?' || c == '#') {
			a.end = i
			break
		}
		if 'A' <= c && c <= 'Z' || c >= utf8.RuneSelf {
			a.folded = true
		}
	}
	return a
}

// InScope reports whether a run of site takes a URL: on baseUrl's host, and passing the
// include/exclude globs. What `sitepush check` and `sitepush submit` count and refuse by.
func InScope(site *config.Site, u string) bool {
	b := []byte(u)
	return strings.Contains(u, "://") && inScope(site, site.Host(), b, authorityOf(b))
}

// inScope is InScope of a URL whose authority is found, against host, baseUrl's in lower case.
func inScope(site *config.Site, host string, u []byte, a authority) bool {
	h := u[a.start:a.end]
	if a.folded && !strings.EqualFold(string(h), host) || !a.folded && string(h) != host {
		return false
	}
	if len(site.Include) == 0 && len(site.Exclude) == 0 {
		return true
	}
	path := u[a.end:]
	if q := bytes.IndexAny(path, "?#"); q >= 0 {
		path = path[:q]
	}
	return site.PathAllowed(string(path))
}

// canonical writes a URL's scheme and host in lower case, as engines compare them: a sitemap's
// "https://WWW.Example.com/x" is the page https://www.example.com/x, and IndexNow refuses the
// former as not on the site's host. The path is left alone: it is case-sensitive.
func canonical(u []byte, a authority) []byte {
	if !a.folded || !bytes.ContainsFunc(u[:a.end], unicode.IsUpper) {
		return u
	}
	out := make([]byte, len(u))
	copy(out, bytes.ToLower(u[:a.end]))
	copy(out[a.end:], u[a.end:])
	return out
}

// catalogue looks a batch of pages up in the state and returns their delivery state on each of
// the run's channels, flattened as SyncCatalog's; a run that writes records them. withURLs is
// clear for pages taken from memos, which carry only their hash.
type catalogue func(ctx context.Context, pages []channel.Page, withURLs bool) ([]model.DeliveryState, error)

func (c *collector) syncCatalog(ctx context.Context, pages []channel.Page, _ bool) ([]model.DeliveryState, error) {
	return c.state.SyncCatalog(ctx, c.site.ID, c.now, pages, c.channels, !c.mode.writes)
}

// syncWith chooses how the run looks pages up: a state that can (FirstRunLoader) adds the pages
// of a site it holds no URL of yet without looking them up, as they are all new (those taken
// from memos, without their URLs, are looked up).
func (c *collector) syncWith(ctx context.Context) error {
	loader, ok := c.state.(FirstRunLoader)
	if !ok {
		return nil
	}
	empty, err := loader.CatalogEmpty(ctx, c.site.ID)
	if err != nil || !empty {
		return err
	}
	c.catalogue = func(ctx context.Context, pages []channel.Page, withURLs bool) ([]model.DeliveryState, error) {
		if !withURLs {
			return c.syncCatalog(ctx, pages, withURLs)
		}
		return make([]model.DeliveryState, len(pages)*len(c.channels)), loader.AddPages(ctx, c.site.ID, c.now, pages, !c.mode.writes)
	}
	return nil
}

// lookUp looks pages up in the state (catalogue), syncBatch at a time, and queues those due on
// each channel (choose).
func (c *collector) lookUp(ctx context.Context, pages []filePage, arena []byte) {
	for from := 0; from < len(pages) && c.syncErr == nil; from += syncBatch {
		c.batch = c.batch[:0]
		for _, p := range pages[from:min(from+syncBatch, len(pages))] {
			c.batch = append(c.batch, p.page(arena))
		}
		states, err := c.catalogue(ctx, c.batch, arena != nil)
		if err != nil {
			c.syncErr = err
			return
		}
		n := len(c.channels)
		for i, p := range c.batch {
			c.memo.lookedUp(p.Hash)
			for ch := range c.channels {
				c.newest[ch].add(p)
				if d, ok := c.choose(ch, p, states[i*n+ch]); ok {
					c.due[ch].Add(d)
				}
			}
		}
		if c.progress != nil {
			c.progress()
		}
	}
}

// choose counts a page on channel ch, and returns it when the run's rule (mode.takes) makes it
// due there.
func (c *collector) choose(ch int, p channel.Page, st model.DeliveryState) (channel.Due, bool) {
	stats := c.rec.Channels[c.channels[ch]]
	c.known[ch] = c.known[ch] || st.Known
	sel := c.selection[ch]
	due, retry := isDue(st, p.Lastmod, c.site.ResubmitAfter.D(), c.now, sel.OnlyNew)
	counted, taken := c.mode.takes(sel, st, due, retry)
	switch {
	case !counted:
		return channel.Due{}, false
	case !taken:
		stats.Skipped++
		return channel.Due{}, false
	}
	stats.Due++
	d := channel.Due{Hash: p.Hash, Lastmod: p.Lastmod, Retry: retry}
	if retry {
		d.Failures = st.Failures
	}
	if c.urls != nil && p.URL != "" {
		c.urls[p.Hash] = p.URL
	}
	return d, true
}

// previewFirstRuns shows, in a dry run, what a channel's first run will deliver: only its newest
// pages; every other due URL becomes known.
func (c *collector) previewFirstRuns() {
	for ch, name := range c.channels {
		stats := c.rec.Channels[name]
		if !c.selection[ch].FirstRun || stats.Due == 0 {
			continue // a run with nothing due does not deliver
		}
		newest := c.newest[ch].list()
		stats.Skipped += stats.Due - len(newest)
		stats.Due, stats.Sample = len(newest), nil
		for _, p := range newest[:min(len(newest), sampleSize)] {
			stats.Sample = append(stats.Sample, p.URL)
		}
	}
}
