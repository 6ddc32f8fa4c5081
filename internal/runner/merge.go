package runner

import (
	"slices"
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
	for _, pd := range c.memo.takeOutstanding(p.hash) {
		c.rec.Channels[pd.Channel].Skipped--
		ch := slices.Index(c.channels, pd.Channel)
		if d, ok := c.choose(ch, p.page(nil), pd.State); ok {
			c.due[ch].Add(d)
		}
	}
}
