package runner

import (
	"cmp"
	"context"
	"encoding/binary"
	"iter"
	"slices"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/sitemap"
)

// maxFilePages bounds the pages of one sitemap held at once (the sitemaps.org limit is 50,000):
// the pages of a bigger one are synced in pieces, each looked up in the store, and the file is
// not remembered.
const maxFilePages = 100_000

// filePage is a page of the sitemap being read: its URL is in the file's arena.
type filePage struct {
	hash, lastmod int64 // lastmod in Unix ms, 0 for none
	off, n        int
}

func (p filePage) page(arena []byte) channel.Page {
	var u string
	if arena != nil {
		u = string(arena[p.off : p.off+p.n])
	}
	var lm time.Time
	if p.lastmod != 0 {
		lm = time.UnixMilli(p.lastmod).UTC()
	}
	return channel.Page{Hash: p.hash, URL: u, Lastmod: lm}
}

// file is the sitemap being read, as far as it was: its pages in scope, the hashes of the URLs
// the filter left out (out), and how many of each it counts.
type file struct {
	name           string
	pages          []filePage
	arena          []byte
	out            []filePage
	urls, filtered int
	// whole is cleared when the pages were too many to hold (maxFilePages).
	whole bool
}

func (f *file) add(u []byte, lastmod time.Time) {
	var ms int64
	if !lastmod.IsZero() {
		// Lastmods are stored to the millisecond: finer ones would never compare equal again.
		ms = lastmod.UnixMilli()
	}
	f.pages = append(f.pages, filePage{hash: URLHash(u), lastmod: ms, off: len(f.arena), n: len(u)})
	f.arena = append(f.arena, u...)
	f.urls++
}

func (f *file) reset(name string) {
	*f = file{name: name, pages: f.pages[:0], arena: f.arena[:0], out: f.out[:0], whole: true}
}

// done is told by the reader that the read of a sitemap ended.
func (c *collector) done(ctx context.Context, sm sitemap.Sitemap) {
	now := time.Now()
	c.lastTook, c.lastDone = now.Sub(c.lastDone), now
	if sm.Kind == sitemap.KindIndex {
		return
	}
	if c.file.name != sm.URL {
		c.endFile(ctx, nil)
		c.file.reset(sm.URL)
	}
	if c.memo.carried(sm) { // its pages were taken before the read
		c.file.reset("")
		return
	}
	if memo, ok := c.memo.unchanged(sm); ok {
		if c.file.urls+c.file.filtered == 0 { // not read again: counted as the memo counted it
			c.rec.TotalURLs += memo.URLs
			c.rec.Filtered += memo.Filtered
		} else {
			c.distinct(c.file.pages) // read again, the same bytes: its pages are taken, and settled
			c.distinctOut()
		}
		c.file.reset("")
		return
	}
	c.endFile(ctx, &sm)
}

// endFile syncs the pages of the file read so far: when sm tells that it was read whole, they
// are merged, in hash order, against those remembered of it, and only pages new or changed since
// are looked up in the store; the others are due only on a channel whose delivery state says so
// (pending). What is found is remembered for the run's end.
func (c *collector) endFile(ctx context.Context, sm *sitemap.Sitemap) {
	f := &c.file
	defer f.reset("")
	if c.syncErr != nil || len(f.pages) == 0 && sm == nil {
		return
	}
	c.distinctOut()
	own, fresh := c.distinct(f.pages)
	var old []byte
	if f.whole {
		old, c.syncErr = c.memo.pages(ctx, f.name)
	}
	if c.syncErr != nil {
		return
	}
	changed := fresh // every page, when none is remembered
	if len(old) > 0 {
		changed = c.merge(fresh, old)
	}
	c.sync(ctx, changed, f.arena)
	if sm != nil && sm.Err == nil && f.whole {
		f.pages = own
		c.memo.read(sm, f)
	}
}

// merge walks pages and old, both sorted by hash: a page as old has it is taken as known (same),
// and the others are returned.
func (c *collector) merge(pages []filePage, old []byte) []filePage {
	var changed []filePage
	j := 0
	for _, p := range pages {
		for j < len(old) && pageHash(old, j) < p.hash {
			j += pageBytes
		}
		if j < len(old) && pageHash(old, j) == p.hash && pageLastmod(old, j) == p.lastmod {
			c.same(p)
			continue
		}
		changed = append(changed, p)
	}
	return changed
}

