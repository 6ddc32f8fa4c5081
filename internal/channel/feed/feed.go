// Package feed is the feed channel: an RSS 2.0 feed of each site's new pages, built incrementally.
// A page new in the sitemaps becomes an item, titled by the page itself (fetched once) or by its
// URL; a site's first run takes only its newest pages, and the rest are known from then on.
package feed

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/channel/preflight"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/human"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/version"
)

const (
	name = "feed"
	// fetchers is how many pages of a site are fetched at once.
	fetchers = 4
	// chunk is how many new pages are handled, and recorded, at a time.
	chunk = 100
)

// The run must ask the feed which URLs it wants: a feed announces new pages only.
var _ channel.Selective = (*Channel)(nil)

// Channel builds a site's feed.
type Channel struct {
	site  *config.Site
	store Store
	// fetch reads each new page, for its title and for the preflight's verdict on it: a page no
	// engine would index (a noindex draft, an error, a redirect) is no item. nil unless
	// fetchTitles (config.Site.Preflights).
	fetch *fetcher
	// checker reads robots.txt for the verdicts of fetch, and checks the known pages of a feed
	// built again; nil unless fetchTitles.
	checker *preflight.Checker
	now     time.Time

	// What Selection found: whether this run builds the feed, and why its state could not be read.
	firstRun bool
	unusable error // the state must be built again
	stateErr error // the state could not be read now: the feed waits for the next run

	mu       sync.Mutex
	untitled map[string]int // why pages gave no title for good, and how many
	left     leftOut        // the new pages a preflight left out of the feed
	// oldestShown is the date of the oldest of the feed's newest maxItems items, read once a run
	// that retries pages (retitle); zero when the feed shows fewer.
	oldestShown *time.Time
}

// New returns the feed channel of a validated site, for a run starting at start. The runner asks
// its Selection before Deliver.
func New(site *config.Site, client *http.Client, userAgent string, store Store, start time.Time) *Channel {
	c := &Channel{site: site, store: store, now: start, untitled: map[string]int{}}
	if site.Preflights(name) {
		if client == nil {
			client = http.DefaultClient
		}
		s := site.Sitemap
		c.fetch = &fetcher{client: preflight.PageClient(client), userAgent: userAgent, timeout: s.Timeout.D(), retries: s.Retries, retryInterval: s.RetryInterval.D()}
		c.checker = preflight.New(client, userAgent)
	}
	return c
}

// Preflight makes the feed read robots.txt, when it checks its new pages (fetchTitles), with pc:
// the run's Checker, which the other channels share, instead of its own.
func (c *Channel) Preflight(pc *preflight.Checker) {
	if c.checker != nil {
		c.checker = pc
	}
}

// Name is "feed".
func (c *Channel) Name() string { return name }

// Selection asks for new pages only — a changed page is no new item — and, for the feed's first
// run, for the site's newest baselineItems pages. It reads the feed's state, once per run.
func (c *Channel) Selection(ctx context.Context) channel.Selection {
	c.firstRun, c.unusable, c.stateErr = false, nil, nil
	built, _, err := c.store.FeedState(ctx, c.site.ID)
	switch {
	case errors.Is(err, model.ErrUnusableFeed):
		c.unusable, c.firstRun = err, true
	case err != nil:
		c.stateErr = err
	default:
		c.firstRun = !built
	}
	p := channel.Selection{OnlyNew: true, FirstRun: c.firstRun}
	if c.firstRun {
		p.Newest = c.site.Feed.BaselineItems
	}
	return p
}

