package runner

import (
	"context"
	"slices"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
)

// merge walks pages and old, both sorted by hash: a page as old has it is taken as remembered
// (asRemembered), and the others are returned.
func (c *collector) merge(pages []filePage, old []byte) []filePage {
	var changed []filePage
	j := 0
	for _, p := range pages {
		for j < len(old) && pageHash(old, j) < p.hash {
			j += pageBytes
		}
		if j < len(old) && pageHash(old, j) == p.hash && pageLastmod(old, j) == p.lastmod {
			c.asRemembered(p)
			continue
		}
		changed = append(changed, p)
	}
	return changed
}

// asRemembered takes a page that is as the file's memo remembers it: known and settled on every
// channel of the run, unless an outstanding delivery makes it due.
func (c *collector) asRemembered(p filePage) {
	for ch, name := range c.channels {
		c.known[ch] = true
		c.rec.Channels[name].Skipped++
	}
	c.queueOutstanding(p)
}

// queueOutstanding queues a page taken as settled on the channels where an outstanding delivery
// makes it due.
func (c *collector) queueOutstanding(p filePage) {
	for _, pd := range c.memo.outstandingOf(p.hash) {
		c.rec.Channels[pd.Channel].Skipped--
		ch := slices.Index(c.channels, pd.Channel)
		if d, ok := c.choose(ch, p.page(nil), pd.State); ok {
			c.due[ch].Add(d)
		}
	}
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
