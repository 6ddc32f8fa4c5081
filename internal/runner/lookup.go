package runner

import (
	"context"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
)

// lookUpFunc looks a batch of pages up in the state's catalogue and returns their delivery state
// on each of the run's channels, flattened as SyncCatalog's; a run that writes records them.
// withURLs is clear for pages taken from memos, which carry only their hash.
type lookUpFunc func(ctx context.Context, pages []channel.Page, withURLs bool) ([]model.DeliveryState, error)

func (c *collector) syncCatalog(ctx context.Context, pages []channel.Page, _ bool) ([]model.DeliveryState, error) {
	return c.state.SyncCatalog(ctx, c.site.ID, c.now, pages, c.channels, !c.mode.writes)
}

// chooseLookUp chooses how the run looks pages up: a state that can (NewSiteLoader) adds the pages
// of a site it holds no URL of yet without looking them up, as they are all new (those taken
// from memos, without their URLs, are looked up).
func (c *collector) chooseLookUp(ctx context.Context) error {
	loader, ok := c.state.(NewSiteLoader)
	if !ok {
		return nil
	}
	empty, err := loader.CatalogEmpty(ctx, c.site.ID)
	if err != nil || !empty {
		return err
	}
	c.look = func(ctx context.Context, pages []channel.Page, withURLs bool) ([]model.DeliveryState, error) {
		if !withURLs {
			return c.syncCatalog(ctx, pages, withURLs)
		}
		return make([]model.DeliveryState, len(pages)*len(c.channels)), loader.AddPages(ctx, c.site.ID, c.now, pages, !c.mode.writes)
	}
	return nil
}

// lookUp looks pages up in the state (look), lookUpBatch at a time, and queues those due on
// each channel (choose); check says that their changes are told by content (Page.Check). A
// failed look-up stops the read: the run ends with its error.
func (c *collector) lookUp(ctx context.Context, pages []filePage, arena []byte, check bool) error {
	for from := 0; from < len(pages); from += lookUpBatch {
		c.batch = c.batch[:0]
		for _, p := range pages[from:min(from+lookUpBatch, len(pages))] {
			pg := p.page(arena)
			pg.Check = check && arena != nil
			c.batch = append(c.batch, pg)
		}
		states, err := c.look(ctx, c.batch, arena != nil)
		if err != nil {
			return err
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
	return nil
}