// distinct sorts pages of the file being read by hash and returns them once each (own), and
// those of them no earlier file or piece took (fresh, which the run takes): a URL listed again —
// further on, by another sitemap, by an attempt at this one that failed before, or spelt with a
// host in capitals — is the page first listed, counted once. The reader delivers repeats
// (sitemap.Options.Repeats): this sorted set costs 8 bytes a page where the reader's costs 8 to
// 16. A file's memo holds its own pages, so that a page it shares with another stays known by it
// when the other drops the page.
func (c *collector) distinct(pages []filePage) (own, fresh []filePage) {
	own, fresh = once(&c.seen, pages)
	c.rec.TotalURLs -= len(pages) - len(fresh)
	c.file.urls -= len(pages) - len(fresh)
	return own, fresh
}

// distinctOut counts the URLs the filter left out of the file being read once each, in the whole
// run, as distinct counts pages.
func (c *collector) distinctOut() {
	f := &c.file
	_, fresh := once(&c.seenOut, f.out)
	c.rec.Filtered -= len(f.out) - len(fresh)
	f.filtered -= len(f.out) - len(fresh)
	f.out = f.out[:0]
}

// once sorts pages by hash, the first listed first, and returns one of each (own, in pages'
// array) and those of them s did not take before (fresh), which s takes.
func once(s *seen, pages []filePage) (own, fresh []filePage) {
	slices.SortFunc(pages, func(a, b filePage) int { return cmp.Or(cmp.Compare(a.hash, b.hash), cmp.Compare(a.off, b.off)) })
	own = slices.CompactFunc(pages, func(a, b filePage) bool { return a.hash == b.hash })
	return own, s.take(own)
}

// same takes a page that is as the file's memo has it: known and settled on every channel of the
// run, unless its delivery state makes it due.
func (c *collector) same(p filePage) {
	for ch, name := range c.channels {
		c.known[ch] = true
		c.rec.Channels[name].Skipped++
	}
	c.pending(p)
}

// pending queues a page taken as settled on the channels where its delivery state makes it due.
func (c *collector) pending(p filePage) {
	for _, pd := range c.memo.take(p.hash) {
		c.rec.Channels[pd.Channel].Skipped--
		ch := slices.Index(c.channels, pd.Channel)
		if d, ok := c.consider(ch, p.page(nil), pd.State); ok {
			c.due[ch].Add(d)
		}
	}
}

// endRead ends the read: the last file, then the sitemaps that did not change: their pages are
// settled, but for those a delivery state makes due.
func (c *collector) endRead(ctx context.Context) error {
	c.endFile(ctx, nil)
	if c.syncErr != nil {
		return c.syncErr
	}
	for _, m := range c.memo.kept {
		for ch, name := range c.channels {
			c.known[ch] = c.known[ch] || m.URLs > 0
			c.rec.Channels[name].Skipped += m.URLs
		}
		if len(c.memo.pending) == 0 {
			continue
		}
		old, err := c.memo.pages(ctx, m.Sitemap)
		if err != nil {
			return err
		}
		for p := range pagesOf(old) {
			c.pending(p)
		}
	}
	return c.fillURLs(ctx)
}

// fillURLs finds, in a dry run, the text of the due URLs that no sitemap read gave.
func (c *collector) fillURLs(ctx context.Context) error {
	if c.urls == nil {
		return nil
	}
	var hashes []int64
	for _, q := range c.due {
		for _, d := range q.Refs(0, q.Len()) {
			if _, ok := c.urls[d.Hash]; !ok {
				hashes = append(hashes, d.Hash)
			}
		}
	}
	if len(hashes) == 0 {
		return nil
	}
	urls, err := c.state.URLs(ctx, c.site.ID, hashes)
	for i, u := range urls {
		c.urls[hashes[i]] = u
	}
	return err
}

func pageHash(b []byte, at int) int64 { return int64(binary.LittleEndian.Uint64(b[at:])) }

// pagesOf yields the pages of a memo's bytes (model.SitemapMemo.Pages), whole pages only.
func pagesOf(b []byte) iter.Seq[filePage] {
	return func(yield func(filePage) bool) {
		for at := 0; at+pageBytes <= len(b); at += pageBytes {
			if !yield(filePage{hash: pageHash(b, at), lastmod: pageLastmod(b, at)}) {
				return
			}
		}
	}
}

func pageLastmod(b []byte, at int) int64 { return int64(binary.LittleEndian.Uint64(b[at+8:])) }