// Deliver turns the new pages into items, prunes old ones, and writes feed.out when the feed
// changed or the file is gone. An unusable feed state is built again as on a first run, with a note; a state that
// cannot be read now leaves the new pages due for the next run. What is answered is recorded even
// when the run's budget ends meanwhile.
func (c *Channel) Deliver(ctx context.Context, q *channel.Queue, rep channel.Reporter) error {
	keep := context.WithoutCancel(ctx)
	if c.stateErr != nil {
		rep.Failed(name, fmt.Sprintf("%v; the new pages are added by the next run", c.stateErr))
		return nil
	}
	if c.unusable != nil {
		rep.Noted(name, fmt.Sprintf("%v; it was built again from the sitemaps, as on a first run", c.unusable))
		if err := c.store.ResetFeedState(keep, c.site.ID); err != nil {
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
	c.noteUntitled(rep)
	c.noteLeftOut(rep)
	pruned, err := c.store.PruneFeed(keep, c.site.ID, c.site.Feed.MaxItems, c.now.AddDate(0, 0, -c.site.Feed.KeepDays), c.now)
	if err != nil {
		return err
	}
	if (changed || pruned > 0 || c.outMissing()) && c.site.Feed.Out != "" {
		if err := WriteFile(keep, c.store, c.site, c.site.Feed.Out); err != nil {
			rep.Failed(name, err.Error())
		}
	}
	return nil
}

// Idle writes feed.out again when it is gone (a static site's build may have cleaned its
// directory), in a run that has no new page for the feed.
func (c *Channel) Idle(ctx context.Context, rep channel.Reporter) {
	if c.stateErr != nil || c.unusable != nil || !c.outMissing() {
		return
	}
	if err := WriteFile(context.WithoutCancel(ctx), c.store, c.site, c.site.Feed.Out); err != nil {
		rep.Failed(name, err.Error())
	}
}

// outMissing reports whether feed.out is set and there is no file there.
func (c *Channel) outMissing() bool {
	if c.site.Feed.Out == "" {
		return false
	}
	_, err := os.Stat(c.site.Feed.Out)
	return errors.Is(err, fs.ErrNotExist)
}

// baseline is a site's first run: the newest baselineItems pages become items, and every other
// page is known from now on, never fetched. It waits for a run that read every sitemap whole: a
// page missing from a partial read could be the newest.
func (c *Channel) baseline(ctx context.Context, q *channel.Queue, rep channel.Reporter) (bool, error) {
	if !q.Complete() {
		rep.Noted(name, "the feed's first run waits for a run that reads every sitemap whole, so that it knows the newest pages")
		return false, nil
	}
	refs := q.Refs(0, q.Len())
	due := make(map[int64]channel.Due, len(refs))
	for _, d := range refs {
		due[d.Hash] = d
	}
	// The newest pages already known (a feed built again) keep the items they have, or get one
	// titled by their URL: they are not due, so neither fetched nor counted.
	var fetch []channel.Due
	var known []model.FeedItem
	chosen := map[int64]bool{}
	for _, p := range q.Newest() {
		chosen[p.Hash] = true
		if d, ok := due[p.Hash]; ok {
			d.URL, d.Lastmod = p.URL, p.Lastmod
			fetch = append(fetch, d)
		} else {
			known = append(known, c.item(channel.Due{Hash: p.Hash, URL: p.URL, Lastmod: p.Lastmod}))
		}
	}
	known = c.eligible(ctx, known)
	if err := c.store.SaveFeedItems(context.WithoutCancel(ctx), c.site.ID, known, c.now); err != nil {
		return false, err
	}
	if err := c.add(ctx, fetch, rep); err != nil {
		return false, err
	}
	var rest []channel.Due
	for _, d := range refs {
		if !chosen[d.Hash] {
			rest = append(rest, d)
		}
	}
	if err := c.skip(rest, rep); err != nil {
		return false, err
	}
	return len(fetch)+len(known) > 0, c.store.MarkFeedBuilt(context.WithoutCancel(ctx), c.site.ID, c.now)
}

// incremental turns every new page into an item, and gives pages whose fetch failed before
// another try. When more pages are new at once than the feed shows (a site that moved), only the
// newest maxItems become items: the others would never be seen.
func (c *Channel) incremental(ctx context.Context, q *channel.Queue, rep channel.Reporter) (bool, error) {
	take := q.Len()
	if retries := c.retries(q); q.Len()-retries > c.site.Feed.MaxItems {
		q.SortStable(newestFirst)
		take = retries + c.site.Feed.MaxItems
		rep.Noted(name, fmt.Sprintf("%d pages are new at once (a site that moved?): the newest %d became items, the others are known without one",
			q.Len()-retries, c.site.Feed.MaxItems))
		for from := take; from < q.Len(); from += 1000 {
			if err := c.skip(q.Refs(from, min(from+1000, q.Len())), rep); err != nil {
				return false, err
			}
		}
	}
	changed := false
	for from := 0; from < take && ctx.Err() == nil; from += chunk {
		due, err := q.Slice(ctx, from, min(from+chunk, take))
		if err != nil {
			return changed, err
		}
		if err := c.add(ctx, due, rep); err != nil {
			return changed, err
		}
		changed = true
	}
	return changed, nil
}

// retries counts the due pages whose fetch failed before.
func (c *Channel) retries(q *channel.Queue) int {
	n := 0
	for _, d := range q.Refs(0, q.Len()) {
		if d.Retry {
			n++
		}
	}
	return n
}

// newestFirst orders pages to retry first, then new pages by their date in the feed: undated
// ones are dated now, so they come before every dated one.
func newestFirst(a, b channel.Meta) int {
	switch {
	case a.Retry != b.Retry:
		if a.Retry {
			return -1
		}
		return 1
	case a.Lastmod.IsZero() || b.Lastmod.IsZero():
		if a.Lastmod.IsZero() == b.Lastmod.IsZero() {
			return 0
		}
		if a.Lastmod.IsZero() {
			return -1
		}
		return 1
	}
	return b.Lastmod.Compare(a.Lastmod)
}

// skip records pages as known without an item.
func (c *Channel) skip(due []channel.Due, rep channel.Reporter) error {
	if len(due) == 0 {
		return nil
	}
	return rep.Finished(channel.Outcome{Channel: name, URLs: due, Unsent: model.UnsentBacklog})
}

// add makes items of pages — reading their titles when configured — saves them, and records each
// delivered. When the feed reads its pages, a page no engine would index is left out, reported
// ineligible: it is checked again when its lastmod changes, or once preflightAfter has passed —
// at the next run when it did not answer for now (a 5xx, a timeout) — and becomes an item once it
// answers 200 without noindex. A page not read before the run's end stays due, without an item.
func (c *Channel) add(ctx context.Context, due []channel.Due, rep channel.Reporter) error {
	if len(due) == 0 {
		return nil
	}
	if err := c.readOldestShown(ctx, due); err != nil {
		return err
	}
	items, fates := c.items(ctx, due)
	var keep []model.FeedItem
	var ok []channel.Due
	held := map[channel.Preflight][]channel.Due{}
	for i, d := range due {
		switch f := fates[i]; {
		case f.unread:
			// the run's end came first: the page stays due, and no item is made of it
		case f.held != nil:
			held[*f.held] = append(held[*f.held], d)
		default:
			keep = append(keep, items[i])
			ok = append(ok, d)
		}
	}
	if err := c.store.SaveFeedItems(context.WithoutCancel(ctx), c.site.ID, keep, c.now); err != nil {
		return err
	}
	var checked *channel.Preflight // the pages a preflight found eligible say so
	if c.checker != nil {
		checked = &channel.Preflight{}
	}
	if len(ok) > 0 {
		if err := rep.Finished(channel.Outcome{Channel: name, URLs: ok, Delivered: true, Preflight: checked}); err != nil {
			return err
		}
	}
	for v, ds := range held {
		c.left.add(v, len(ds))
		if err := rep.Finished(channel.Outcome{Channel: name, URLs: ds, Preflight: &v}); err != nil {
			return err
		}
	}
	return nil
}

// eligible returns those of the items of pages already known (a feed built again) that a
// preflight finds an engine would index, all of them without one: a page held back before as a
// draft must not become an item now. One not checked (the run's end) gets none: it is no new page.
func (c *Channel) eligible(ctx context.Context, known []model.FeedItem) []model.FeedItem {
	if c.checker == nil {
		return known
	}
	return slices.DeleteFunc(known, func(it model.FeedItem) bool {
		v, ok := c.checker.Check(ctx, preflight.Feed, it.URL)
		return !ok || v.Reason != ""
	})
}

// item is the item of a page before its title is read: titled by its URL, dated by its lastmod
// or by now.
func (c *Channel) item(d channel.Due) model.FeedItem {
	published := d.Lastmod
	if published.IsZero() {
		published = c.now
	}
	return model.FeedItem{Hash: d.Hash, URL: d.URL, Title: titleFromURL(d.URL), Published: published, FirstSeen: c.now,
		Retitle: c.retitle(d, published)}
}

// retitle reports whether the item of a page due again after a failure may only improve an item
// the feed has. A page left out for now (a 5xx) has none, and is added; one whose title a feed
// without a preflight could not read (sitepush before it checked pages) has its item, titled by
// its URL — unless it was pruned meanwhile, and then it is not added again. The feed's newest
// items tell them apart: a pruned item was beyond the newest maxItems, and stays beyond them (only
// newer items come), so a page that would be among them now is added (an item it has keeps its
// dates), and any other only retitled.
func (c *Channel) retitle(d channel.Due, published time.Time) bool {
	if !d.Retry {
		return false
	}
	return c.oldestShown == nil || !c.oldestShown.IsZero() && !published.After(*c.oldestShown)
}

// readOldestShown reads, once a run, when due holds pages due again after a failure, the date of
// the oldest of the feed's newest maxItems items (retitle).
func (c *Channel) readOldestShown(ctx context.Context, due []channel.Due) error {
	if c.oldestShown != nil || !slices.ContainsFunc(due, func(d channel.Due) bool { return d.Retry }) {
		return nil
	}
	shown, err := c.store.FeedItems(context.WithoutCancel(ctx), c.site.ID, c.site.Feed.MaxItems)
	if err != nil {
		return err
	}
	oldest := time.Time{}
	if len(shown) >= c.site.Feed.MaxItems && len(shown) > 0 {
		oldest = shown[len(shown)-1].Published
	}
	c.oldestShown = &oldest
	return nil
}

// fate is what became of a new page in a run, besides its item.
type fate struct {
	// held is why the page is left out of the feed; nil when it is not.
	held *channel.Preflight
	// unread is set when the run ended, or the client refused a fetch (robots.txt), before the
	// page could be read.
	unread bool
}

// items makes the item of each page — reading it when configured, up to fetchers pages at once,
// for its title and the preflight's verdict — and says what became of each.
func (c *Channel) items(ctx context.Context, due []channel.Due) ([]model.FeedItem, []fate) {
	items, fates := make([]model.FeedItem, len(due)), make([]fate, len(due))
	sem := make(chan struct{}, fetchers)
	var wg sync.WaitGroup
	for i, d := range due {
		items[i] = c.item(d)
		if c.fetch == nil {
			continue
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			fates[i] = c.read(ctx, d.URL, &items[i])
		})
	}
	wg.Wait()
	return items, fates
}

// read reads the page of u into its item — its title and description — and says whether it is
// left out of the feed: an engine would not index it (robots.txt, its answer), or it did not
// answer for now.
func (c *Channel) read(ctx context.Context, u string, item *model.FeedItem) fate {
	v, ok := c.checker.Robots(ctx, preflight.Feed, u)
	switch {
	case !ok:
		return fate{unread: true}
	case v.Reason != "":
		return fate{held: &v}
	}
	p, err := c.fetch.fetch(ctx, u)
	var held *heldBack
	switch {
	case errors.As(err, &held):
		return fate{held: &held.verdict}
	case err == nil:
		item.Titled = true
		if p.title != "" {
			item.Title = p.title
		}
		item.Description = p.description
	case errors.Is(err, errNoTitle):
		item.Titled = true // final: the URL title stays
		c.countUntitled(strings.TrimPrefix(err.Error(), errNoTitle.Error()+": "))
	case ctx.Err() != nil:
		return fate{unread: true}
	default:
		return fate{held: &channel.Preflight{Reason: channel.NotStatus, Detail: err.Error(), Again: true}}
	}
	return fate{}
}

func (c *Channel) countUntitled(why string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.untitled[why]++
}

// noteUntitled says how many pages keep the title made of their URL for good, and why.
func (c *Channel) noteUntitled(rep channel.Reporter) {
	for why, n := range c.untitled {
		rep.Noted(name, fmt.Sprintf("%s gave no title (%s): their items keep the title made of their URL", human.Count(n, "new page"), why))
	}
}

// Generator names sitepush in a feed.
func Generator() string {
	return "sitepush " + strings.TrimPrefix(version.Version(), "v")
}
