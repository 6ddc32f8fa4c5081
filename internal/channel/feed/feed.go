// Package feed is the feed channel: an RSS 2.0 feed of each site's new pages, built incrementally.
// A page new in the sitemaps becomes an item, titled by the page itself (fetched once) or by its
// URL; a site's first run takes only its newest pages, and the rest are known from then on.
package feed

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/version"
)

const (
	name = "feed"
	// fetchers is how many pages of a site are fetched at once.
	fetchers = 4
	// chunk is how many new pages are handled, and recorded, at a time.
	chunk = 100
)

// Channel builds a site's feed.
type Channel struct {
	site  *config.Site
	store Store
	fetch *fetcher // nil unless fetchTitles
	now   time.Time
	// What Policy found: whether this run builds the feed, and why the state was unusable.
	firstRun bool
	stateErr error
}

// New returns the feed channel of a validated site, for a run starting at start.
func New(site *config.Site, client *http.Client, userAgent string, store Store, start time.Time) *Channel {
	c := &Channel{site: site, store: store, now: start}
	if site.Feed.FetchTitles {
		s := site.Sitemap
		c.fetch = &fetcher{client: client, userAgent: userAgent, timeout: s.Timeout.D(), retries: s.Retries, retryInterval: s.RetryInterval.D()}
	}
	return c
}

// Name is "feed".
func (c *Channel) Name() string { return name }

// Policy asks for new pages only — a changed page is no new item — and, for the feed's first
// run, for the site's newest baselineItems pages. It reads the feed's state, once per run: a
// state that cannot be read makes this run a first one.
func (c *Channel) Policy(ctx context.Context) runner.Policy {
	built, _, err := c.store.FeedState(ctx, c.site.ID)
	c.firstRun, c.stateErr = !built, err
	p := runner.Policy{OnlyNew: true, FirstRun: c.firstRun}
	if c.firstRun {
		p.Newest = c.site.Feed.BaselineItems
	}
	return p
}

// Deliver turns the new pages into items, prunes old ones, and writes feed.out when the feed
// changed. A feed state that could not be read is rebuilt as on a first run, with a note: the
// feed never fails a run for it.
func (c *Channel) Deliver(ctx context.Context, q *runner.Queue, rep runner.Reporter) error {
	if c.stateErr != nil {
		rep.Noted(name, fmt.Sprintf("the feed's state could not be read (%v); it was rebuilt from the sitemaps", c.stateErr))
		if err := c.store.ResetFeed(ctx, c.site.ID); err != nil {
			return err
		}
	}
	var changed bool
	var err error
	if c.firstRun {
		changed, err = c.baseline(ctx, q, rep)
	} else {
		changed, err = c.incremental(ctx, q, rep)
	}
	if err != nil {
		return err
	}
	pruned, err := c.store.PruneFeed(ctx, c.site.ID, c.site.Feed.MaxItems, c.now.AddDate(0, 0, -c.site.Feed.KeepDays), c.now)
	if err != nil {
		return err
	}
	if (changed || pruned > 0) && c.site.Feed.Out != "" {
		if err := WriteFile(ctx, c.store, c.site, c.site.Feed.Out); err != nil {
			rep.Failed(name, err.Error())
		}
	}
	return nil
}

// baseline is a site's first run: the newest baselineItems pages become items, and every other
// page is known from now on, never fetched.
func (c *Channel) baseline(ctx context.Context, q *runner.Queue, rep runner.Reporter) (bool, error) {
	var newest []runner.Due
	for _, p := range q.Newest() {
		newest = append(newest, runner.Due{Hash: p.Hash, URL: p.URL, Lastmod: p.Lastmod})
	}
	if err := c.add(ctx, newest, rep); err != nil {
		return false, err
	}
	items := map[int64]bool{}
	for _, d := range newest {
		items[d.Hash] = true
	}
	for from := 0; from < q.Len(); from += 1000 {
		var rest []runner.Due
		for _, d := range q.Refs(from, from+1000) {
			if !items[d.Hash] {
				rest = append(rest, d)
			}
		}
		if len(rest) > 0 {
			if err := rep.Finished(runner.Outcome{Channel: name, URLs: rest, Skipped: true}); err != nil {
				return false, err
			}
		}
	}
	return len(newest) > 0, c.store.MarkFeedBuilt(ctx, c.site.ID, c.now)
}

// incremental turns every new page into an item; pages whose fetch failed before get their
// title again.
func (c *Channel) incremental(ctx context.Context, q *runner.Queue, rep runner.Reporter) (bool, error) {
	for from := 0; from < q.Len() && ctx.Err() == nil; from += chunk {
		due, err := q.Slice(ctx, from, from+chunk)
		if err != nil {
			return from > 0, err
		}
		if err := c.add(ctx, due, rep); err != nil {
			return true, err
		}
	}
	return q.Len() > 0, nil
}

// add makes items of pages — fetching their titles when configured — saves them, and records
// each: delivered, or failed when its page could not be read, to be read again next run while
// its item shows a title made of its URL.
func (c *Channel) add(ctx context.Context, due []runner.Due, rep runner.Reporter) error {
	if len(due) == 0 {
		return nil
	}
	items, errs := c.items(ctx, due)
	if err := c.store.SaveFeedItems(ctx, c.site.ID, items, c.now); err != nil {
		return err
	}
	var ok []runner.Due
	failed := map[string][]runner.Due{}
	for i, d := range due {
		if errs[i] == "" {
			ok = append(ok, d)
		} else {
			failed[errs[i]] = append(failed[errs[i]], d)
		}
	}
	if len(ok) > 0 {
		if err := rep.Finished(runner.Outcome{Channel: name, URLs: ok, Delivered: true}); err != nil {
			return err
		}
	}
	for msg, ds := range failed {
		if err := rep.Finished(runner.Outcome{Channel: name, URLs: ds, Err: msg}); err != nil {
			return err
		}
	}
	return nil
}

// items makes the item of each page, fetching up to fetchers pages at once; errs[i] says why the
// page of due[i] could not be read, "" when it was (or did not need to be).
func (c *Channel) items(ctx context.Context, due []runner.Due) ([]Item, []string) {
	items, errs := make([]Item, len(due)), make([]string, len(due))
	sem := make(chan struct{}, fetchers)
	var wg sync.WaitGroup
	for i, d := range due {
		published := d.Lastmod
		if published.IsZero() {
			published = c.now
		}
		items[i] = Item{Hash: d.Hash, URL: d.URL, Title: titleFromURL(d.URL), Published: published, FirstSeen: c.now}
		if c.fetch == nil {
			continue
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			p, err := c.fetch.fetch(ctx, d.URL)
			if err != nil {
				errs[i] = fmt.Sprintf("reading the title of %s: %v; it is read again next run", d.URL, err)
				return
			}
			items[i].Titled = true
			if p.title != "" {
				items[i].Title = p.title
			}
			items[i].Description = p.description
		})
	}
	wg.Wait()
	return items, errs
}

// WriteFile writes a site's current feed to path through a temporary file renamed over it:
// readers see the old file or the new one, never half of one.
func WriteFile(ctx context.Context, store Store, site *config.Site, path string) error {
	items, err := store.FeedItems(ctx, site.ID, site.Feed.MaxItems)
	if err != nil {
		return err
	}
	_, changed, err := store.FeedState(ctx, site.ID)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("writing the feed of site %q: %w (check that %s exists and is writable)", site.ID, err, filepath.Dir(path))
	}
	defer os.Remove(tmp.Name())
	if err := Render(tmp, site, items, changed, Generator()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Generator names sitepush in a feed.
func Generator() string {
	return "sitepush " + strings.TrimPrefix(version.Version(), "v")
}
